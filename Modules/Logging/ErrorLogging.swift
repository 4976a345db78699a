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

/// The default ``ErrorLogging``: one single-line swift-log record at `.debug`, `request failed`, with the
/// request's method and URL, the duration and the error's type, code and scrubbed description as metadata
/// (``LogMetadataKey``); a cancellation is written at `.trace` as `request cancelled`, without the description.
///
/// Debug, not error: the error also reaches the caller, whose code decides whether it is one (swift-log's guidance
/// for libraries).
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
    if LogFormat.isCancellation(error) {
      var metadata = request?.summaryMetadata ?? [:]
      if let duration {
        metadata[LogMetadataKey.durationMilliseconds] = .stringConvertible(LogFormat.milliseconds(of: duration))
      }
      logger.trace("request cancelled", metadata: metadata)
    } else {
      logger.debug("request failed", metadata: LogFormat.errorMetadata(error, request: request, duration: duration))
    }
  }
}
