#if OpenAPI
import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuCore
import MalibuMocking
import MalibuOpenAPI
import MalibuOpenAPIExampleClient
import MalibuTransport
import OpenAPIRuntime
import Testing

/// The adapter without a server: URLs, bodies, middleware and errors, through the generated client and a
/// `MockTransport` or a transport that records what it is handed.
@Suite("OpenAPITransport")
struct OpenAPITransportTests {
  static let base = URL(string: "http://127.0.0.1:8080")!
  static let json: HTTPFields = [.contentType: "application/json"]

  @Test(arguments: [
    ("http://127.0.0.1:8080", "/anything?tag=a", "http://127.0.0.1:8080/anything?tag=a"),
    ("http://127.0.0.1:8080/", "/anything", "http://127.0.0.1:8080/anything"),
    ("https://api.example.com/v1", "/items/7", "https://api.example.com/v1/items/7"),
    ("https://api.example.com/v1/", "/items/7?x=%20y", "https://api.example.com/v1/items/7?x=%20y"),
    ("http://[::1]:8443/api", "/status/404", "http://[::1]:8443/api/status/404"),
  ])
  func requestURLJoinsTheServerURLAndThePath(_ base: String, _ path: String, _ expected: String) throws {
    let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: path, headerFields: [.accept: "*/*"])
    let absolute = try OpenAPITransport.absoluteRequest(request, baseURL: URL(string: base)!, operationID: "op")
    #expect(absolute.url?.absoluteString == expected)
    #expect(absolute.headerFields[.accept] == "*/*")
  }

  @Test func typedSuccessThroughTheGeneratedClient() async throws {
    let mock = MockTransport()
    let echo = #"{"method":"GET","url":"http://127.0.0.1:8080/anything?tag=a","args":{"tag":"a"},"headers":{}}"#
    mock.stub(.get, "/anything", headerFields: Self.json, body: Data(echo.utf8))
    let client = Client(serverURL: Self.base, transport: OpenAPITransport(transport: mock))
    let output = try await client.getAnything(query: .init(tag: "a"))
    #expect(try output.ok.body.json.args.additionalProperties["tag"] == "a")
    #expect(mock.recordedRequests.first?.url?.absoluteString == "http://127.0.0.1:8080/anything?tag=a")
  }

  @Test func documentedErrorResponsesAreTyped() async throws {
    let mock = MockTransport()
    mock.stub(.get, "/bearer", reply: .init(status: .unauthorized, headerFields: [.wwwAuthenticate: "Bearer"]))
    mock.stub(.get, "/status/404", reply: .init(status: .notFound))
    mock.stub(.get, "/status/418", reply: .init(status: 418))
    let client = Client(serverURL: Self.base, transport: OpenAPITransport(transport: mock))
    #expect(try await client.getBearer().unauthorized.headers.WWW_hyphen_Authenticate == "Bearer")
    _ = try await client.getStatus(path: .init(code: 404)).notFound
    guard case .undocumented(statusCode: 418, _) = try await client.getStatus(path: .init(code: 418)) else {
      Issue.record("418 is not documented")
      return
    }
  }

  @Test func middlewareRunsAroundEveryRequestAndSeesTheOperation() async throws {
    let mock = MockTransport()
    mock.stub(.get, "/bearer", headerFields: Self.json, body: Data(#"{"authenticated":true,"token":"t"}"#.utf8))
    let seen = Seen()
    let transport = OpenAPITransport(transport: mock, middleware: [BearerMiddleware(token: "t", seen: seen)])
    let output = try await Client(serverURL: Self.base, transport: transport).getBearer()
    #expect(try output.ok.body.json.authenticated)
    #expect(mock.recordedRequests.first?.headerFields[.authorization] == "Bearer t")
    #expect(seen.operations == ["getBearer"])
    #expect(OpenAPITransport.operationID == nil)
  }

  @Test func smallJSONBodiesAreRepeatableAndStreamsAreStreamedOnce() async throws {
    let recorder = RecordingTransport()
    let client = Client(serverURL: Self.base, transport: OpenAPITransport(transport: recorder))
    _ = try await client.postAnything(body: .json(.init(name: "board", count: 2)))
    let json = try #require(recorder.bodies.first ?? nil)
    #expect(json.isRepeatable)
    #expect(json.length == recorder.received.first.map(UInt64.init))
    #expect((recorder.received.first ?? 0) > 0)

    let chunks = AsyncStream<ArraySlice<UInt8>> { continuation in
      for _ in 0..<4 { continuation.yield(ArraySlice(repeating: 7, count: 1000)) }
      continuation.finish()
    }
    _ = try await client.upload(body: .binary(HTTPBody(chunks, length: .known(4000))))
    let streamed = try #require(recorder.bodies.last ?? nil)
    #expect(!streamed.isRepeatable)
    #expect(streamed.length == 4000)
    #expect(recorder.received.last == 4000)
  }

  @Test func theResponseBodyStreamsAndDroppingItStopsTheTransfer() async throws {
    let stopped = Flag()
    let chunks = AsyncStream<Data> { continuation in
      continuation.onTermination = { _ in stopped.set() }
      continuation.yield(Data(repeating: 1, count: 1024))
    }
    let transport = OpenAPITransport(
      transport: RecordingTransport(reply: { _ in ("application/octet-stream", ResponseBody(chunks: chunks)) })
    )
    var output: Operations.downloadFile.Output? = try await Client(serverURL: Self.base, transport: transport)
      .downloadFile(path: .init(file: "endless.bin"))
    var iterator = try #require(output).ok.body.binary.makeAsyncIterator()
    #expect(try await iterator.next()?.count == 1024)
    #expect(!stopped.isSet)
    output = nil
    iterator = HTTPBody().makeAsyncIterator()
    for _ in 0..<200 where !stopped.isSet { try await Task.sleep(for: .milliseconds(10)) }
    #expect(stopped.isSet, "the source is still read after the body was dropped")
  }

  /// Malibu's RetryMiddleware in an OpenAPI client: a body in memory is sent again, a single-pass stream once.
  @Test func retryMiddlewareResendsRepeatableBodiesOnly() async throws {
    var options = TransferOptions()
    options.retry = RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(1), maxDelay: .milliseconds(1))
    let inMemory = RecordingTransport(statuses: [.serviceUnavailable])
    let retrying = OpenAPITransport(transport: inMemory, options: options, middleware: [RetryMiddleware()])
    let receipt = try await Client(serverURL: Self.base, transport: retrying)
      .upload(body: .binary(HTTPBody(Data(repeating: 1, count: 1000)))).ok.body.json
    #expect(receipt.method == "PUT")
    #expect(inMemory.received == [1000, 1000])

    let streamed = RecordingTransport(statuses: [.serviceUnavailable])
    let once = OpenAPITransport(transport: streamed, options: options, middleware: [RetryMiddleware()])
    let chunks = AsyncStream<ArraySlice<UInt8>> { continuation in
      continuation.yield(ArraySlice(repeating: 1, count: 1000))
      continuation.finish()
    }
    let output = try await Client(serverURL: Self.base, transport: once)
      .upload(body: .binary(HTTPBody(chunks, length: .known(1000))))
    guard case .undocumented(statusCode: 503, _) = output else {
      Issue.record("expected the 503 of the only attempt, got \(output)")
      return
    }
    #expect(streamed.received == [1000])
  }

  /// While decompression is on, a request without `Accept-Encoding` asks for what Malibu decodes; otherwise nothing
  /// is added.
  @Test(arguments: [(Decompression.enabled(limit: 1 << 20), String?("gzip, deflate")), (.disabled, nil)])
  func acceptEncodingFollowsDecompression(_ decompression: Decompression, _ expected: String?) async throws {
    let mock = MockTransport()
    mock.stub(.get, "/status/200", reply: .init(status: .ok))
    let transport = OpenAPITransport(transport: mock, options: TransferOptions(decompression: decompression))
    _ = try await Client(serverURL: Self.base, transport: transport).getStatus(path: .init(code: 200)).ok
    #expect(mock.recordedRequests.first?.headerFields[.acceptEncoding] == expected)
  }

  @Test func headResponsesHaveNoBody() async throws {
    let mock = MockTransport()
    mock.stub(.head, "/anything", reply: .init(status: .ok, headerFields: [.contentLength: "10"]))
    let request = HTTPRequest(method: .head, scheme: nil, authority: nil, path: "/anything")
    let (head, body) = try await OpenAPITransport(transport: mock)
      .send(request, body: nil, baseURL: Self.base, operationID: "head")
    #expect(head.status == .ok)
    #expect(body == nil)
  }

  @Test func aTransportErrorReachesTheCallerWithoutTheCredentials() async throws {
    let mock = MockTransport()
    mock.stub(.get, "/bearer", error: TransportError(code: .connectionRefused, message: "connection refused"))
    mock.stub(
      .get,
      "/anything",
      headerFields: Self.json,
      body: Data(#"{"method":"GET","url":"u","args":{},"headers":{}}"#.utf8)
    )
    let transport = OpenAPITransport(
      transport: mock,
      middleware: [BearerMiddleware(token: "s3cr3t-token", seen: Seen())]
    )
    let client = Client(serverURL: Self.base, transport: transport)
    do {
      _ = try await client.getBearer()
      Issue.record("expected a ClientError")
    } catch let error as ClientError {
      let cause = try #require(error.underlyingError as? TransportError)
      #expect(cause.code == .connectionRefused)
      #expect(error.operationID == "getBearer")
      #expect(!"\(error)".contains("s3cr3t-token"))
      #expect(!error.localizedDescription.contains("s3cr3t-token"))
    }
    #expect(try await client.getAnything().ok.body.json.method == "GET")
  }

  @Test func aServerURLThatMakesNoURLIsAnInvalidRequestNamingNoURL() async throws {
    let mock = MockTransport(fallback: .init(status: .ok))
    let transport = OpenAPITransport(transport: mock)
    do {
      _ = try await Client(serverURL: URL(string: "relative?key=s3cr3t")!, transport: transport).getStatus(
        path: .init(code: 200)
      )
      Issue.record("expected a ClientError")
    } catch let error as ClientError {
      let cause = try #require(error.underlyingError as? TransportError)
      #expect(cause.code == .invalidRequest)
      #expect(cause.message.contains("getStatus"))
      #expect(!cause.message.contains("s3cr3t"))
    }
    #expect(mock.recordedRequests.isEmpty)
    _ = try await Client(serverURL: Self.base, transport: transport).getStatus(path: .init(code: 200)).ok
  }
}

/// Adds a bearer token and notes the operation each request belongs to.
private struct BearerMiddleware: Middleware {
  let token: String
  let seen: Seen

  func intercept(
    _ request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions,
    next: Next
  ) async throws -> TransportResponse {
    seen.note(OpenAPITransport.operationID ?? "none")
    var request = request
    request.headerFields[.authorization] = "Bearer \(token)"
    return try await next(request, body, options)
  }
}

/// The operations a middleware saw.
private final class Seen: Sendable {
  private let names = Locked<[String]>([])
  var operations: [String] { names.withLock { $0 } }
  func note(_ name: String) { names.withLock { $0.append(name) } }
}

/// A flag set once.
private final class Flag: Sendable {
  private let value = Locked(false)
  var isSet: Bool { value.withLock { $0 } }
  func set() { value.withLock { $0 = true } }
}

/// Records the bodies it is handed and reads them whole, then answers 200 with `reply()`'s content type and body (by
/// default what httpbin's `/anything` and nginx's `/upload` answer).
private final class RecordingTransport: Transport {
  typealias Reply = @Sendable (HTTPRequest) -> (contentType: String, body: ResponseBody)
  private let state = Locked<([RequestBody?], [Int])>(([], []))
  private let statuses: Locked<[HTTPResponse.Status]>
  private let reply: Reply

  /// - Parameters:
  ///   - statuses: The statuses of the first answers, in order; 200 after them.
  ///   - reply: The content type and body of every answer.
  init(statuses: [HTTPResponse.Status] = [], reply: @escaping Reply = RecordingTransport.echo) {
    self.statuses = Locked(statuses)
    self.reply = reply
  }

  /// httpbin's echo for `/anything`, nginx's receipt for `/upload`.
  static let echo: Reply = { request in
    let json =
      request.path == "/upload"
      ? #"{"method":"PUT","received":0}"#
      : #"{"method":"POST","url":"u","args":{},"headers":{}}"#
    return ("application/json", ResponseBody(data: Data(json.utf8)))
  }

  var bodies: [RequestBody?] { state.withLock { $0.0 } }
  var received: [Int] { state.withLock { $0.1 } }

  func send(_ request: HTTPRequest, body: RequestBody?, options: TransferOptions) async throws -> TransportResponse {
    var count = 0
    if let body { count = try await Self.length(of: body) }
    state.withLock {
      $0.0.append(body)
      $0.1.append(count)
    }
    let (contentType, responseBody) = reply(request)
    let status = statuses.withLock { $0.isEmpty ? .ok : $0.removeFirst() }
    return TransportResponse(
      head: HTTPResponse(status: status, headerFields: [.contentType: contentType]),
      url: request.url,
      body: responseBody
    )
  }

  /// Sends the body through a mock, which reads it whole, and reports how many bytes that was.
  private static func length(of body: RequestBody) async throws -> Int {
    let mock = MockTransport(fallback: .init(status: .ok))
    _ = try await mock.send(HTTPRequest(method: .put, url: URL(string: "http://mock/")!), body: body, options: .init())
    return mock.recordedRequests.first?.body?.count ?? 0
  }
}
#endif
