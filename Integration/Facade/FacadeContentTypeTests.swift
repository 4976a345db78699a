import Foundation
import Malibu
import Testing

/// The facade against httpbin: endpoint enums whose base URL is read at run time, and every way of sending
/// parameters or a body, checked against httpbin's echo.
@Suite("Facade: endpoints and content types")
struct FacadeContentTypeTests {
  @Test(arguments: Backend.allCases)
  func endpointEnumReadsTheRuntimeBaseURL(_ backend: Backend) async throws {
    let base = try await FacadeServer.start()
    let networking = Networking<Httpbin>(transport: backend.kind)
    let response = try await networking.request(.query([:])).validate().value
    #expect(response.url?.absoluteString == base + "get")
    let echo = try response.toJsonDictionary()
    let headers = try #require(echo["headers"] as? [String: any Sendable])
    #expect(headers["X-Endpoint"] as? String == "httpbin")
  }

  @Test(arguments: Backend.allCases)
  func queryGET(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let networking = Networking<Httpbin>(transport: backend.kind)
    let echo = try await networking.request(.query(["board": "Balsa Fish", "size": 7])).validate().toJsonDictionary()
      .value
    let args = try #require(echo["args"] as? [String: any Sendable])
    #expect(args["board"] as? String == "Balsa Fish")
    #expect(args["size"] as? String == "7")
  }

  @Test(arguments: Backend.allCases)
  func jsonPOST(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let networking = Networking<Httpbin>(transport: backend.kind)
    let parameters: Parameters = ["title": "Wave Rider", "type": 2, "tags": ["fast", "blue"], "new": true]
    let echo = try await networking.request(.postJSON(parameters)).validate().toJsonDictionary().value
    let json = try #require(echo["json"] as? [String: any Sendable])
    #expect(json["title"] as? String == "Wave Rider")
    #expect(json["type"] as? Int == 2)
    #expect(json["tags"] as? [String] == ["fast", "blue"])
    #expect(json["new"] as? Bool == true)
    let headers = try #require(echo["headers"] as? [String: any Sendable])
    #expect((headers["Content-Type"] as? String)?.hasPrefix("application/json") == true)
  }

  @Test(arguments: Backend.allCases)
  func formPOST(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let networking = Networking<Httpbin>(transport: backend.kind)
    let echo = try await networking.request(.postForm(["title": "Wave & Rider", "type": 2])).validate()
      .toJsonDictionary().value
    let form = try #require(echo["form"] as? [String: any Sendable])
    #expect(form["title"] as? String == "Wave & Rider")
    #expect(form["type"] as? String == "2")
    let headers = try #require(echo["headers"] as? [String: any Sendable])
    #expect((headers["Content-Type"] as? String)?.hasPrefix("application/x-www-form-urlencoded") == true)
  }

  @Test(arguments: Backend.allCases)
  func multipartUploadWithAFilePart(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let directory = try TemporaryDirectory("malibu-facade-multipart")
    defer { directory.remove() }
    let file = directory.url.appendingPathComponent("board.txt")
    try Data("Balsa Fish, 6'2\"\n".utf8).write(to: file)
    let networking = Networking<Httpbin>(transport: backend.kind)
    let parameters: Parameters = [
      "title": "Balsa Fish",
      "photo": MultipartFile(url: file, fileName: "board.txt", mimeType: "text/plain"),
    ]
    let echo = try await networking.request(.multipart(parameters)).validate().toJsonDictionary().value
    let form = try #require(echo["form"] as? [String: any Sendable])
    #expect(form["title"] as? String == "Balsa Fish")
    let files = try #require(echo["files"] as? [String: any Sendable])
    #expect(files["photo"] as? String == "Balsa Fish, 6'2\"\n")
    let headers = try #require(echo["headers"] as? [String: any Sendable])
    #expect((headers["Content-Type"] as? String)?.hasPrefix("multipart/form-data; boundary=") == true)
  }

  @Test(arguments: Backend.allCases)
  func putPatchAndDelete(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let networking = Networking<Httpbin>(transport: backend.kind)
    let put = try await networking.request(.put(["title": "put"])).validate().toJsonDictionary().value
    #expect((put["json"] as? [String: any Sendable])?["title"] as? String == "put")
    let patch = try await networking.request(.patch(["title": "patch"])).validate().toJsonDictionary().value
    #expect((patch["json"] as? [String: any Sendable])?["title"] as? String == "patch")
    let delete = try await networking.request(.delete(["id": 42])).validate().toJsonDictionary().value
    #expect((delete["args"] as? [String: any Sendable])?["id"] as? String == "42")
    #expect(delete["data"] as? String == "")
  }

  @Test(arguments: Backend.allCases)
  func rawDataAndFileUploads(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let networking = Networking<Httpbin>(transport: backend.kind)
    let text = "raw bytes, sent as they are: ✓"
    let echo = try await networking.request(.upload(Data(text.utf8))).validate().toJsonDictionary().value
    #expect(echo["data"] as? String == text)
    let headers = try #require(echo["headers"] as? [String: any Sendable])
    #expect(headers["Content-Type"] as? String == "text/plain")
    #expect(headers["Content-Length"] as? String == String(Data(text.utf8).count))

    let directory = try TemporaryDirectory("malibu-facade-upload")
    defer { directory.remove() }
    let file = directory.url.appendingPathComponent("upload.txt")
    let content = String(repeating: "Malibu surf report. ", count: 3000)
    try Data(content.utf8).write(to: file)
    let fileEcho = try await networking.request(.uploadFile(file)).validate().toJsonDictionary().value
    #expect(fileEcho["data"] as? String == content)
  }
}
