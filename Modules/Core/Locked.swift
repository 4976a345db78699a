public import Synchronization

/// The one lock type for the shared state of MalibuCore and every module above it: a value behind a `Mutex`,
/// shareable by escaping closures. (MalibuPromises sits below MalibuCore and depends on nothing, so it keeps its own
/// copy of this pattern.)
///
/// Each critical section also does an acquiring load and a releasing store on an atomic: on Linux a contended
/// `Mutex` is handed from thread to thread inside the kernel, where ThreadSanitizer cannot see it, so it would
/// report the protected state as racing; the two atomic operations make the hand-over visible.
///
/// It is Malibu's own (SPI `Malibu`, not API): public and inlinable so that each module gets it specialised for its
/// own value type. The value sits beside a `Mutex<Void>` rather than inside a `Mutex<Value>`, so that the class's
/// unspecialised deinit needs no metadata of a generic `Mutex`.
///
/// `@unchecked Sendable`: the value is only touched inside `mutex`'s sections.
@_spi(Malibu) public final class Locked<Value: Sendable>: @unchecked Sendable {
  /// The value; only touched inside `mutex`'s sections.
  @usableFromInline nonisolated(unsafe) var value: Value
  @usableFromInline let mutex = Mutex<Void>(())
  @usableFromInline let handoff = Atomic<UInt8>(0)

  /// Creates the lock around a first value.
  @inlinable public init(_ value: Value) {
    self.value = value
  }

  /// Runs `body` with exclusive access to the value. `body` must not block or call back into code that may take
  /// the same lock.
  @inlinable public func withLock<Output>(_ body: (inout Value) throws -> Output) rethrows -> Output {
    try mutex.withLock { _ in
      _ = handoff.load(ordering: .acquiring)
      defer { handoff.store(0, ordering: .releasing) }
      return try body(&value)
    }
  }
}
