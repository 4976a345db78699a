public import Logging

/// Writes requests as they are sent; replace ``NetworkLogger/requestLogger`` to change how.
///
/// Called at ``LogLevel/info`` and ``LogLevel/verbose``; at verbose the request carries its redacted header
/// fields and body summary.
///
/// ```swift
/// struct PrintRequestLogger: RequestLogging {
///   func log(request: LoggedRequest, level: LogLevel) { print("→", request.summary) }
/// }
/// Malibu.logger.requestLogger = PrintRequestLogger()
/// ```
public protocol RequestLogging: Sendable {
  /// Writes one request.
  /// - Parameters:
  ///   - request: The request, secrets redacted.
  ///   - level: The logger's level: ``LogLevel/info`` or ``LogLevel/verbose``.
  func log(request: LoggedRequest, level: LogLevel)
}

/// The default ``RequestLogging``: one single-line swift-log record at `.trace`, `request sent`, with the method and
/// the redacted URL as metadata, and at verbose the redacted header fields and the body's size, type and preview
/// (``LoggedRequest/metadata``).
public struct RequestLogger: RequestLogging {
  /// Where the records go.
  public let logger: Logger

  /// Creates the logger.
  /// - Parameter logger: The swift-log logger to write to; by default one labelled `malibu`.
  public init(logger: Logger = Logger(label: "malibu")) {
    self.logger = logger
  }

  /// Writes the request as one record.
  /// - Parameters:
  ///   - request: The redacted request.
  ///   - level: The logger's level.
  public func log(request: LoggedRequest, level: LogLevel) {
    guard level >= .info else { return }
    logger.trace("request sent", metadata: request.metadata)
  }
}
