/// How many requests of one ``Networking`` may be in flight at once.
///
/// ```swift
/// let serial = Networking<SharkywatersEndpoint>(mode: .sync)        // one at a time, in order
/// let pooled = Networking<SharkywatersEndpoint>(mode: .limited(4))  // at most four at once
/// ```
/// A request holds its slot from the moment it leaves the queue until its promise settles: through `beforeEach`,
/// the `middleware` gate, encoding and the transfer. A request that fails anywhere on the way (an invalid URL, a
/// rejecting middleware, a cancellation) frees its slot, so the next one runs.
public enum NetworkingMode: Hashable, Sendable {
  /// One request at a time, in the order `request(_:)` was called.
  case sync
  /// No limit: every request starts at once.
  case async
  /// At most `n` requests at once, started in the order `request(_:)` was called; `n` below 1 counts as 1.
  case limited(Int)

  /// The number of concurrent requests allowed, or `nil` for no limit.
  var concurrencyLimit: Int? {
    switch self {
    case .sync: return 1
    case .async: return nil
    case .limited(let count): return max(1, count)
    }
  }
}
