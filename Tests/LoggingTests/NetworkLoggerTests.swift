import Foundation
import HTTPTypes
import Logging
import MalibuCore
import MalibuLogging
import MalibuTransport
import Synchronization
import Testing

/// Records what it is asked to log.
final class RecordingLoggers: ErrorLogging, RequestLogging, ResponseLogging {
  let events = Mutex<[String]>([])

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

  @Test func errorsOutsideTheTransportAreLoggedByTheFacadeEntryPoint() {
    let capture = LogCapture()
    let logger = NetworkLogger(level: .error, logger: capture.makeLogger())
    let error = NetworkError(code: .unacceptableStatusCode, message: "status 404 is not accepted")
    logger.log(error: error, request: Fixture.request)
    logger.log(error: error, request: nil, duration: .milliseconds(40))
    logger.log(request: Fixture.request)
    #expect(
      capture.all == [
        CapturedRecord(
          level: .error,
          message: "<-- failed POST \(Fixture.url): NetworkError.unacceptableStatusCode: status 404 is not accepted"
        ),
        CapturedRecord(
          level: .error,
          message: "<-- failed (40 ms): NetworkError.unacceptableStatusCode: status 404 is not accepted"
        ),
      ]
    )
    logger.level = .none
    logger.log(error: error, request: Fixture.request)
    #expect(capture.all.count == 2)
  }

  @Test func directRequestAndResponseLogging() {
    let capture = LogCapture()
    let logger = NetworkLogger(level: .verbose, logger: capture.makeLogger())
    logger.log(request: Fixture.request, body: Fixture.body)
    logger.log(response: Fixture.response, for: Fixture.request, duration: .microseconds(1_600), length: 1)
    #expect(
      capture.messages == [
        Fixture.verboseRequest,
        """
        <-- 200 OK POST \(Fixture.url) (2 ms, 1 byte)
            Content-Type: text/plain
            Set-Cookie: <redacted>
        """,
      ]
    )
  }

  @Test func redactionSettingsAreConfigurable() {
    let capture = LogCapture()
    let logger = NetworkLogger(level: .verbose, logger: capture.makeLogger())
    logger.redactedHeaderNames.insert("Accept")
    logger.redactedParameterKeys = ["type"]
    logger.log(request: Fixture.request)
    // Keys match header names as fragments too: "type" hides Content-Type; over-redacting is the safe side.
    #expect(
      capture.messages == [
        """
        --> POST https://example.com/boards?type=<redacted>&token=abc
            Accept: <redacted>
            Authorization: <redacted>
            Content-Type: <redacted>
        """
      ]
    )
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
