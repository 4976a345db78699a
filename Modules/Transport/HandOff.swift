import Synchronization

/// Makes the hand-over of a result from a transport's own thread or queue (curl's loop, URLSession's delegate queue)
/// to the waiting caller visible to ThreadSanitizer.
///
/// Resuming a continuation does order the transport's writes (the response head, the body's channel) before the
/// caller's reads, but the concurrency runtime does not tell ThreadSanitizer so, which then reports those fields as
/// racing. A release before every resume of a caller and an acquire once its await returns state that order
/// explicitly; on x86-64 they cost a locked add and a plain load.
package enum HandOff {
  private static let counter = Atomic<UInt64>(0)

  /// Before a caller's continuation is resumed, with a value or an error.
  package static func release() {
    counter.add(1, ordering: .releasing)
  }

  /// On the caller's side, once its continuation was resumed.
  package static func acquire() {
    _ = counter.load(ordering: .acquiring)
  }
}
