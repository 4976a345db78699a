public import Synchronization

/// The one lock type of the modules above MalibuCore: a value behind a `Mutex`, shareable by escaping closures.
///
/// Each critical section also does an acquiring load and a releasing store on an atomic. On Linux a contended
/// `Mutex` is handed from thread to thread inside the kernel, where ThreadSanitizer cannot see it, so it would
/// report the protected state as racing; the two atomic operations (plain moves on x86-64) make the hand-over
/// visible. MalibuPromises, which sits below MalibuCore and depends on nothing, keeps its own copy of this pattern.
///
/// It is Malibu's own (SPI `Malibu`, not API): public and inlinable only so that the modules using it get it
/// specialised for their types instead of looking up generic metadata on every call. The value sits beside a
/// `Mutex<Void>` rather than inside a `Mutex<Value>`: a class's deinit is never specialised, and destroying a
/// `Mutex<Value>` looked up the metadata of `Mutex<Value>` and its cell at every release, where a `Mutex<Void>`'s is known when the module is compiled.
@_spi(Malibu) public final class Locked<Value: Sendable>: @unchecked Sendable {
  /// The value; only touched inside `mutex`'s sections, which are exclusive, so the run-time exclusivity check is
  /// left out.
  @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var value: Value
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
