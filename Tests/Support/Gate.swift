@_spi(Malibu) import MalibuCore

/// A one-shot signal that tasks can wait for.
public final class Gate: Sendable {
  private let state = Locked<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

  /// Creates a closed gate.
  public init() {}

  /// Opens the gate: every waiter, and every later one, goes on.
  public func open() {
    let waiters = state.withLock { state in
      state.open = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Returns once the gate is open.
  public func wait() async {
    await withCheckedContinuation { continuation in
      let now = state.withLock { state in
        if state.open { return true }
        state.waiters.append(continuation)
        return false
      }
      if now { continuation.resume() }
    }
  }
}
