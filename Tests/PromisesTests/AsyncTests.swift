import MalibuPromises
import Testing

@Suite("async/await bridge", .timeLimit(.minutes(1)))
struct AsyncTests {
  @Test func valueOfResolvedPromise() async throws {
    #expect(try await Promise(value: 3).value == 3)
  }

  @Test func valueOfLaterResolvedPromise() async throws {
    let promise = Promise<Int>()
    Task { promise.resolve(4) }
    #expect(try await promise.value == 4)
  }

  @Test func valueOfRejectedPromiseThrows() async {
    await #expect(throws: TestError(code: 5)) {
      try await Promise<Int>(error: TestError(code: 5)).value
    }
  }

  @Test func valueOfCancelledPromiseThrowsCancellationError() async {
    let promise = Promise<Int>()
    Task { promise.cancel() }
    await #expect(throws: CancellationError.self) {
      try await promise.value
    }
  }

  @Test("cancelling the awaiting task cancels the promise", arguments: [false, true])
  func taskCancellationCancelsPromise(waitForStart: Bool) async {
    let promise = Promise<Int>()
    let hook = Counter()
    promise.onCancel { hook.increment() }
    let started = Promise<Void>()
    let task = Task {
      started.resolve()
      return try await promise.value
    }
    if waitForStart { _ = await outcome(of: started) }
    task.cancel()
    let result = await task.result
    #expect(result.failure is CancellationError)
    #expect(promise.rejectedError is CancellationError)
    #expect(hook.value == 1)
  }

  @Test func cancellingTheAwaitingTaskReachesTheSourceOfAChain() async {
    let source = Promise<Int>()
    let hook = Counter()
    source.onCancel { hook.increment() }
    let task = Task { try await source.then { $0 + 1 }.recover { _ in 0 }.value }
    task.cancel()
    #expect(await task.result.failure is CancellationError)
    #expect(hook.value == 1)
  }

  @Test func asyncInitializerResolves() async throws {
    let promise = Promise<Int> {
      await Task.yield()
      return 6
    }
    #expect(try await promise.value == 6)
  }

  @Test func asyncInitializerRejects() async {
    let promise = Promise<Int> { throw TestError(code: 7) }
    #expect(await outcome(of: promise).failure as? TestError == TestError(code: 7))
  }

  @Test func cancellingAsyncPromiseCancelsItsTask() async {
    let started = Promise<Void>()
    let innerCancelled = Promise<Void>()
    let promise = Promise<Int> {
      started.resolve()
      do {
        try await Task.sleep(for: .seconds(3_600))
      } catch {
        innerCancelled.resolve()
        throw error
      }
      return 1
    }
    _ = await outcome(of: started)
    promise.cancel()
    #expect(promise.rejectedError is CancellationError)
    #expect(await outcome(of: innerCancelled).success != nil)
  }

  @Test func cancellingTheEndOfAnAsyncChainCancelsTheTask() async {
    let innerCancelled = Promise<Void>()
    let source = Promise<Int> {
      await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
          innerCancelled.always { _ in continuation.resume() }
        }
      } onCancel: {
        innerCancelled.resolve()
      }
      return 1
    }
    let end = source.then { $0 + 1 }.asVoid()
    end.cancel()
    #expect(await outcome(of: innerCancelled).success != nil)
    #expect(source.isRejectedByCancellation)
  }
}
