import MalibuCore

extension Error {
  /// Whether this error stands for a cancellation, whatever its shape: a `CancellationError`, a `NetworkError` or
  /// ``TransportError`` with code `cancelled`, or a `NetworkError`/``TransportError`` whose underlying error is one.
  ///
  /// ```swift
  /// do { try await networking.request(.fetchBoards).value } catch where error.representsCancellation { return }
  /// ```
  public var representsCancellation: Bool {
    switch self {
    case is CancellationError: return true
    case let error as NetworkError:
      return error.code == .cancelled || error.underlyingError?.representsCancellation == true
    case let error as TransportError:
      return error.code == .cancelled || error.underlyingError?.representsCancellation == true
    default: return false
    }
  }
}
