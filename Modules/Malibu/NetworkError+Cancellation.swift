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

/// A `TransportError` with code `cancelled` stands for a cancellation (its `TransportError.isCancellation`), so
/// `isCancellationError(_:)` recognises it directly, as it does inside a `NetworkError`.
extension TransportError: CancellationIndicating {}

extension NetworkError {
  /// The error the facade hands to a promise for `error`: a `NetworkError` as it is; a `TransportError` or
  /// `DownloadError` wrapped with the code a user matches (`code(for:)`), kept as the underlying
  /// error; a `CancellationError` as `cancelled`; anything else as `transportFailed`.
  static func wrapping(_ error: any Error) -> NetworkError {
    switch error {
    case let error as NetworkError:
      return error
    case let error as TransportError:
      return NetworkError(code: code(for: error), message: error.message, underlyingError: error)
    case let error as DownloadError:
      return NetworkError(code: code(for: error), message: error.message, underlyingError: error)
    case is CancellationError:
      return .cancelled(underlyingError: error)
    default:
      if isCancellationError(error) { return .cancelled(underlyingError: error) }
      return NetworkError(code: .transportFailed, message: "the request failed: \(error)", underlyingError: error)
    }
  }

  /// The code a transport failure is matched by: `cancelled`, `timedOut` for any timeout, `insecureScheme` and
  /// `addressNotAllowed` for a refusal, `bodyTooLarge`, `shutDown` for a transport that takes no new request;
  /// `transportFailed` for the rest.
  static func code(for error: TransportError) -> Code {
    switch error.code {
    case .cancelled: .cancelled
    case .connectTimeout, .idleTimeout, .totalTimeout: .timedOut
    case .insecureScheme: .insecureScheme
    case .addressNotAllowed: .addressNotAllowed
    case .bodyTooLarge: .bodyTooLarge
    case .shutDown: .shutDown
    default: .transportFailed
    }
  }

  /// The code a download failure is matched by: the `DownloadError`'s own (a status that is not a file as
  /// `unacceptableStatusCode`); `transportFailed` for a code this facade does not know yet.
  static func code(for error: DownloadError) -> Code {
    switch error.code {
    case .unacceptableStatus: .unacceptableStatusCode
    case .missingDirectory: .missingDirectory
    case .rangeMismatch: .rangeMismatch
    case .lengthMismatch: .lengthMismatch
    case .destinationBusy: .destinationBusy
    case .bodyTooLarge: .bodyTooLarge
    case .untrustedFile: .untrustedFile
    case .fileSystem: .fileSystem
    default: .transportFailed
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
