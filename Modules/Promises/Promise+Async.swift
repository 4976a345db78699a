extension Promise {
  /// Creates a promise settled by an async closure, which starts at once in a new `Task`.
  ///
  /// ```swift
  /// let answer = Promise<Int> { try await compute() }
  /// ```
  /// Cancelling the promise cancels that task; the promise is then rejected with `CancellationError` right away,
  /// without waiting for the closure to notice.
  /// - Parameter body: The work that produces the value; a thrown error rejects the promise.
  public convenience init(_ body: @escaping @Sendable () async throws -> Value) {
    self.init()
    let task = Task { [self] in
      do {
        resolve(try await body())
      } catch {
        reject(error)
      }
    }
    onCancel { task.cancel() }
  }

  /// The value of the promise, awaited.
  ///
  /// ```swift
  /// let boards = try await networking.request(.fetchBoards).decode(using: [Board].self).value
  /// ```
  /// Cancelling the awaiting task cancels the promise (and, through it, whatever produces its value).
  /// - Throws: The error the promise is rejected with; `CancellationError` when it is cancelled.
  @inlinable public var value: Value {
    get async throws {
      // Settled already (a mock answered at once, say): no suspension, no continuation.
      if let result { return try result.get() }
      return try await withTaskCancellationHandler {
        // Unsafe is safe here: an observer runs exactly once, so the continuation is resumed exactly once.
        try await withUnsafeThrowingContinuation { continuation in
          var work = Worklist()
          observe(into: &work) { result, _ in continuation.resume(with: result) }
          work.drain()
        }
      } onCancel: {
        cancel()
      }
    }
  }
}
