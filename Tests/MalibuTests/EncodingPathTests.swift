import Malibu
import Testing

/// What reaches the transport for every content type and task: method, URL, header fields, body.
@Suite("Request building")
struct EncodingPathTests {
  private func send(_ request: Request) async throws -> MockTransport.RecordedRequest {
    let transport = makeTransport()
    let networking = Networking<Probe>(transport: .custom(transport))
    _ = try await networking.request(Probe(request)).value
    return try #require(transport.recordedRequests.first)
  }

  @Test func queryParametersGoIntoTheURL() async throws {
    let sent = try await send(.get("boards?page=2", parameters: ["type": 1]))
    #expect(sent.method == .get)
    #expect(sent.url?.absoluteString == "http://127.0.0.1:8080/api/boards?page=2&type=1")
    #expect(sent.body == nil)
    #expect(sent.headerFields[.contentType] == nil)
  }

  @Test func formURLEncodedBody() async throws {
    let sent = try await send(.post("boards", contentType: .formURLEncoded, parameters: ["type": 1, "title": "Balsa"]))
    #expect(sent.method == .post)
    #expect(sent.url?.absoluteString == "http://127.0.0.1:8080/api/boards")
    #expect(sent.headerFields[.contentType] == "application/x-www-form-urlencoded; charset=utf-8")
    #expect(sent.body.map { String(decoding: $0, as: UTF8.self) } == "title=Balsa&type=1")
  }

  @Test func jsonBody() async throws {
    let sent = try await send(.patch("boards/1", parameters: ["title": "Balsa", "type": 2]))
    #expect(sent.method == .patch)
    #expect(sent.url?.absoluteString == "http://127.0.0.1:8080/api/boards/1")
    #expect(sent.headerFields[.contentType] == "application/json")
    let body = try #require(sent.body)
    let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
    #expect(object["title"] as? String == "Balsa")
    #expect(object["type"] as? Int == 2)
  }

  /// A POST with `.json` and no parameters sends an empty object (see `PreparedRequest`; `CodableBodyTests` has
  /// every method).
  @Test func jsonPostWithoutParametersSendsAnEmptyObject() async throws {
    let sent = try await send(.post("boards"))
    #expect(sent.body == Data("{}".utf8))
    #expect(sent.headerFields[.contentType] == "application/json")
  }

