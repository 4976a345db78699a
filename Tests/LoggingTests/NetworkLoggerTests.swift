import Foundation
import HTTPTypes
import Logging
@_spi(Malibu) import MalibuCore
import MalibuLogging
import MalibuTestSupport
import MalibuTransport
import Synchronization
import Testing

/// Records what it is asked to log.
final class RecordingLoggers: ErrorLogging, RequestLogging, ResponseLogging {
  let events = Locked<[String]>([])

  func log(error: any Error, request: LoggedRequest?, duration: Duration?, level: LogLevel) {
    events.withLock { $0.append("error \(level) \(request?.summary ?? "-")") }
  }

  func log(request: LoggedRequest, level: LogLevel) {
    events.withLock { $0.append("request \(level) \(request.summary) \(request.headerFields.count)") }
  }

  func log(response: LoggedResponse, level: LogLevel) {
    events.withLock { $0.append("response \(level) \(response.status.code) \(response.duration)") }
  }
}

@Suite("NetworkLogger")
struct NetworkLoggerTests {
  @Test func sharedLoggerIsQuietAndSettableThroughALet() {
    let logger = NetworkLogger.shared
    #expect(logger.level == .none)
    #expect(logger.redactedHeaderNames == Redactor.defaultHeaderNames)
    #expect(logger.redactedParameterKeys == Redactor.defaultParameterKeys)
  }

  @Test func levelsAreOrdered() {
    #expect(LogLevel.allCases == [.none, .error, .info, .verbose])
    #expect(LogLevel.none < .error && LogLevel.error < .info && LogLevel.info < .verbose)
    #expect(LogLevel.allCases.map(\.description) == ["none", "error", "info", "verbose"])
  }

