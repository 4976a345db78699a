/// How `surf` ends: its exit status, as HTTPie's where HTTPie has one.
///
/// | Status | When |
/// |---|---|
/// | 0 | the request was sent and answered (any status, unless `--check-status`) |
/// | 1 | any other failure: refused connection, DNS, TLS, a bad argument's value, a file that cannot be read |
/// | 2 | a timeout (connect, idle or total) |
/// | 3, 4, 5 | with `--check-status`: a 3xx (redirects not followed), 4xx or 5xx response |
/// | 6 | more redirects than `--max-redirects` |
/// | 7 | `--store-if-unreachable`: the host could not be reached; the request was stored for `surf replay` |
/// | 64 | the command line does not parse (swift-argument-parser's usage error) |
/// | 130 | interrupted (Ctrl-C) |
public struct SurfExitStatus: Hashable, Sendable, CustomStringConvertible {
  /// The process exit status.
  public let rawValue: Int32

  /// Creates a status.
  /// - Parameter rawValue: The process exit status.
  public init(_ rawValue: Int32) { self.rawValue = rawValue }

  /// Success.
  public static let success = SurfExitStatus(0)
  /// Any failure without a status of its own.
  public static let error = SurfExitStatus(1)
  /// A timeout.
  public static let timeout = SurfExitStatus(2)
  /// A 3xx response under `--check-status`.
  public static let redirection = SurfExitStatus(3)
  /// A 4xx response under `--check-status`.
  public static let clientError = SurfExitStatus(4)
  /// A 5xx response under `--check-status`.
  public static let serverError = SurfExitStatus(5)
  /// Too many redirects.
  public static let tooManyRedirects = SurfExitStatus(6)
  /// Stored offline: the host could not be reached and the request waits for `surf replay`.
  public static let storedOffline = SurfExitStatus(7)
  /// Interrupted by SIGINT.
  public static let interrupted = SurfExitStatus(130)

  /// The status `--check-status` gives a response status code: 3, 4 or 5 for 3xx, 4xx and 5xx, else success.
  /// - Parameter statusCode: The response's status code.
  /// - Returns: The exit status.
  public static func checking(_ statusCode: Int) -> SurfExitStatus {
    switch statusCode {
    case 300..<400: return .redirection
    case 400..<500: return .clientError
    case 500..<600: return .serverError
    default: return .success
    }
  }

  /// The number.
  public var description: String { "\(rawValue)" }
}

/// A failure of `surf`: what to print (one line, never a secret) and the exit status.
public struct SurfError: Error, Sendable, CustomStringConvertible {
  /// The exit status the process ends with.
  public var status: SurfExitStatus
  /// One line saying what went wrong.
  public var message: String
  /// The error that caused it, if any (a `NetworkError`, a `TransportError`, a file-system error).
  public var underlyingError: (any Error)?

  /// Creates an error.
  /// - Parameters:
  ///   - status: The exit status.
  ///   - message: One line saying what went wrong.
  ///   - underlyingError: The cause.
  public init(status: SurfExitStatus, message: String, underlyingError: (any Error)? = nil) {
    self.status = status
    self.message = message
    self.underlyingError = underlyingError
  }

  /// A mistake in the command line's items or options (exit status 1, as HTTPie's).
  /// - Parameter message: What is wrong.
  /// - Returns: The error.
  public static func usage(_ message: String) -> SurfError {
    SurfError(status: .error, message: message)
  }

  /// The message.
  public var description: String { message }
}