  @Test func multipartBody() async throws {
    let sent = try await send(
      .post("boards", contentType: .multipartFormData, parameters: ["firstname": "John", "lastname": "Doe"])
    )
    let contentType = try #require(sent.headerFields[.contentType])
    #expect(contentType.hasPrefix("multipart/form-data; boundary="))
    let boundary = String(contentType.split(separator: "=", maxSplits: 1)[1])
    let body = String(decoding: try #require(sent.body), as: UTF8.self)
    #expect(body.contains("--\(boundary)\r\n"))
    #expect(body.contains("Content-Disposition: form-data; name=\"firstname\"\r\n\r\nJohn\r\n"))
    #expect(body.hasSuffix("--\(boundary)--\r\n"))
  }

  @Test func uploadMultipart() async throws {
    let sent = try await send(.upload(multipartParameters: ["key": "value"], to: "posts"))
    #expect(sent.method == .post)
    #expect(sent.url?.absoluteString == "http://127.0.0.1:8080/api/posts")
    #expect(sent.headerFields[.contentType]?.hasPrefix("multipart/form-data; boundary=") == true)
    #expect(String(decoding: try #require(sent.body), as: UTF8.self).contains("name=\"key\"\r\n\r\nvalue\r\n"))
  }

  @Test func uploadData() async throws {
    let sent = try await send(.upload(data: Data("raw".utf8), to: "boards", method: .put))
    #expect(sent.method == .put)
    #expect(sent.headerFields[.contentType] == "application/octet-stream")
    #expect(sent.body == Data("raw".utf8))
  }

  @Test func uploadFile() async throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("malibu-upload-\(UUID().uuidString).txt")
    try Data("file body".utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let sent = try await send(.upload(fileAt: file, to: "files", contentType: .custom("text/plain")))
    #expect(sent.headerFields[.contentType] == "text/plain")
    #expect(sent.body == Data("file body".utf8))
  }

  @Test func missingUploadFileFailsBeforeSending() async throws {
    let transport = makeTransport()
    let networking = Networking<Probe>(transport: .custom(transport))
    let missing = URL(fileURLWithPath: "/nonexistent/malibu-\(UUID().uuidString)")
    let error = await networkError(networking.request(Probe(.upload(fileAt: missing, to: "files"))))
    #expect(error?.code == .encodingFailed)
    #expect(transport.recordedRequests.isEmpty)
  }

  @Test func customContentTypeUsesTheRegisteredEncoder() async throws {
    let contentType = ContentType.custom("application/x-malibu-test-\(UUID().uuidString)")
    Malibu.parameterEncoders[contentType] = CustomXMLEncoder()
    defer { Malibu.parameterEncoders[contentType] = nil }
    let sent = try await send(.post("boards", contentType: contentType, parameters: ["title": "Balsa"]))
    #expect(sent.headerFields[.contentType] == contentType.headerValue)
    #expect(sent.body == Data("<root><title>Balsa</title></root>".utf8))
  }

  @Test func customContentTypeWithoutEncoderFails() async throws {
    let transport = makeTransport()
    let networking = Networking<Probe>(transport: .custom(transport))
    let request = Request.post("boards", contentType: .custom("application/x-unregistered"), parameters: ["a": 1])
    #expect(await networkError(networking.request(Probe(request)))?.code == .missingEncoder)
    #expect(transport.recordedRequests.isEmpty)
  }

  @Test func unsupportedParameterFails() async throws {
    struct Opaque: Sendable {}
    let transport = makeTransport()
    let networking = Networking<Probe>(transport: .custom(transport))
    let error = await networkError(networking.request(Probe(.post("boards", parameters: ["thing": Opaque()]))))
    #expect(error?.code == .unsupportedParameter)
    #expect(transport.recordedRequests.isEmpty)
  }

  @Test(arguments: ["bad\r\nX-Injected: 1", "line\nfeed", "nul\u{0}"])
  func headerWithControlCharactersFails(value: String) async throws {
    let transport = makeTransport()
    let networking = Networking<Probe>(transport: .custom(transport))
    let error = await networkError(networking.request(Probe(.get("boards", headers: ["X-Evil": value]))))
    #expect(error?.code == .invalidHeader)
    #expect(transport.recordedRequests.isEmpty)
  }

  @Test func headersMergeInOneOrder() async throws {
    let transport = makeTransport()
    let networking = Networking<Probe>(transport: .custom(transport))
    networking.headers = ["X-Networking": "networking", "x-endpoint": "networking", "User-Agent": "Surfer/1"]
    let request = Request.get("boards", headers: ["X-Shared": "request", "accept": "text/plain"])
    _ = try await networking.request(Probe(request)).value
    let fields = try #require(transport.recordedRequests.first).headerFields
    #expect(fields[.acceptEncoding] == DefaultHeaders.acceptEncoding)  // default, untouched
    #expect(fields[.userAgent] == "Surfer/1")  // networking > default
    #expect(fields[HTTPField.Name("X-Networking")!] == "networking")
    #expect(fields[values: HTTPField.Name("X-Endpoint")!] == ["endpoint"])  // endpoint type > networking
    #expect(fields[values: HTTPField.Name("X-Shared")!] == ["request"])  // request > endpoint type
    #expect(fields[values: .accept] == ["text/plain"])
  }

  /// The networking's headers are checked when they are set: a bad one fails every request with `invalidHeader`
  /// before anything is sent, until they are set again; the session configuration's lie below them.
  @Test func networkingHeadersAreCheckedWhenSetAndFailEachRequestUntilMended() async throws {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpAdditionalHeaders = ["X-Client": "board-app", "X-Layer": "session"]
    let transport = makeTransport()
    let networking = Networking<Probe>(sessionConfiguration: .custom(configuration), transport: .custom(transport))
    networking.headers = ["X-Api-Key": "key\n", "X-Layer": "networking"]
    for _ in 0..<2 {
      let error = await networkError(networking.request(Probe(.get("boards"))))
      #expect(error?.code == .invalidHeader)
      #expect(error?.message.contains("X-Api-Key") == true)
    }
    #expect(transport.recordedRequests.isEmpty)

    networking.headers["X-Api-Key"] = "key"
    _ = try await networking.request(Probe(.get("boards"))).value
    let fields = try #require(transport.recordedRequests.first).headerFields
    #expect(fields[HTTPField.Name("X-Api-Key")!] == "key")
    #expect(fields[HTTPField.Name("X-Client")!] == "board-app")
    #expect(fields[values: HTTPField.Name("X-Layer")!] == ["networking"])  // networking > session
  }

  /// A bad field among the session configuration's headers fails every request the same way, and the networking's
  /// own headers do not hide it.
  @Test func aBadSessionConfigurationHeaderFailsEachRequest() async throws {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpAdditionalHeaders = ["X-Client": "board\r\nX-Injected: 1"]
    let transport = makeTransport()
    let networking = Networking<Probe>(sessionConfiguration: .custom(configuration), transport: .custom(transport))
    networking.headers = ["X-Api-Key": "key"]
    for _ in 0..<2 {
      let error = await networkError(networking.request(Probe(.get("boards"))))
      #expect(error?.code == .invalidHeader)
      #expect(error?.message.contains("X-Client") == true)
    }
    #expect(transport.recordedRequests.isEmpty)
  }

  @Test func contentTypeHeaderOverridesTheEncodersExceptForMultipart() async throws {
    let json = try await send(
      .post("boards", parameters: ["a": 1], headers: ["Content-Type": "application/vnd.api+json"])
    )
    #expect(json.headerFields[values: .contentType] == ["application/vnd.api+json"])
    let multipart = try await send(
      .post("boards", contentType: .multipartFormData, parameters: ["a": 1], headers: ["Content-Type": "text/plain"])
    )
    #expect(multipart.headerFields[.contentType]?.hasPrefix("multipart/form-data; boundary=") == true)
  }

  @Test func absoluteResourceIgnoresTheBaseURL() async throws {
    let sent = try await send(.get("http://127.0.0.1:9/other", parameters: ["q": "a b"]))
    #expect(sent.url?.absoluteString == "http://127.0.0.1:9/other?q=a%20b")
  }
}
