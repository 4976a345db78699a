import Foundation
import HTTPTypes
import Logging
import MalibuLogging
import MalibuTransport
import Testing

enum Fixture {
  static let url = "https://example.com/boards?type=1&token=<redacted>"
  static let bodyText = #"{"name":"Balsa","password":"hunter2"}"#

  static var request: HTTPRequest {
    var request = HTTPRequest(
      method: .post,
      scheme: "https",
      authority: "example.com",
      path: "/boards?type=1&token=abc"
    )
    request.headerFields = [
      .accept: "application/json", .authorization: "Bearer abc", .contentType: "application/json",
    ]
    return request
  }

  static var body: RequestBody { .data(Data(bodyText.utf8)) }

  static var response: HTTPResponse {
    HTTPResponse(status: .ok, headerFields: [.contentType: "text/plain", .setCookie: "session=s3cr3t"])
  }

  static let failure = TransportError(code: .connectionRefused, message: "nothing listens on 127.0.0.1:1")

  static let verboseRequest = """
    --> POST \(url)
        Accept: application/json
        Authorization: <redacted>
        Content-Type: application/json
        body: 37 bytes, application/json
        {"name":"Balsa","password":"<redacted>"}
    """
}

/// Sends the fixture request through a `LoggingMiddleware` at `level` and returns what was logged.
func run(
  _ outcome: StubTransport.Outcome,
  level: LogLevel
) async -> (records: [CapturedRecord], result: Result<Data, any Error>) {
  let capture = LogCapture()
  let logger = NetworkLogger(level: level, logger: capture.makeLogger())
  let transport = StubTransport(outcome: outcome).with(middleware: [
    LoggingMiddleware(logger: logger, clock: SteppingClock())
  ])
  do {
    let response = try await transport.send(Fixture.request, body: Fixture.body, options: TransferOptions())
    return (capture.all, .success(try await response.body.collect(upTo: 1 << 20)))
  } catch {
    return (capture.all, .failure(error))
  }
}

@Suite("LoggingMiddleware")
struct LoggingMiddlewareTests {
  static let successLines: [(LogLevel, [String])] = [
    (.none, []),
    (.error, []),
    (.info, ["--> POST \(Fixture.url)", "<-- 200 OK POST \(Fixture.url) (12 ms, 11 bytes)"]),
    (
      .verbose,
      [
        Fixture.verboseRequest,
        """
        <-- 200 OK POST \(Fixture.url) (12 ms, 11 bytes)
            Content-Type: text/plain
            Set-Cookie: <redacted>
        """,
      ]
    ),
  ]

  @Test("a successful request at each level", arguments: successLines)
  func success(level: LogLevel, expected: [String]) async throws {
    let (records, result) = await run(
      .respond(Fixture.response, Data("hello world".utf8), announced: true),
      level: level
    )
    #expect(records.map(\.message) == expected)
    #expect(records.allSatisfy { $0.level == .info })
    #expect(try result.get() == Data("hello world".utf8))
  }

  static let failureLine =
    "<-- failed POST \(Fixture.url) (12 ms): TransportError.connectionRefused: nothing listens on 127.0.0.1:1"

  static let failureLines: [(LogLevel, [String])] = [
    (.none, []),
    (.error, [failureLine]),
    (.info, ["--> POST \(Fixture.url)", failureLine]),
    (.verbose, [Fixture.verboseRequest, failureLine]),
  ]

  @Test("a request failing with a TransportError at each level", arguments: failureLines)
  func failure(level: LogLevel, expected: [String]) async throws {
    let (records, result) = await run(.fail(Fixture.failure), level: level)
    #expect(records.map(\.message) == expected)
    #expect(records.last?.level == (level == .none ? nil : .error))
    #expect(throws: TransportError.self) { try result.get() }
    let error = try #require(result.failureValue as? TransportError)
    #expect(error.code == .connectionRefused)
  }

  /// Only at level `none` may a chain leave the middleware out; the level is read when asked, not when created.
  @Test func passesThroughOnlyAtLevelNone() {
    let logger = NetworkLogger(level: .none)
    let middleware = LoggingMiddleware(logger: logger)
    #expect(middleware.passesThrough(Fixture.request))
    for level in [LogLevel.error, .info, .verbose] {
      logger.level = level
      #expect(!middleware.passesThrough(Fixture.request))
    }
  }

  @Test func cancellationIsLoggedAtInfoNotAsAFailure() async {
    let (records, _) = await run(.fail(TransportError(code: .cancelled, message: "cancelled")), level: .error)
    #expect(records == [CapturedRecord(level: .info, message: "<-- cancelled POST \(Fixture.url) (12 ms)")])
  }

