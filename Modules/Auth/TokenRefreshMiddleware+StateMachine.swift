import MalibuCore

extension TokenRefreshMiddleware {
  /// The single-flight state: the current token, and at most one refresh with the requests waiting for it.
  ///
  /// Pure and synchronous; the middleware runs it behind its lock and performs the returned actions outside it.
  struct StateMachine: Sendable {
    typealias Waiter = CheckedContinuation<String, any Error>

    /// What a request that got a 401 does next.
    enum JoinAction {
      /// The token was already replaced: retry with this one at once.
      case retry(String)
      /// The waiting request was cancelled before it could wait.
      case cancelled
      /// Wait for the refresh in flight (the continuation is stored).
      case wait
      /// Wait, and start the refresh: no refresh was in flight.
      case startRefresh
    }

    /// The token sent with the next request, if any.
    private(set) var token: String?
    /// The requests waiting for the refresh in flight; `nil` when no refresh is in flight.
    private var waiters: [UInt64: Waiter]?
    /// Waiters announced by ``makeWaiterID()`` but not yet joined; cancelled ones are removed early.
    private var announced: Set<UInt64> = []
    private var nextID: UInt64 = 0

    init(token: String?) {
      self.token = token
    }

    /// How many requests wait for a refresh now.
    var waitingCount: Int { waiters?.count ?? 0 }

    /// Replaces the token (a login, a logout with `nil`).
    mutating func setToken(_ token: String?) {
      self.token = token
    }

    /// A new waiter id, announced so that a cancellation arriving before ``join(_:replacing:continuation:)`` is
    /// not lost.
    mutating func makeWaiterID() -> UInt64 {
      nextID += 1
      announced.insert(nextID)
      return nextID
    }

    /// A request that sent `used` (nil: no token) got a 401 and needs a fresh token.
    mutating func join(_ id: UInt64, replacing used: String?, continuation: Waiter) -> JoinAction {
      guard announced.remove(id) != nil else { return .cancelled }
      if waiters != nil {
        waiters?[id] = continuation
        return .wait
      }
      if let token, token != used {
        return .retry(token)
      }
      waiters = [id: continuation]
      return .startRefresh
    }

    /// The waiting request `id` was cancelled: the continuation to fail, if it was already waiting.
    mutating func cancel(_ id: UInt64) -> Waiter? {
      if announced.remove(id) != nil { return nil }
      return waiters?.removeValue(forKey: id)
    }

    /// The refresh ended: the token is replaced on success (kept on failure, so the next 401 refreshes again),
    /// and every waiter is returned to be resumed.
    mutating func finish(_ result: Result<String, NetworkError>) -> [Waiter] {
      if case .success(let fresh) = result { token = fresh }
      defer { waiters = nil }
      return waiters.map { Array($0.values) } ?? []
    }
  }
}
