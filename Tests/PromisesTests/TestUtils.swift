import MalibuPromises
import Synchronization

/// A plain failure used across the tests.
struct TestError: Error, Equatable {
  let code: Int
}

/// A library-style error that marks itself as a cancellation (like a transport error with code `.cancelled`).
struct TransferError: Error, CancellationIndicating {
  let cancelled: Bool
  var isCancellation: Bool { cancelled }
}

/// Counts calls from any thread.
final class Counter: Sendable {
  private let count = Atomic<Int>(0)

  func increment() {
    count.add(1, ordering: .relaxed)
  }

  var value: Int {
    count.load(ordering: .relaxed)
  }
}

/// A `Mutex` whose hand-overs ThreadSanitizer can see: on Linux a contended `Mutex` passes through uninstrumented
/// kernel code, so each critical section also does an acquiring load and a releasing store on an atomic.
final class Locked<Value: Sendable>: Sendable {
  private let mutex: Mutex<Value>
  private let handoff = Atomic<UInt8>(0)

  init(_ value: Value) {
    mutex = Mutex(value)
  }

  func withLock<Output: Sendable>(_ body: (inout Value) -> Output) -> Output {
    mutex.withLock { value in
      _ = handoff.load(ordering: .acquiring)
      defer { handoff.store(0, ordering: .releasing) }
      return body(&value)
    }
  }
}

/// Records values from any thread, in arrival order.
final class Recorder<Element: Sendable>: Sendable {
  private let storage = Locked<[Element]>([])

  func append(_ element: Element) {
    storage.withLock { $0.append(element) }
  }

  var values: [Element] {
    storage.withLock { $0 }
  }
}

/// Awaits the outcome of `promise` without cancelling it (unlike `value`).
func outcome<T: Sendable>(of promise: Promise<T>) async -> Result<T, any Error> {
  await withCheckedContinuation { continuation in
    promise.always { continuation.resume(returning: $0) }
  }
}

extension Result {
  /// The value, or nil.
  var success: Success? {
    if case .success(let value) = self { return value }
    return nil
  }

  /// The error, or nil.
  var failure: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }
}

extension Promise {
  /// The value if resolved, nil otherwise.
  var resolvedValue: Value? {
    result?.success
  }

  /// The error if rejected, nil otherwise.
  var rejectedError: (any Error)? {
    result?.failure
  }

  /// Whether the promise was rejected with a cancellation error.
  var isRejectedByCancellation: Bool {
    rejectedError.map(isCancellationError) ?? false
  }
}
