import Synchronization

/// Makes the hand-over of a result from the session's delegate queue to the waiting caller visible to
/// ThreadSanitizer.
///
/// Resuming a continuation orders the delegate's writes (the response head, the body's channel) before the caller's
/// reads, but the concurrency runtime does not tell ThreadSanitizer so, which then reports those fields as racing. A
/// release before every resume of a caller and an acquire once its await returns state that order explicitly, as
/// CurlTransport does for its loop thread.
enum HandOff {
  private static let counter = Atomic<UInt64>(0)

  /// Before a caller's continuation is resumed, with a value or an error.
  static func release() {
    counter.add(1, ordering: .releasing)
  }

  /// On the caller's side, once its continuation was resumed.
  static func acquire() {
    _ = counter.load(ordering: .acquiring)
  }
}
