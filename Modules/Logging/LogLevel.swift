/// How much Malibu writes about its requests.
///
/// | Level | Errors | One line per request and response | Headers, body summaries |
/// |-------|--------|-----------------------------------|-------------------------|
/// | ``none`` | – | – | – |
/// | ``error`` | ✓ | – | – |
/// | ``info`` | ✓ | ✓ | – |
/// | ``verbose`` | ✓ | ✓ | ✓ |
///
/// ```swift
/// Malibu.logger.level = .verbose
/// ```
public enum LogLevel: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
  /// Logging is disabled: nothing is written.
  case none = 0
  /// Only errors that occur while a request runs.
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