  @Test func customLoggersReplaceTheDefaults() async throws {
    let capture = LogCapture()
    let custom = RecordingLoggers()
    let logger = NetworkLogger(level: .info, logger: capture.makeLogger())
    logger.errorLogger = custom
    logger.requestLogger = custom
    logger.responseLogger = custom
    let middleware = LoggingMiddleware(logger: logger, clock: SteppingClock(step: .milliseconds(5)))
    _ = try await middleware.intercept(Fixture.request, body: nil, options: TransferOptions()) { _, _, _ in
      TransportResponse(head: HTTPResponse(status: .created), url: nil, body: .empty)
    }
    await #expect(throws: TransportError.self) {
      try await middleware.intercept(Fixture.request, body: nil, options: TransferOptions()) { _, _, _ in
        throw Fixture.failure
      }
    }
    #expect(
      custom.events.withLock { $0 } == [
        "request info POST \(Fixture.url) 0",
        "response info 201 0.005 seconds",
        "request info POST \(Fixture.url) 0",
        "error info POST \(Fixture.url)",
      ]
    )
    #expect(capture.all.isEmpty)
  }

  @Test func errorsOutsideTheTransportAreLoggedByTheFacadeEntryPoint() throws {
    let capture = LogCapture()
    let logger = NetworkLogger(level: .error, logger: capture.makeLogger())
    let error = NetworkError(code: .unacceptableStatusCode, message: "status 404 is not accepted")
    logger.log(error: error, request: Fixture.request)
    logger.log(error: error, request: nil, duration: .milliseconds(40))
    logger.log(request: Fixture.request)
    #expect(capture.all.map(\.level) == [.debug, .debug])
    #expect(capture.all.map(\.message) == ["request failed", "request failed"])
    let first = try #require(capture.all.first)
    #expect(first[LogMetadataKey.method] == "POST")
    #expect(first[LogMetadataKey.url] == Fixture.url)
    #expect(first[LogMetadataKey.errorType] == "NetworkError")
    #expect(first[LogMetadataKey.errorCode] == "unacceptableStatusCode")
    #expect(first[LogMetadataKey.errorMessage]?.contains("404") == true)
    let second = try #require(capture.all.last)
    #expect(second[LogMetadataKey.url] == nil)
    #expect(second[LogMetadataKey.durationMilliseconds] == "40.0")
    logger.level = .none
    logger.log(error: error, request: Fixture.request)
    #expect(capture.all.count == 2)
  }

  @Test func aWrappedTransportErrorNamesBothCodes() throws {
    let capture = LogCapture()
    let logger = NetworkLogger(level: .error, logger: capture.makeLogger())
    let error = NetworkError(code: .transportFailed, message: "the transfer failed", underlyingError: Fixture.failure)
    logger.log(error: error, request: Fixture.request)
    let record = try #require(capture.all.first)
    #expect(record[LogMetadataKey.errorCode] == "transportFailed")
    #expect(record[LogMetadataKey.underlyingErrorCode] == "connectionRefused")
  }

  /// Any error struct with a `code` (Malibu's `StorageError`, say, from a module this one does not import) has it
  /// logged; an error without one has none.
  @Test func theCodeOfAnyErrorWithOneIsLogged() {
    struct CodedError: Error {
      struct Code: CustomStringConvertible { var description: String { "ioFailed" } }
      let code = Code()
    }
    struct PlainError: Error {}
    let capture = LogCapture()
    let logger = NetworkLogger(level: .error, logger: capture.makeLogger())
    logger.log(error: CodedError())
    logger.log(error: PlainError())
    #expect(capture.all.map { $0[LogMetadataKey.errorCode] } == ["ioFailed", nil])
    #expect(capture.all.map { $0[LogMetadataKey.errorType] } == ["CodedError", "PlainError"])
  }

  @Test func directRequestAndResponseLogging() {
    let capture = LogCapture()
    let logger = NetworkLogger(level: .verbose, logger: capture.makeLogger())
    logger.log(request: Fixture.request, body: Fixture.body)
    logger.log(response: Fixture.response, for: Fixture.request, duration: .microseconds(1_600), length: 1)
    #expect(capture.all.map(\.level) == [.trace, .debug])
    #expect(
      capture.all.map { text($0.metadata) } == [
        text(Fixture.verboseRequest),
        text(
          Fixture.summary.merging([
            LogMetadataKey.status: "200", LogMetadataKey.durationMilliseconds: "1.6",
            LogMetadataKey.responseBodySize: "1",
            LogMetadataKey.responseHeaders: ["Content-Type": "text/plain", "Set-Cookie": "<redacted>"],
          ]) { $1 }
        ),
      ]
    )
  }

  @Test func aMultiLineBodyPreviewStaysOnOneLine() throws {
    let capture = LogCapture()
    let logger = NetworkLogger(level: .verbose, logger: capture.makeLogger())
    var request = HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1", path: "/notes")
    request.headerFields[.contentType] = "text/plain"
    logger.log(request: request, body: .data(Data("first line\nsecond line\r\nthird".utf8)))
    let record = try #require(capture.all.first)
    #expect(record[LogMetadataKey.requestBodyPreview] == #"first line\nsecond line\r\nthird"#)
    #expect(!record.fullText.contains("\n"))
  }

  @Test func redactionSettingsAreConfigurable() {
    let capture = LogCapture()
    let logger = NetworkLogger(level: .verbose, logger: capture.makeLogger())
    logger.redactedHeaderNames.insert("Accept")
    logger.redactedParameterKeys = ["type"]
    logger.log(request: Fixture.request)
    // Keys match header names as fragments too: "type" hides Content-Type; over-redacting is the safe side.
    #expect(
      capture.all.map { text($0.metadata) } == [
        [
          LogMetadataKey.method: "POST", LogMetadataKey.url: "https://example.com/boards?type=<redacted>&token=abc",
          LogMetadataKey.requestHeaders: "[Accept: <redacted>, Authorization: <redacted>, Content-Type: <redacted>]",
        ]
      ]
    )
  }

  /// `LogLevel.none` writes nothing through any entry point, even to a `Logger` that takes every level.
  @Test func levelNoneWritesNothing() async throws {
    let capture = LogCapture()
    let logger = NetworkLogger(level: .none, logger: capture.makeLogger())
    logger.log(request: Fixture.request, body: Fixture.body)
    logger.log(response: Fixture.response, for: Fixture.request, duration: .milliseconds(1))
    logger.log(error: Fixture.failure, request: Fixture.request)
    let middleware = LoggingMiddleware(logger: logger)
    _ = try await middleware.intercept(Fixture.request, body: nil, options: TransferOptions()) { _, _, _ in
      TransportResponse(head: HTTPResponse(status: .ok), url: nil, body: .empty)
    }
    _ = try? await middleware.intercept(Fixture.request, body: nil, options: TransferOptions()) { _, _, _ in
      throw Fixture.failure
    }
    #expect(capture.all.isEmpty)
    logger.level = .error
    logger.log(error: Fixture.failure, request: Fixture.request)
    #expect(capture.all.count == 1, "the same logger writes once its level allows")
  }

  /// Setting `logger` points the default loggers at the application's `Logger`, keeps custom ones, and
  /// `writing(to:)` makes a copy that leaves the original alone.
  @Test func theApplicationsLoggerReceivesTheRecords() throws {
    let library = LogCapture()
    let application = LogCapture()
    let custom = RecordingLoggers()
    let logger = NetworkLogger(level: .info, logger: library.makeLogger())
    logger.requestLogger = custom
    var appLogger = application.makeLogger(label: "com.example.app")
    appLogger[metadataKey: "request-id"] = "42"
    logger.logger = appLogger
    #expect(logger.logger.label == "com.example.app")
    logger.log(request: Fixture.request)
    logger.log(response: Fixture.response, for: Fixture.request, duration: .milliseconds(3))
    #expect(library.all.isEmpty)
    #expect(custom.events.withLock { $0.count } == 1)
    let record = try #require(application.all.first)
    #expect(application.all.count == 1)
    #expect(record.label == "com.example.app")
    #expect(record[LogMetadataKey.status] == "200")
    #expect(record["request-id"] == "42")

    let other = LogCapture()
    let copy = logger.writing(to: other.makeLogger())
    copy.log(error: Fixture.failure, request: Fixture.request)
    #expect(other.all.map(\.message) == ["request failed"])
    #expect(application.all.count == 1)
    #expect(copy.level == .info && copy.requestLogger is RecordingLoggers)
    copy.level = .none
    #expect(logger.level == .info)
  }

  @Test func settingsCanChangeWhileOthersLog() async {
    let capture = LogCapture()
    let logger = NetworkLogger(level: .error, logger: capture.makeLogger())
    await withTaskGroup(of: Void.self) { group in
      for index in 0..<200 {
        group.addTask {
          if index.isMultiple(of: 4) {
            logger.level = .error
            logger.redactor = Redactor()
          } else {
            logger.log(error: Fixture.failure, request: Fixture.request)
          }
        }
      }
    }
    #expect(capture.all.count == 150)
  }
}
