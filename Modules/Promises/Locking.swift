public import Synchronization

/// Runs `body` under `mutex`, and makes the hand-over between lock holders visible to ThreadSanitizer.
///
/// On Linux, `Mutex` hands a contended lock from one thread to the next inside the kernel (priority-inheritance
/// futexes), in standard-library code that ThreadSanitizer does not instrument, so it would report the state behind
/// a contended lock as racing even though it is not. Each critical section therefore starts with an acquiring load
/// and ends with a releasing store on `handoff`, which the real lock already orders; ThreadSanitizer sees those and
/// links each holder to the previous one. On x86-64 both are plain moves, so the cost is negligible.
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
