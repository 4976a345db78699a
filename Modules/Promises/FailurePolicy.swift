/// Which errors a ``Promise/fail(on:policy:_:)`` handler is called for.
public enum FailurePolicy: Sendable {
  /// Every error except cancellation (see ``isCancellationError(_:)``). The default: a cancelled request is
  /// usually not a failure worth reporting.
  case notCancelled
  /// Every error, cancellation included.
  case allErrors
}
