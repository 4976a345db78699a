public import Dispatch
public import Synchronization

/// A value that will be available later: it starts pending and settles once, either resolved with a value or
/// rejected with an error.
///
/// ```swift
/// let promise = Promise<Int>()
/// promise
///   .then { $0 + 1 }
///   .done { print($0) }            // prints 2
///   .fail { print("failed:", $0) }
/// promise.resolve(1)
/// ```
///
/// ## Settlement
/// The first call to ``resolve(_:)``, ``reject(_:)`` or ``cancel()`` wins; later calls are ignored. Any number of
/// observers may be added, before or after settlement; each one runs exactly once.
///
/// ## Where callbacks run
/// Every method that takes a callback has an optional `on:` queue. With a queue, the callback is submitted to it
/// with `async`. Without one (the default), the callback runs synchronously on the thread that settles the
/// promise, or, when the promise is already settled, on the thread that adds the callback, before the adding call
/// returns. Nothing is tied to the main queue. Callbacks never run while the promise's lock is held, so a callback
/// may freely use the promise it observes.
///
/// ## Cancellation
/// ``cancel()`` rejects the promise with `CancellationError` and runs its ``onCancel(_:)`` hooks. Cancellation
/// travels upstream: cancelling a promise made by `then`, `recover`, ``asVoid()`` or `when` also cancels the
/// promise(s) it was made from, so cancelling the end of a chain reaches whatever produces the first value. The source then rejects all of its other derived promises (siblings of the
/// cancelled one) with the cancellation error too.
public final class Promise<Value: Sendable>: Sendable {
  /// The state of a promise.
  public enum State: Sendable {
    /// Not settled yet.
    case pending
    /// Settled with a value.
    case resolved(Value)
    /// Settled with an error (a cancelled promise is rejected with `CancellationError`).
    case rejected(any Error)
  }

  /// Called once with the outcome; may append follow-up work to the worklist.
  @usableFromInline typealias Observer = @Sendable (Result<Value, any Error>, inout Worklist) -> Void
  /// Called once when the promise is cancelled.
  @usableFromInline typealias CancelHandler = @Sendable (inout Worklist) -> Void

  /// An observer as ``Callbacks`` keeps it: wrapped, so that it is stored in its own calling convention.
  @usableFromInline struct Observation: Sendable {
    @usableFromInline let call: Observer
    @inlinable init(_ call: @escaping Observer) { self.call = call }
  }
  /// A cancel hook as ``Callbacks`` keeps it; see ``Observation``.
  ///
  /// A hook from ``onCancel(_:)`` is kept as it is given rather than wrapped in a ``CancelHandler``: the wrapping
  /// closure's context was an allocation per hook, where the hook itself (say `{ task.cancel() }`, one reference)
  /// often needs none. It is wrapped only when it runs.
  @usableFromInline enum CancelHook: Sendable {
    /// The library's own hook, which may queue follow-up work (cancelling upstream promises).
    case chained(CancelHandler)
    /// A user's hook.
    case plain(@Sendable () -> Void)

    /// The hook as a job for the worklist.
    @inlinable var job: Worklist.Job {
      switch self {
      case .chained(let handler): return handler
      case .plain(let handler): return { _ in handler() }
      }
    }
  }

  @usableFromInline struct Storage {
    @usableFromInline var state: State
    @usableFromInline var cancelled = false
    @usableFromInline var observers = Callbacks<Observation>()
    @usableFromInline var cancelHandlers = Callbacks<CancelHook>()

    @inlinable init(state: State) {
      self.state = state
    }
  }

  /// The state, read and written only under ``lock`` (through `locked(_:)`). It sits beside a `Mutex<Void>` rather
  /// than inside a `Mutex<Storage>`, so that the promise's unspecialised deinit needs no metadata of the `Mutex`.
  @usableFromInline nonisolated(unsafe) var storage: Storage
  /// Guards ``storage``.
  @usableFromInline let lock = Mutex<Void>(())
  /// Makes lock hand-overs visible to ThreadSanitizer; see `withLock(_:handoff:_:)`.
  @usableFromInline let handoff = Atomic<UInt8>(0)

