/// How much Malibu writes about its requests: the seed's switch, kept on top of swift-log.
///
/// Each record is one line at swift-log `.debug` or `.trace` with its details in metadata (``LogMetadataKey``).
/// The level decides which records are written at all; the `Logger`'s own `logLevel` filters what is left (a
/// handler at `.info`, swift-log's default, shows none of them).
///
/// | Level | Records written | swift-log level | Metadata |
/// |-------|-----------------|-----------------|----------|
/// | ``none`` | nothing | – | – |
/// | ``error`` | `request failed` | `.debug` | method, URL, duration, error type, code and scrubbed message |
/// | | `request cancelled` | `.trace` | method, URL, duration |
/// | ``info`` | the above, plus `request sent` | `.trace` | method, URL |
/// | | `response received` | `.debug` | method, URL, status, duration, announced size |
/// | ``verbose`` | the same records, with more metadata | same | + header fields, request body size, type and preview |
///
/// Every value is redacted before it is written (`Redactor`).
///
/// ```swift
/// Malibu.logger.level = .verbose
/// ```
public enum LogLevel: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
  /// Logging is disabled: nothing is written.
  case none = 0
  /// Only errors that occur while a request runs, and failed checks and conversions of its response.
  case error = 1
  /// Errors, plus the method and URL of each request and the status, duration and size of each response.
  case info = 2
  /// Everything ``info`` writes, plus the request's headers and parameters (query and body summary) and the
  /// response's headers.
  case verbose = 3

  /// Orders levels from ``none`` to ``verbose``.
  /// - Parameters:
  ///   - lhs: A level.
  ///   - rhs: Another level.
  /// - Returns: `true` when `lhs` writes less than `rhs`.
  public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
    lhs.rawValue < rhs.rawValue
  }

  /// The level's name: `none`, `error`, `info` or `verbose`.
  public var description: String {
    switch self {
    case .none: return "none"
    case .error: return "error"
    case .info: return "info"
    case .verbose: return "verbose"
    }
  }
}