  @Test func secretsQuotedByAnErrorAreScrubbed() async {
    let capture = LogCapture()
    let logger = NetworkLogger(level: .error, logger: capture.makeLogger())
    var request = HTTPRequest(
      method: .get,
      scheme: "https",
      authority: "ann:pa55word@example.com",
      path: "/me?access_token=tok%2B123"
    )
    request.headerFields[.authorization] = "Bearer eyJhbGci"
    let message = "GET https://ann:pa55word@example.com/me?access_token=tok%2B123 failed (tok+123, eyJhbGci)"
    let middleware = LoggingMiddleware(logger: logger, clock: SteppingClock())
    _ = try? await middleware.intercept(request, body: nil, options: TransferOptions()) { _, _, _ in
      throw TransportError(code: .tls, message: message)
    }
    #expect(
      capture.messages == [
        "<-- failed GET https://<redacted>@example.com/me?access_token=<redacted> (12 ms): TransportError.tls: "
          + "GET https://<redacted>@example.com/me?access_token=<redacted> failed (<redacted>, <redacted>)"
      ]
    )
  }

  @Test func streamedBodyIsPassedOnUntouchedAndItsSizeIsNotGuessed() async throws {
    let data = Data(repeating: 7, count: 100_000)
    let (records, result) = await run(.respond(Fixture.response, data, announced: false), level: .info)
    #expect(records.map(\.message).last == "<-- 200 OK POST \(Fixture.url) (12 ms)")
    #expect(try result.get() == data)
  }

  @Test func contentLengthIsUsedWhenTheBodyDoesNotAnnounceALength() async throws {
    var head = Fixture.response
    head.headerFields[.contentLength] = "5"
    let (records, _) = await run(.respond(head, Data("hello".utf8), announced: false), level: .info)
    #expect(records.map(\.message).last == "<-- 200 OK POST \(Fixture.url) (12 ms, 5 bytes)")
  }

  @Test func streamedRequestBodyIsSummarizedNotRead() async throws {
    let capture = LogCapture()
    let logger = NetworkLogger(level: .verbose, logger: capture.makeLogger())
    let middleware = LoggingMiddleware(logger: logger, clock: SteppingClock())
    var request = HTTPRequest(method: .put, scheme: "http", authority: "127.0.0.1:8080", path: "/upload")
    request.headerFields[.contentType] = "application/octet-stream"
    let body = RequestBody.stream(AsyncStream<Data> { $0.finish() }, length: nil)
    _ = try await middleware.intercept(request, body: body, options: TransferOptions()) { _, _, _ in
      TransportResponse(head: HTTPResponse(status: .noContent), url: nil, body: .empty)
    }
    #expect(
      capture.messages == [
        """
        --> PUT http://127.0.0.1:8080/upload
            Content-Type: application/octet-stream
            body: unknown length, application/octet-stream
        """,
        "<-- 204 No Content PUT http://127.0.0.1:8080/upload (12 ms, 0 bytes)",
      ]
    )
  }

  @Test func levelChangesApplyToTheNextRequest() async throws {
    let capture = LogCapture()
    let logger = NetworkLogger(logger: capture.makeLogger())
    let transport = StubTransport(outcome: .respond(Fixture.response, Data(), announced: true))
      .with(middleware: [LoggingMiddleware(logger: logger, clock: SteppingClock())])
    _ = try await transport.send(Fixture.request, body: nil, options: TransferOptions())
    #expect(capture.messages.isEmpty)
    logger.level = .info
    _ = try await transport.send(Fixture.request, body: nil, options: TransferOptions())
    #expect(capture.messages.count == 2)
  }

  @Test func concurrentRequestsEachLogOneRecordPerEvent() async throws {
    let capture = LogCapture()
    let logger = NetworkLogger(level: .verbose, logger: capture.makeLogger())
    let ok = StubTransport(outcome: .respond(Fixture.response, Data("ok".utf8), announced: true))
      .with(middleware: [LoggingMiddleware(logger: logger)])
    let failing = StubTransport(outcome: .fail(Fixture.failure)).with(middleware: [LoggingMiddleware(logger: logger)])
    await withTaskGroup(of: Void.self) { group in
      for index in 0..<100 {
        group.addTask {
          let transport: any Transport = index.isMultiple(of: 2) ? ok : failing
          _ = try? await transport.send(Fixture.request, body: Fixture.body, options: TransferOptions())
        }
        group.addTask {
          // Settings may change while requests run; each request reads them once.
          logger.redactedParameterKeys = Redactor.defaultParameterKeys
          logger.errorLogger = ErrorLogger(logger: capture.makeLogger())
        }
      }
    }
    let records = capture.all
    #expect(records.count == 200)
    #expect(records.filter { $0.message.hasPrefix("--> POST") }.count == 100)
    #expect(records.filter { $0.message.hasPrefix("<-- 200 OK") }.count == 50)
    #expect(records.filter { $0.level == .error }.count == 50)
    #expect(records.allSatisfy { !$0.message.contains("hunter2") && !$0.message.contains("Bearer") })
  }
}

extension Result {
  var failureValue: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }
}