  /// Creates a pending promise; settle it later with ``resolve(_:)``, ``reject(_:)`` or ``cancel()``.
  @inlinable public init() {
    storage = Storage(state: .pending)
  }

  /// Creates a promise already resolved with `value`.
  /// - Parameter value: The value of the promise.
  @inlinable public init(value: Value) {
    storage = Storage(state: .resolved(value))
  }

  /// Creates a promise already rejected with `error`.
  /// - Parameter error: The error of the promise.
  @inlinable public init(error: any Error) {
    storage = Storage(state: .rejected(error))
  }

  /// Creates a pending promise and hands its `resolve` and `reject` functions to `body`, which runs at once on the
  /// calling thread. Use it to wrap a callback-based API.
  ///
  /// ```swift
  /// let promise = Promise<Data> { resolve, reject in
  ///   legacyLoad(completion: resolve, failure: reject)
  /// }
  /// ```
  /// - Parameter body: Receives the functions that settle the promise; they may be called later, from any thread.
  ///   If `body` throws before the promise is settled, the promise is rejected with that error.
  public convenience init(
    _ body: (
      _ resolve: @escaping @Sendable (Value) -> Void,
      _ reject: @escaping @Sendable (any Error) -> Void
    ) throws -> Void
  ) {
    self.init()
    do {
      try body({ [self] value in resolve(value) }, { [self] error in reject(error) })
    } catch {
      reject(error)
    }
  }

  /// The current state of the promise.
  @inlinable public var state: State {
    locked { $0.state }
  }

  /// Whether the promise is still pending.
  @inlinable public var isPending: Bool {
    if case .pending = state { return true }
    return false
  }

  /// The outcome of the promise, or `nil` while it is pending.
  @inlinable public var result: Result<Value, any Error>? {
    switch state {
    case .pending: return nil
    case .resolved(let value): return .success(value)
    case .rejected(let error): return .failure(error)
    }
  }

  /// Resolves the promise with `value`, unless it is already settled.
  /// - Parameter value: The value handed to the observers.
  @inlinable public func resolve(_ value: Value) {
    var work = Worklist()
    settle(.success(value), into: &work)
    work.drain()
  }

  /// Rejects the promise with `error`, unless it is already settled.
  /// - Parameter error: The error handed to the observers.
  @inlinable public func reject(_ error: any Error) {
    var work = Worklist()
    settle(.failure(error), into: &work)
    work.drain()
  }

  /// Cancels the promise: unless it is already settled, rejects it with `CancellationError` and runs every
  /// ``onCancel(_:)`` hook exactly once (before the observers). Cancelling a derived promise also cancels the
  /// promise(s) it was made from.
  @inlinable public func cancel() {
    var work = Worklist()
    cancel(into: &work)
    work.drain()
  }

  /// Registers `handler` to run when the promise is cancelled; a producer uses it to stop its work.
  ///
  /// The handler runs at once if the promise is already cancelled, exactly once when ``cancel()`` settles it, and
  /// never if the promise is settled any other way (it is then released).
  /// - Parameter handler: The code that aborts the work behind the promise.
  @inlinable public func onCancel(_ handler: @escaping @Sendable () -> Void) {
    var work = Worklist()
    addCancelHook(.plain(handler), into: &work)
    work.drain()
  }

  // MARK: - Internals shared by the extensions

  @inlinable @inline(__always) func locked<Output: Sendable>(_ body: (inout Storage) -> Output) -> Output {
    withLock(lock, handoff: handoff) { _ in body(&storage) }
  }

