import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The harness itself: both servers start, answer, and serve what the integration scenarios rely on; a server that
/// cannot start is a clear error.
@Suite("Local servers")
struct ServerSmokeTests {
  private struct Echo: Decodable {
    let url: String
    let headers: [String: String]
  }

  private struct UploadReceipt: Decodable {
    let method: String
    let received: Int
  }

  private static let session: URLSession = {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.urlCache = nil
    return URLSession(configuration: configuration)
  }()

  private func fetch(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
    let (data, response) = try await Self.session.data(for: request)
    return (data, try #require(response as? HTTPURLResponse))
  }

  @Test("httpbin answers /get with JSON")
  func httpbinGet() async throws {
    let base = try await LocalServers.shared.httpbin()
    let url = base.appendingPathComponent("get")
    let (data, response) = try await fetch(URLRequest(url: url))
    #expect(response.statusCode == 200)
    #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/json")
    let echo = try JSONDecoder().decode(Echo.self, from: data)
    #expect(echo.url == url.absoluteString)
    #expect(echo.headers["Host"] == "127.0.0.1:\(base.port ?? 0)")
  }

  @Test(
    "httpbin serves the endpoints the scenarios use",
    arguments: [
      ("/get", 200), ("/gzip", 200), ("/deflate", 200), ("/drip?duration=0&numbytes=8&delay=0", 200),
      ("/delay/0", 200), ("/stream/3", 200), ("/bytes/16", 200), ("/range/32", 200), ("/redirect/2", 302),
      ("/absolute-redirect/2", 302), ("/redirect-to?url=/get&status_code=307", 307), ("/status/418", 418),
      ("/status/599", 599), ("/basic-auth/user/pass", 401), ("/bearer", 401), ("/anything/x", 200),
      ("/etag/abc", 200), ("/cache", 200),
    ]
  )
  func httpbinEndpoint(path: String, status: Int) async throws {
    let base = try await LocalServers.shared.httpbin()
    // A plain socket, so redirects are seen as they are, not followed.
    let port = try #require(base.port.flatMap { UInt16(exactly: $0) })
    let answer = try #require(LoopbackSocket.get(port: port, path: path))
    #expect(answer.status == status)
  }

  @Test("httpbin accepts basic and bearer credentials")
  func httpbinCredentials() async throws {
    let base = try await LocalServers.shared.httpbin()
    var basic = URLRequest(url: base.appendingPathComponent("basic-auth/user/pass"))
    basic.setValue("Basic \(Data("user:pass".utf8).base64EncodedString())", forHTTPHeaderField: "Authorization")
    var bearer = URLRequest(url: base.appendingPathComponent("bearer"))
    bearer.setValue("Bearer malibu", forHTTPHeaderField: "Authorization")
    for request in [basic, bearer] {
      let (_, response) = try await fetch(request)
      #expect(response.statusCode == 200)
    }
  }

  @Test("nginx serves the 1 KiB file byte for byte")
  func nginxSmallFile() async throws {
    let base = try await LocalServers.shared.nginx()
    for path in ["identity/1k.bin", "1k.bin"] {
      var request = URLRequest(url: base.appendingPathComponent(path))
      request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
      let (data, response) = try await fetch(request)
      #expect(response.statusCode == 200)
      #expect(response.value(forHTTPHeaderField: "Content-Length") == "1024")
      #expect(response.value(forHTTPHeaderField: "Content-Encoding") == nil)
      #expect(data == StaticContent.data(of: StaticContent.small))
    }
  }

  @Test("nginx compresses with gzip when asked, and URLSession decodes it")
  func nginxGzip() async throws {
    let base = try await LocalServers.shared.nginx()
    var request = URLRequest(url: base.appendingPathComponent(StaticContent.small.name))
    request.setValue("gzip", forHTTPHeaderField: "Accept-Encoding")
    let (data, response) = try await fetch(request)
    #expect(response.statusCode == 200)
    #expect(response.value(forHTTPHeaderField: "Content-Encoding") == "gzip")
    #expect(data == StaticContent.data(of: StaticContent.small))
  }

  @Test("nginx reports the 100 MiB file's size on HEAD")
  func nginxLargeFileHead() async throws {
    let base = try await LocalServers.shared.nginx()
    var request = URLRequest(url: base.appendingPathComponent("identity/\(StaticContent.large.name)"))
    request.httpMethod = "HEAD"
    let (data, response) = try await fetch(request)
    #expect(response.statusCode == 200)
    #expect(response.value(forHTTPHeaderField: "Content-Length") == String(100 * 1024 * 1024))
    #expect(data.isEmpty)
  }

  @Test("nginx ranges match StaticContent", arguments: [0..<64, 1000..<2000, (1 << 20) - 10..<(1 << 20)])
  func nginxRange(range: Range<Int>) async throws {
    let base = try await LocalServers.shared.nginx()
    var request = URLRequest(url: base.appendingPathComponent("identity/\(StaticContent.medium.name)"))
    request.setValue("bytes=\(range.lowerBound)-\(range.upperBound - 1)", forHTTPHeaderField: "Range")
    let (data, response) = try await fetch(request)
    #expect(response.statusCode == 206)
    #expect(data == Data(StaticContent.bytes(in: range)))
  }

  @Test("nginx's upload sink reads a 4 MiB body and answers 200", arguments: ["POST", "PUT"])
  func nginxUpload(method: String) async throws {
    let base = try await LocalServers.shared.nginx()
    var request = URLRequest(url: base.appendingPathComponent("upload"))
    request.httpMethod = method
    let body = Data(StaticContent.bytes(in: 0..<(4 << 20)))
    let (data, response) = try await Self.session.upload(for: request, from: body)
    let http = try #require(response as? HTTPURLResponse)
    #expect(http.statusCode == 200)
    let receipt = try JSONDecoder().decode(UploadReceipt.self, from: data)
    #expect(receipt.method == method)
    #expect(receipt.received == body.count)
  }

  @Test("concurrent callers share one server per kind")
  func oneStartPerServer() async throws {
    async let first = LocalServers.shared.process(of: .nginx)
    async let second = LocalServers.shared.process(of: .nginx)
    async let third = LocalServers.shared.process(of: .httpbin)
    let (a, b, c) = try await (first, second, third)
    #expect(a.processGroup == b.processGroup)
    #expect(a.port != c.port)
    #expect(ServerRegistry.groups.isSuperset(of: [a.processGroup, c.processGroup]))
    #expect(a.baseURL.host == "127.0.0.1" && c.baseURL.host == "127.0.0.1")
  }
}
