import MalibuCore
import MalibuPromises
import MalibuTransport

/// A `NetworkError` with code `cancelled`, or one whose underlying error is a cancellation, stands for a
/// cancellation, so `fail { }` (which skips cancellations unless asked for `.allErrors`) and `isCancellationError(_:)`
/// treat it like `CancellationError`: one question for every shape a cancellation comes in.
///
/// ```swift
/// do { try await networking.request(.fetchBoards).value } catch where isCancellationError(error) { return }
/// ```
extension NetworkError: CancellationIndicating {
  /// Whether this error reports a cancelled request: code `cancelled`, or an underlying error that is a
  /// cancellation (`CancellationError`, a `TransportError` with code `cancelled`, a cancelled `NetworkError`).
  public var isCancellation: Bool {
    code == .cancelled || underlyingError.map(isCancellationError) == true
  }
}

/// A `TransportError` with code `cancelled` stands for a cancellation (its ``TransportError/isCancellation``), so
/// `isCancellationError(_:)` recognises it directly, as it does inside a `NetworkError`.
extension TransportError: CancellationIndicating {}

extension NetworkError {
  /// The error the facade hands to a promise for `error`: a `NetworkError` as it is; a `TransportError` wrapped with
  /// code `cancelled` or `transportFailed` (kept as the underlying error); a `CancellationError` as `cancelled`;
  /// anything else as `transportFailed`.
  static func wrapping(_ error: any Error) -> NetworkError {
    switch error {
    case let error as NetworkError:
      return error
    case let error as TransportError:
      return NetworkError(
        code: error.code == .cancelled ? .cancelled : .transportFailed,
        message: error.message,
        underlyingError: error
      )
    case is CancellationError:
      return .cancelled(underlyingError: error)
    default:
      if isCancellationError(error) { return .cancelled(underlyingError: error) }
      return NetworkError(code: .transportFailed, message: "the request failed: \(error)", underlyingError: error)
    }
  }

  /// A cancelled request.
  static func cancelled(underlyingError: (any Error)? = nil) -> NetworkError {
    NetworkError(code: .cancelled, message: "the request was cancelled", underlyingError: underlyingError)
  }

  /// A request stopped by the networking's `middleware` gate with `error`.
  static func rejected(by error: any Error) -> NetworkError {
    if let error = error as? NetworkError { return error }
    if isCancellationError(error) { return .cancelled(underlyingError: error) }
    return NetworkError(
      code: .requestRejected,
      message: "the middleware rejected the request: \(error)",
      underlyingError: error
    )
  }
}
