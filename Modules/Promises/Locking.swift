public import Synchronization

/// MalibuPromises' own lock, the one exception to MalibuCore's `Locked`: this module sits below MalibuCore and
/// depends on nothing, so it keeps this copy of the same pattern (used by `Promise` and ``Shared``).
///
/// Runs `body` under `mutex`, and makes the hand-over between lock holders visible to ThreadSanitizer: on Linux a
/// contended `Mutex` is handed from one thread to the next inside the kernel, where ThreadSanitizer cannot see it, so
/// each critical section starts with an acquiring load and ends with a releasing store on `handoff`.
@inlinable @inline(__always) func withLock<State, Output: Sendable>(
  _ mutex: borrowing Mutex<State>,
  handoff: borrowing Atomic<UInt8>,
  _ body: (inout State) -> Output
) -> Output {
  mutex.withLock { state in
    _ = handoff.load(ordering: .acquiring)
    defer { handoff.store(0, ordering: .releasing) }
    return body(&state)
  }
}

/// A lock-protected value that closures can share (a `Mutex` alone cannot be captured by an escaping closure).
final class Shared<Value: Sendable>: Sendable {
  private let mutex: Mutex<Value>
  private let handoff = Atomic<UInt8>(0)

  init(_ value: Value) {
    mutex = Mutex(value)
  }

  /// Runs `body` with exclusive access to the value.
  func withLock<Output: Sendable>(_ body: (inout Value) -> Output) -> Output {
    MalibuPromises.withLock(mutex, handoff: handoff, body)
  }
}
