public import Logging

/// Writes responses as their heads arrive; replace ``NetworkLogger/responseLogger`` to change how.
///
/// Called at ``LogLevel/info`` and ``LogLevel/verbose``; at verbose the response carries its redacted header
/// fields.
///
/// ```swift
/// struct StatusLogger: ResponseLogging {
///   func log(response: LoggedResponse, level: LogLevel) { print(response.status.code) }
/// }
/// Malibu.logger.responseLogger = StatusLogger()
/// ```
public protocol ResponseLogging: Sendable {
  /// Writes one response.
  /// - Parameters:
  ///   - response: The response, secrets redacted.
  ///   - level: The logger's level: ``LogLevel/info`` or ``LogLevel/verbose``.
  func log(response: LoggedResponse, level: LogLevel)
}

/// The default ``ResponseLogging``: one single-line swift-log record at `.debug`, `response received`, with the
/// method, redacted URL, status, duration and announced size as metadata, and at verbose the redacted header fields
/// (``LoggedResponse/metadata``).
public struct ResponseLogger: ResponseLogging {
  /// Where the records go.
  public let logger: Logger

  /// Creates the logger.
  /// - Parameter logger: The swift-log logger to write to; by default one labelled `malibu`.
  public init(logger: Logger = Logger(label: "malibu")) {
    self.logger = logger
  }

  /// Writes the response as one record.
  /// - Parameters:
  ///   - response: The redacted response.
  ///   - level: The logger's level.
  public func log(response: LoggedResponse, level: LogLevel) {
    guard level >= .info else { return }
    logger.debug("response received", metadata: response.metadata)
  }
}
