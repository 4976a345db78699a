import Foundation
import HTTPTypes
import Logging
import MalibuLogging
import MalibuTestSupport
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

  /// The metadata of the fixture's `request sent` record at verbose.
  static let verboseRequest: Logger.Metadata = [
    LogMetadataKey.method: "POST",
    LogMetadataKey.url: .string(url),
    LogMetadataKey.requestHeaders: [
      "Accept": "application/json", "Authorization": "<redacted>", "Content-Type": "application/json",
    ],
    LogMetadataKey.requestBodySize: .stringConvertible(UInt64(37)),
    LogMetadataKey.requestContentType: "application/json",
    LogMetadataKey.requestBodyPreview: #"{"name":"Balsa","password":"<redacted>"}"#,
  ]

  static let summary: Logger.Metadata = [LogMetadataKey.method: "POST", LogMetadataKey.url: .string(url)]
}

/// Metadata compared as text: `.stringConvertible(12.0)` and `.string("12.0")` print alike, and a dictionary value
/// prints as `[name: value, ...]` sorted by name.
func text(_ metadata: Logger.Metadata) -> [String: String] {
  metadata.mapValues { value in
    guard case .dictionary(let fields) = value else { return "\(value)" }
    return "[" + fields.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "]"
  }
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
  static let response: Logger.Metadata = Fixture.summary.merging([
    LogMetadataKey.status: "200", LogMetadataKey.durationMilliseconds: "12.0",
    LogMetadataKey.responseBodySize: "11", LogMetadataKey.resendCount: "0",
  ]) { $1 }

  static let verboseResponse: Logger.Metadata = response.merging([
    LogMetadataKey.responseHeaders: ["Content-Type": "text/plain", "Set-Cookie": "<redacted>"]
  ]) { $1 }

  static let successRecords: [(LogLevel, [CapturedRecord])] = [
    (.none, []),
    (.error, []),
    (
      .info,
      [
        CapturedRecord(level: .trace, message: "request sent", metadata: Fixture.summary),
        CapturedRecord(level: .debug, message: "response received", metadata: response),
      ]
    ),
    (
      .verbose,
      [
        CapturedRecord(level: .trace, message: "request sent", metadata: Fixture.verboseRequest),
        CapturedRecord(level: .debug, message: "response received", metadata: verboseResponse),
      ]
    ),
  ]

  @Test("a successful request at each level: single-line records at trace and debug", arguments: successRecords)
  func success(level: LogLevel, expected: [CapturedRecord]) async throws {
    let (records, result) = await run(
      .respond(Fixture.response, Data("hello world".utf8), announced: true),
      level: level
    )
    #expect(records.map(\.level) == expected.map(\.level))
    #expect(records.map(\.message) == expected.map(\.message))
    #expect(records.map { text($0.metadata) } == expected.map { text($0.metadata) })
    #expect(records.allSatisfy { !$0.fullText.contains("\n") })
    #expect(records.allSatisfy { !$0.fullText.contains("hunter2") && !$0.fullText.contains("abc") })
    #expect(try result.get() == Data("hello world".utf8))
  }

  static let failureMetadata: Logger.Metadata = Fixture.summary.merging([
    LogMetadataKey.durationMilliseconds: "12.0", LogMetadataKey.errorType: "TransportError",
    LogMetadataKey.errorCode: "connectionRefused", LogMetadataKey.resendCount: "0",
  ]) { $1 }

  @Test("a request failing with a TransportError at each level", arguments: LogLevel.allCases)
  func failure(level: LogLevel) async throws {
    let (records, result) = await run(.fail(Fixture.failure), level: level)
    let failed = records.filter { $0.message == "request failed" }
    #expect(failed.count == (level == .none ? 0 : 1))
    #expect(records.count == [LogLevel.none: 0, .error: 1, .info: 2, .verbose: 2][level])
    if let record = failed.first {
      #expect(record.level == .debug)
      for (key, value) in text(Self.failureMetadata) { #expect(record[key] == value, "\(key)") }
      #expect(record[LogMetadataKey.errorMessage]?.contains("127.0.0.1:1") == true)
      #expect(!record.fullText.contains("\n"))
    }
    if level >= .info { #expect(records.first?.message == "request sent") }
    let error = try #require(result.failureValue as? TransportError)
    #expect(error.code == .connectionRefused)
  }

  @Test func cancellationIsLoggedAtTraceNotAsAFailure() async {
    let (records, _) = await run(.fail(TransportError(code: .cancelled, message: "cancelled")), level: .error)
    #expect(records.map(\.level) == [.trace])
    #expect(records.map(\.message) == ["request cancelled"])
    let expected = Fixture.summary.merging(["http.duration_ms": "12.0", "http.request.resend_count": "0"]) { $1 }
    #expect(records.map { text($0.metadata) } == [text(expected)])
  }

  @Test func secretsQuotedByAnErrorAreScrubbed() async throws {
    let capture = LogCapture()
    let logger = NetworkLogger(level: .error, logger: capture.makeLogger())
    var request = HTTPRequest(
      method: .get,
      scheme: "https",
      authority: "ann:pa55word@example.com",
      path: "/me?access_token=tok%2B123"
    )
    request.headerFields[.authorization] = "Bearer eyJhbGci"
    let message = "GET https://ann:pa55word@example.com/me?access_token=tok%2B123 failed\n(tok+123, eyJhbGci)"
    let middleware = LoggingMiddleware(logger: logger, clock: SteppingClock())
    _ = try? await middleware.intercept(request, body: nil, options: TransferOptions()) { _, _, _ in
      throw TransportError(code: .tls, message: message)
    }
    let record = try #require(capture.all.first)
    #expect(capture.all.count == 1)
    #expect(record[LogMetadataKey.url] == "https://<redacted>@example.com/me?access_token=<redacted>")
    #expect(record[LogMetadataKey.errorCode] == "tls")
    let description = try #require(record[LogMetadataKey.errorMessage])
    #expect(
      description.contains(
        #"GET https://<redacted>@example.com/me?access_token=<redacted> failed\n(<redacted>, <redacted>)"#
      )
    )
    for secret in ["pa55word", "tok%2B123", "tok+123", "eyJhbGci", "\n"] {
      #expect(!record.fullText.contains(secret), "\(secret)")
    }
  }

  @Test func streamedBodyIsPassedOnUntouchedAndItsSizeIsNotGuessed() async throws {
    let data = Data(repeating: 7, count: 100_000)
    let (records, result) = await run(.respond(Fixture.response, data, announced: false), level: .info)
    let response = try #require(records.last)
    #expect(response.message == "response received")
    #expect(response[LogMetadataKey.status] == "200")
    #expect(response[LogMetadataKey.responseBodySize] == nil)
    #expect(try result.get() == data)
  }

  /// Middleware below that sends the request again counts it in `TransferAttempts.current`; an inner logging
  /// middleware counts only what is below it.
  @Test(arguments: [0, 1, 3])
  func resendsCountedBelowAreLoggedOnTheFinalRecord(resends: Int) async throws {
    let capture = LogCapture()
    let logger = NetworkLogger(level: .info, logger: capture.makeLogger())
    let inner = LoggingMiddleware(logger: logger, clock: SteppingClock())
    let outer = LoggingMiddleware(logger: logger, clock: SteppingClock())
    #expect(TransferAttempts.current == nil)
    _ = try await outer.intercept(Fixture.request, body: nil, options: TransferOptions()) { request, body, options in
      for _ in 0..<resends { TransferAttempts.current?.recordResend() }
      return try await inner.intercept(request, body: body, options: options) { _, _, _ in
        TransportResponse(head: HTTPResponse(status: .noContent), url: nil, body: .empty)
      }
    }
    let received = capture.all.filter { $0.message == "response received" }
    #expect(received.map { $0[LogMetadataKey.resendCount] } == ["0", "\(resends)"])
    #expect(capture.all.filter { $0.message == "request sent" }.allSatisfy { $0[LogMetadataKey.resendCount] == nil })
    #expect(TransferAttempts.current == nil)
  }

  @Test func contentLengthIsUsedWhenTheBodyDoesNotAnnounceALength() async throws {
    var head = Fixture.response
    head.headerFields[.contentLength] = "5"
    let (records, _) = await run(.respond(head, Data("hello".utf8), announced: false), level: .info)
    #expect(records.last?[LogMetadataKey.responseBodySize] == "5")
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
      capture.all.map { text($0.metadata) } == [
        [
          LogMetadataKey.method: "PUT", LogMetadataKey.url: "http://127.0.0.1:8080/upload",
          LogMetadataKey.requestHeaders: "[Content-Type: application/octet-stream]",
          LogMetadataKey.requestContentType: "application/octet-stream",
        ],
        [
          LogMetadataKey.method: "PUT", LogMetadataKey.url: "http://127.0.0.1:8080/upload",
          LogMetadataKey.status: "204", LogMetadataKey.durationMilliseconds: "12.0", LogMetadataKey.resendCount: "0",
          LogMetadataKey.responseBodySize: "0",
        ],
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
    #expect(records.filter { $0.message == "request sent" && $0.level == .trace }.count == 100)
    #expect(records.filter { $0.message == "response received" && $0.level == .debug }.count == 50)
    #expect(records.filter { $0.message == "request failed" && $0.level == .debug }.count == 50)
    #expect(records.allSatisfy { !$0.fullText.contains("hunter2") && !$0.fullText.contains("Bearer") })
  }
}

extension Result {
  var failureValue: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }
}
