public import Dispatch

/// What a transform hands to a derived promise: an outcome, or another promise to follow.
@usableFromInline package enum Derivation<Value: Sendable> {
  case result(Result<Value, any Error>)
  case follow(Promise<Value>)
}

/// The outcomes of a promise that its derived promise takes without the user's transform running on its queue.
@usableFromInline package enum PassThrough: Sendable {
  /// A rejection settles the derived promise with the same error (`then`, `asVoid()`).
  case failures
  /// A resolved value is handed to the transform at once, on the settling thread, whatever its queue: the transform
  /// passes it on (`recover`).
  case successes
}

extension Promise {
  /// Makes a promise derived from this one.
  ///
  /// - `passThrough` names the outcomes that skip the user's code (or its queue).
  /// - `transform` is the user's code; it runs on `queue` when one is given, inline otherwise.
  ///
  /// Cancelling the derived promise cancels this one (cancellation travels upstream) and, once the transform
  /// returned a promise, that promise too.
  ///
  /// `passThrough` is a value rather than a function: a closure handed to this generic method from code that knows
  /// `Value` is adapted to its generic form by a thunk, which costs an allocation per derived promise.
  @inlinable @inline(__always) package func derive<U: Sendable>(
    on queue: DispatchQueue?,
    passThrough: PassThrough,
    transform: @escaping @Sendable (Result<Value, any Error>) throws -> Derivation<U>
  ) -> Promise<U> {
    let child = Promise<U>()
    var work = Worklist()
    child.addCancelHandler({ [self] work in cancel(into: &work) }, into: &work)
    observe(into: &work) { result, work in
      switch (passThrough, result) {
      case (.failures, .failure(let error)):
        child.settle(.failure(error), into: &work)
      case (.successes, .success):
        child.run(transform, with: result, into: &work)
      default:
        if let queue {
          queue.async {
            var work = Worklist()
            child.run(transform, with: result, into: &work)
            work.drain()
          }
        } else {
          child.run(transform, with: result, into: &work)
        }
      }
    }
    work.drain()
    return child
  }
}

extension Promise {
  /// Runs `transform` on `input` and settles this promise with its outcome; skipped once this promise is settled
  /// (for instance cancelled while the transform waited on its queue).
  @inlinable func run<T: Sendable>(
    _ transform: @Sendable (Result<T, any Error>) throws -> Derivation<Value>,
    with input: Result<T, any Error>,
    into work: inout Worklist
  ) {
    guard isPending else { return }
    do {
      switch try transform(input) {
      case .result(let result):
        settle(result, into: &work)
      case .follow(let other):
        follow(other, into: &work)
      }
    } catch {
      settle(.failure(error), into: &work)
    }
  }

  /// Settles this promise like `other`; cancelling this promise cancels `other`.
  @inlinable func follow(_ other: Promise<Value>, into work: inout Worklist) {
    addCancelHandler({ work in other.cancel(into: &work) }, into: &work)
    other.observe(into: &work) { [self] result, work in settle(result, into: &work) }
  }

  /// Transforms the value once the promise is resolved; a rejection passes through untouched.
  ///
  /// ```swift
  /// let length: Promise<Int> = text.then { $0.count }
  /// ```
  /// - Parameters:
  ///   - queue: The queue to run `transform` on; `nil` (the default) runs it on the thread that settles this
  ///     promise, or at once on the calling thread if it is already settled.
  ///   - transform: Maps the value; a thrown error rejects the returned promise.
  /// - Returns: A promise of the transformed value. Cancelling it cancels this promise.
  @inlinable public func then<U: Sendable>(
    on queue: DispatchQueue? = nil,
    _ transform: @escaping @Sendable (Value) throws -> U
  ) -> Promise<U> {
    derive(
      on: queue,
      passThrough: .failures,
      transform: { result in .result(.success(try transform(result.get()))) }
    )
  }

  /// Starts another asynchronous step once the promise is resolved; a rejection passes through untouched.
  ///
  /// ```swift
  /// let user: Promise<User> = login().then { token in fetchUser(token) }
  /// ```
  /// - Parameters:
  ///   - queue: The queue to run `transform` on; `nil` (the default) runs it on the thread that settles this
  ///     promise, or at once on the calling thread if it is already settled.
  ///   - transform: Returns the promise to follow; a thrown error rejects the returned promise.
  /// - Returns: A promise settled like the one `transform` returns. Cancelling it cancels this promise and the
  ///   promise returned by `transform`.
  @inlinable public func then<U: Sendable>(
    on queue: DispatchQueue? = nil,
    _ transform: @escaping @Sendable (Value) throws -> Promise<U>
  ) -> Promise<U> {
    derive(
      on: queue,
      passThrough: .failures,
      transform: { result in .follow(try transform(result.get())) }
    )
  }

  /// Turns a rejection into a value; a resolved value passes through untouched.
  ///
  /// ```swift
  /// let count: Promise<Int> = fetchCount().recover { _ in 0 }
  /// ```
  /// Every error is offered to `transform`, cancellation included; check ``isCancellationError(_:)`` and rethrow
  /// to keep a cancellation.
  /// - Parameters:
  ///   - queue: The queue to run `transform` on; `nil` (the default) runs it on the thread that settles this
  ///     promise, or at once on the calling thread if it is already settled.
  ///   - transform: Maps the error to a value; a thrown error rejects the returned promise.
  /// - Returns: A promise of this promise's value or the recovered one. Cancelling it cancels this promise.
  @inlinable public func recover(
    on queue: DispatchQueue? = nil,
    _ transform: @escaping @Sendable (any Error) throws -> Value
  ) -> Promise<Value> {
    derive(
      on: queue,
      passThrough: .successes,
      transform: { result in
        guard case .failure(let error) = result else { return .result(result) }
        return .result(.success(try transform(error)))
      }
    )
  }

  /// Turns a rejection into another asynchronous attempt; a resolved value passes through untouched.
  ///
  /// ```swift
  /// let data: Promise<Data> = fetchRemote().recover { _ in fetchCached() }
  /// ```
  /// Every error is offered to `transform`, cancellation included.
  /// - Parameters:
  ///   - queue: The queue to run `transform` on; `nil` (the default) runs it on the thread that settles this
  ///     promise, or at once on the calling thread if it is already settled.
  ///   - transform: Returns the promise to follow instead; a thrown error rejects the returned promise.
  /// - Returns: A promise of this promise's value or the one `transform` produces. Cancelling it cancels this
  ///   promise and the promise returned by `transform`.
  @inlinable public func recover(
    on queue: DispatchQueue? = nil,
    _ transform: @escaping @Sendable (any Error) throws -> Promise<Value>
  ) -> Promise<Value> {
    derive(
      on: queue,
      passThrough: .successes,
      transform: { result in
        guard case .failure(let error) = result else { return .result(result) }
        return .follow(try transform(error))
      }
    )
  }

  /// Forgets the value, keeping only success or failure.
  ///
  /// ```swift
  /// let finished: Promise<Void> = upload().asVoid()
  /// ```
  /// - Returns: A promise resolved with `()` when this one resolves, rejected with its error otherwise. Cancelling it
  ///   cancels this promise.
  @inlinable public func asVoid() -> Promise<Void> {
    derive(on: nil, passThrough: .failures, transform: { _ in .result(.success(())) })
  }
}

/// Not Sendable: it is handed from a transform to the promise it settles within one call, and may hold any error.
@available(*, unavailable)
extension Derivation: Sendable {}
