public import Logging

/// Writes errors; replace ``NetworkLogger/errorLogger`` to route them elsewhere.
///
/// Called for every level but ``LogLevel/none``, with the request already redacted.
///
/// ```swift
/// struct CrashReporterLogger: ErrorLogging {
///   func log(error: any Error, request: LoggedRequest?, duration: Duration?, level: LogLevel) {
///     CrashReporter.record(error, context: request?.summary)
///   }
/// }
/// Malibu.logger.errorLogger = CrashReporterLogger()
/// ```
public protocol ErrorLogging: Sendable {
  /// Writes one error.
  /// - Parameters:
  ///   - error: The error (a `TransportError`, a `NetworkError`, ...).
  ///   - request: The request it happened to, if known.
  ///   - duration: How long the request ran before it failed, when measured.
  ///   - level: The logger's level, never ``LogLevel/none``.
  func log(error: any Error, request: LoggedRequest?, duration: Duration?, level: LogLevel)
}

/// The default ``ErrorLogging``: one swift-log record at `.error`
/// (`<-- failed GET https://example.com/boards (12 ms): TransportError.connectionRefused: ...`), or at `.info`
/// for a cancellation (`<-- cancelled GET https://example.com/boards (3 ms)`).
public struct ErrorLogger: ErrorLogging {
  /// Where the records go.
  public let logger: Logger

  /// Creates the logger.
  /// - Parameter logger: The swift-log logger to write to; by default one labelled `malibu`.
  public init(logger: Logger = Logger(label: "malibu")) {
    self.logger = logger
  }

  /// Writes the error as one record.
  /// - Parameters:
  ///   - error: The error.
  ///   - request: The request, if known.
  ///   - duration: The time until the failure, if measured.
  ///   - level: The logger's level.
  public func log(error: any Error, request: LoggedRequest?, duration: Duration?, level: LogLevel) {
    guard level != .none else { return }
    let cancelled = LogFormat.isCancellation(error)
    let message = LogFormat.errorLine(error, request: request, duration: duration, cancelled: cancelled)
    logger.log(level: cancelled ? .info : .error, "\(message)")
  }
}
