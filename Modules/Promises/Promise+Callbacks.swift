public import Dispatch

extension Promise {
  /// Calls `handler` with the value once the promise is resolved; not called when it is rejected.
  ///
  /// ```swift
  /// promise.done { value in print(value) }.fail { error in print(error) }
  /// ```
  /// - Parameters:
  ///   - queue: The queue to run `handler` on; `nil` (the default) runs it on the thread that settles the promise,
  ///     or at once on the calling thread if the promise is already settled.
  ///   - handler: Receives the value.
  /// - Returns: This promise, so callbacks can be chained.
  @discardableResult
  @inlinable public func done(
    on queue: DispatchQueue? = nil,
    _ handler: @escaping @Sendable (Value) -> Void
  ) -> Promise<Value> {
    observe(on: queue) { result in
      if case .success(let value) = result { handler(value) }
    }
    return self
  }

  /// Calls `handler` with the error once the promise is rejected; not called when it is resolved.
  ///
  /// ```swift
  /// promise.fail { error in print("failed:", error) }              // skips cancellation
  /// promise.fail(policy: .allErrors) { error in print(error) }      // cancellation too
  /// ```
  /// - Parameters:
  ///   - queue: The queue to run `handler` on; `nil` (the default) runs it on the thread that settles the promise,
  ///     or at once on the calling thread if the promise is already settled.
  ///   - policy: Which errors to report; the default, ``FailurePolicy/notCancelled``, skips cancellation errors
  ///     (see ``isCancellationError(_:)``).
  ///   - handler: Receives the error.
  /// - Returns: This promise, so callbacks can be chained.
  @discardableResult
  @inlinable public func fail(
    on queue: DispatchQueue? = nil,
    policy: FailurePolicy = .notCancelled,
    _ handler: @escaping @Sendable (any Error) -> Void
  ) -> Promise<Value> {
    observe(on: queue) { result in
      guard case .failure(let error) = result else { return }
      if policy == .notCancelled && isCancellationError(error) { return }
      handler(error)
    }
    return self
  }

  /// Calls `handler` with the outcome once the promise is settled, whatever the outcome (cancellation included).
  ///
  /// ```swift
  /// promise.always { result in spinner.stop() }
  /// ```
  /// - Parameters:
  ///   - queue: The queue to run `handler` on; `nil` (the default) runs it on the thread that settles the promise,
  ///     or at once on the calling thread if the promise is already settled.
  ///   - handler: Receives the value or the error.
  /// - Returns: This promise, so callbacks can be chained.
  @discardableResult
  @inlinable public func always(
    on queue: DispatchQueue? = nil,
    _ handler: @escaping @Sendable (Result<Value, any Error>) -> Void
  ) -> Promise<Value> {
    observe(on: queue, handler)
    return self
  }
}
