/// An error that can say it stands for a cancellation.
///
/// Conform your own error types so promises treat them like `CancellationError`: ``FailurePolicy/notCancelled``
/// skips them and ``isCancellationError(_:)`` recognises them. A transport error, for instance, answers `true`
/// when its code is `.cancelled`.
///
/// ```swift
/// struct TransferError: Error, CancellationIndicating {
///   var aborted: Bool
///   var isCancellation: Bool { aborted }
/// }
/// ```
public protocol CancellationIndicating: Error {
  /// Whether this error reports a cancellation rather than a failure.
  var isCancellation: Bool { get }
}

/// Tells whether `error` reports a cancellation: a `CancellationError`, or a ``CancellationIndicating`` error whose
/// ``CancellationIndicating/isCancellation`` is `true`.
///
/// ```swift
/// promise.fail(policy: .allErrors) { error in
///   if isCancellationError(error) { return }
///   report(error)
/// }
/// ```
/// - Parameter error: Any error.
/// - Returns: `true` when the error stands for a cancellation.
public func isCancellationError(_ error: any Error) -> Bool {
  if error is CancellationError { return true }
  if let indicating = error as? any CancellationIndicating { return indicating.isCancellation }
  return false
}