  /// Settles the promise unless it is already settled; queues the cancel hooks (when cancelling) and then the
  /// observers on `work`. Returns whether this call settled the promise.
  ///
  /// The observers stay in the storage until their turn comes (``notifyObservers(into:)``): the queued job captures
  /// the promise alone, which needs no allocation, where a job per observer capturing it and the outcome needed one
  /// each. Observers added after settlement never join that list (they are queued at once), so it is final here.
  @inlinable @discardableResult
  func settle(_ result: Result<Value, any Error>, cancelling: Bool = false, into work: inout Worklist) -> Bool {
    let taken: (handlers: Callbacks<CancelHook>, observed: Bool)? = locked { storage in
      guard case .pending = storage.state else { return nil }
      switch result {
      case .success(let value): storage.state = .resolved(value)
      case .failure(let error): storage.state = .rejected(error)
      }
      storage.cancelled = cancelling
      let handlers = cancelling ? storage.cancelHandlers : Callbacks()
      storage.cancelHandlers = Callbacks()
      return (handlers, !storage.observers.isEmpty)
    }
    guard let taken else { return false }
    for handler in taken.handlers {
      work.append(handler.job)
    }
    if taken.observed {
      work.append { [self] work in notifyObservers(into: &work) }
    }
    return true
  }

  /// Runs the observers the promise had when it was settled, with its outcome.
  @inlinable func notifyObservers(into work: inout Worklist) {
    let (observers, result) = locked { storage -> (Callbacks<Observation>, Result<Value, any Error>) in
      let observers = storage.observers
      storage.observers = Callbacks()
      switch storage.state {
      case .resolved(let value): return (observers, .success(value))
      case .rejected(let error): return (observers, .failure(error))
      case .pending: preconditionFailure("observers notified before the promise settled")
      }
    }
    for observer in observers {
      observer.call(result, &work)
    }
  }

  /// Cancels the promise, queueing the resulting work on `work`.
  @inlinable func cancel(into work: inout Worklist) {
    settle(.failure(CancellationError()), cancelling: true, into: &work)
  }

  /// Adds an observer; when the promise is already settled, queues it on `work` at once.
  @inlinable func observe(into work: inout Worklist, _ observer: @escaping Observer) {
    let settled: Result<Value, any Error>? = locked { storage in
      switch storage.state {
      case .pending:
        storage.observers.append(Observation(observer))
        return nil
      case .resolved(let value):
        return .success(value)
      case .rejected(let error):
        return .failure(error)
      }
    }
    if let settled {
      work.append { work in observer(settled, &work) }
    }
  }

  /// Adds an observer that runs `handler` on `queue` (or inline without one); drains the resulting work.
  @inlinable func observe(on queue: DispatchQueue?, _ handler: @escaping @Sendable (Result<Value, any Error>) -> Void) {
    var work = Worklist()
    observe(into: &work) { result, _ in
      if let queue {
        queue.async { handler(result) }
      } else {
        handler(result)
      }
    }
    work.drain()
  }

  /// Adds a cancel hook: kept while pending, queued at once if already cancelled, dropped otherwise.
  @inlinable func addCancelHandler(_ handler: @escaping CancelHandler, into work: inout Worklist) {
    addCancelHook(.chained(handler), into: &work)
  }

  /// Adds `hook`: kept while pending, queued at once if already cancelled, dropped otherwise.
  @inlinable func addCancelHook(_ hook: CancelHook, into work: inout Worklist) {
    let runNow = locked { storage in
      guard case .pending = storage.state else { return storage.cancelled }
      storage.cancelHandlers.append(hook)
      return false
    }
    if runNow {
      work.append(hook.job)
    }
  }
}

extension Promise where Value == Void {
  /// Resolves a `Void` promise: `promise.resolve()` instead of `promise.resolve(())`.
  @inlinable public func resolve() {
    resolve(())
  }
}

/// Not Sendable: the storage lives inside the promise's lock and is only touched while holding it.
@available(*, unavailable)
extension Promise.Storage: Sendable {}
