import Foundation
import HTTPTypes
import MalibuCore
import MalibuEncoding
import MalibuTransport
import Testing

/// What every transport must do with ordinary requests, against httpbin and nginx.
@Suite("Exchanges", .serialized)
struct ExchangeScenarioTests {
  static let bodyMethods: [HTTPRequest.Method] = [.post, .put, .patch, .delete]

  @Test(arguments: Backend.allCases, [HTTPRequest.Method.get, .post, .put, .patch, .delete, .options])
  func methodsWithoutBody(_ backend: Backend, _ method: HTTPRequest.Method) async throws {
    let exchange = try await backend.exchange(method, Servers.httpbin("/anything"))
    #expect(exchange.status == 200)
    if method != .options {
      #expect(try exchange.json()["method"] as? String == method.rawValue)
      #expect(try exchange.json()["data"] as? String == "")
    }
  }

  @Test(arguments: Backend.allCases, bodyMethods)
  func methodsWithBody(_ backend: Backend, _ method: HTTPRequest.Method) async throws {
    let body = "surf's up: \(method.rawValue) ∮ 🏄"
    let exchange = try await backend.exchange(
      method,
      Servers.httpbin("/anything"),
      headers: ["Content-Type": "text/plain; charset=utf-8"],
      body: .data(Data(body.utf8))
    )
    #expect(exchange.status == 200)
    let json = try exchange.json()
    #expect(json["method"] as? String == method.rawValue)
    #expect(json["data"] as? String == body)
  }

  @Test(arguments: Backend.allCases)
  func head(_ backend: Backend) async throws {
    let exchange = try await backend.exchange(.head, Servers.nginx("/identity/1m.bin"))
    #expect(exchange.status == 200)
    #expect(exchange.data.isEmpty)
    #expect(exchange.head.headerFields[.contentLength] == String(1 << 20))
  }

  @Test(arguments: Backend.allCases)
  func queryParameters(_ backend: Backend) async throws {
    let base = try await LocalServers.shared.httpbin()
    let url = try Request.get("anything", parameters: ["name": "José Müller", "tags": ["a b", "c&d"], "n": 1])
      .buildURL(baseUrl: base)
    let json = try await backend.exchange(url).json()
    let args = try #require(json["args"] as? [String: any Sendable])
    #expect(args["name"] as? String == "José Müller")
    #expect(args["tags[]"] as? [String] == ["a b", "c&d"])
    #expect(args["n"] as? String == "1")
  }

  @Test(arguments: Backend.allCases)
  func formBody(_ backend: Backend) async throws {
    let body = try #require(try FormURLEncoder().encode(parameters: ["title": "Balsa & Fish", "type": 1]))
    let json = try await backend.exchange(
      .post,
      Servers.httpbin("/anything"),
      headers: ["Content-Type": FormURLEncoder.formContentType],
      body: .data(body)
    ).json()
    #expect(json["form"] as? [String: String] == ["title": "Balsa & Fish", "type": "1"])
  }

  @Test(arguments: Backend.allCases)
  func jsonBody(_ backend: Backend) async throws {
    let body = try #require(try JSONParameterEncoder().encode(parameters: ["title": "Balsa", "sizes": [1, 2]]))
    let json = try await backend.exchange(
      .post,
      Servers.httpbin("/anything"),
      headers: ["Content-Type": "application/json"],
      body: .data(body)
    ).json()
    let echoed = try #require(json["json"] as? [String: any Sendable])
    #expect(echoed["title"] as? String == "Balsa")
    #expect(echoed["sizes"] as? [Int] == [1, 2])
  }

  @Test(arguments: Backend.allCases)
  func multipartBodyStreamedFromDisk(_ backend: Backend) async throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("malibu-integration-\(UUID()).txt")
    try Data("file content ∮\n".utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    var form = MultipartFormData()
    form.append("John Doe", name: "name")
    form.append("100% & more", name: "note")
    form.append(fileAt: file, name: "upload", fileName: "notes.txt", mimeType: "text/plain")
    let json = try await backend.exchange(
      .post,
      Servers.httpbin("/anything"),
      headers: ["Content-Type": form.contentType],
      body: .source(form)
    ).json()
    #expect(json["form"] as? [String: String] == ["name": "John Doe", "note": "100% & more"])
    #expect(json["files"] as? [String: String] == ["upload": "file content ∮\n"])
  }

  @Test(arguments: Backend.allCases)
  func headersRoundTrip(_ backend: Backend) async throws {
    let json = try await backend.exchange(
      Servers.httpbin("/headers"),
      headers: ["X-Malibu-One": "1", "X-Malibu-Text": "a, b; c=\"d\""]
    ).json()
    let headers = try #require(json["headers"] as? [String: String])
    #expect(headers["X-Malibu-One"] == "1")
    #expect(headers["X-Malibu-Text"] == "a, b; c=\"d\"")

    let response = try await backend.exchange(Servers.httpbin("/response-headers?X-Answer=42&X-Answer=43"))
    // URLSession hands repeated response fields over joined with ", " (README, "Transports").
    let expected = backend == .urlSession ? ["42, 43"] : ["42", "43"]
    #expect(response.head.headerFields[values: HTTPField.Name("X-Answer")!] == expected)
  }

  @Test(arguments: Backend.allCases)
  func everyStatusCode(_ backend: Backend) async throws {
    var options = TransferOptions()
    options.redirects = .none
    for code in 200...599 {
      // FoundationNetworking drops a 3xx response that has no Location (httpbin's 306 and 308): the task ends with
      // no response at all (README, "Transports").
      if backend == .urlSession && (code == 306 || code == 308) {
        await withKnownIssue("URLSession on Linux loses 3xx responses without Location") {
          _ = try await backend.exchange(Servers.httpbin("/status/\(code)"), options: options)
        }
        continue
      }
      let exchange = try await backend.exchange(Servers.httpbin("/status/\(code)"), options: options)
      #expect(exchange.status == code, "status \(code)")
    }
  }

  @Test(arguments: Backend.allCases)
  func basicAuth(_ backend: Backend) async throws {
    let credentials = Data("malibu:surfingparadise".utf8).base64EncodedString()
    let good = try await backend.exchange(
      Servers.httpbin("/basic-auth/malibu/surfingparadise"),
      headers: ["Authorization": "Basic \(credentials)"]
    )
    #expect(good.status == 200)
    #expect(try good.json()["authenticated"] as? Bool == true)
    let bad = try await backend.exchange(Servers.httpbin("/basic-auth/malibu/other"))
    #expect(bad.status == 401)
  }

  @Test(arguments: Backend.allCases)
  func bearer(_ backend: Backend) async throws {
    let good = try await backend.exchange(Servers.httpbin("/bearer"), headers: ["Authorization": "Bearer t0ken"])
    #expect(good.status == 200)
    #expect(try good.json()["token"] as? String == "t0ken")
    #expect(try await backend.exchange(Servers.httpbin("/bearer")).status == 401)
  }

  @Test(arguments: Backend.allCases)
  func utf8Body(_ backend: Backend) async throws {
    let exchange = try await backend.exchange(Servers.httpbin("/encoding/utf8"))
    #expect(exchange.status == 200)
    #expect(String(data: exchange.data, encoding: .utf8)?.contains("∮ E⋅da = Q") == true)
  }

  @Test(arguments: Backend.allCases)
  func streamBytesAndRange(_ backend: Backend) async throws {
    let stream = try await backend.exchange(Servers.httpbin("/stream/20"))
    #expect(stream.text.split(separator: "\n").count == 20)
    let bytes = try await backend.exchange(Servers.httpbin("/bytes/4096?seed=7"))
    #expect(bytes.data.count == 4096)
    let range = try await backend.exchange(Servers.nginx("/identity/1m.bin"), headers: ["Range": "bytes=1000-1999"])
    #expect(range.status == 206)
    #expect(range.data == Data(StaticContent.bytes(in: 1000..<2000)))
  }

  @Test(arguments: Backend.allCases)
  func gzipAndDeflateAreDecodedWithHonestHeaders(_ backend: Backend) async throws {
    let gzip = try await backend.exchange(Servers.httpbin("/gzip"), headers: ["Accept-Encoding": "gzip, deflate"])
    #expect(try gzip.json()["gzipped"] as? Bool == true)
    #expect(gzip.head.headerFields[.contentEncoding] == nil)
    let deflate = try await backend.exchange(Servers.httpbin("/deflate"), headers: ["Accept-Encoding": "gzip, deflate"])
    #expect(try deflate.json()["deflated"] as? Bool == true)
    #expect(deflate.head.headerFields[.contentEncoding] == nil)
    let file = try await backend.exchange(Servers.nginx("/1m.bin"), headers: ["Accept-Encoding": "gzip"])
    #expect(file.data == StaticContent.data(of: StaticContent.medium))
    #expect(file.head.headerFields[.contentEncoding] == nil)
    #expect(file.head.headerFields[.contentLength] == nil)
  }
}
