import Dispatch
import MalibuPromises
import Testing

@Suite("Transforms")
struct TransformTests {
  struct Board: Sendable, Equatable {
    let title: String
  }

  @Test(
    "then maps values and passes errors through",
    arguments: [
      (Result<Int, TestError>.success(2), Result<Int, TestError>.success(3)),
      (.failure(TestError(code: 1)), .failure(TestError(code: 1))),
    ]
  )
  func thenMaps(input: Result<Int, TestError>, expected: Result<Int, TestError>) {
    let source = Promise<Int>()
    let mapped = source.then { $0 + 1 }
    switch input {
    case .success(let value): source.resolve(value)
    case .failure(let error): source.reject(error)
    }
    #expect(mapped.resolvedValue == expected.success)
    #expect(mapped.rejectedError as? TestError == expected.failure)
  }

  @Test func thenThrowingRejects() {
    let calls = Counter()
    let mapped = Promise(value: 1).then { _ -> Int in throw TestError(code: 2) }.done { _ in calls.increment() }
    #expect(mapped.rejectedError as? TestError == TestError(code: 2))
    #expect(calls.value == 0)
  }

  @Test func thenReturningPromiseFollowsIt() {
    let inner = Promise<String>()
    let source = Promise<Int>()
    let chained = source.then { n in inner.then { "\($0)-\(n)" } }
    source.resolve(1)
    #expect(chained.isPending)
    inner.resolve("x")
    #expect(chained.resolvedValue == "x-1")
  }

  @Test func thenReturningRejectedPromiseRejects() {
    let chained = Promise(value: 1).then { _ in Promise<Int>(error: TestError(code: 3)) }
    #expect(chained.rejectedError as? TestError == TestError(code: 3))
  }

  @Test func thenReturningPromiseThrowingRejects() {
    let chained = Promise(value: 1).then { _ -> Promise<Int> in throw TestError(code: 4) }
    #expect(chained.rejectedError as? TestError == TestError(code: 4))
  }

  @Test func thenWithExplicitReturnTypeAndStatements() {
    let dictionary: [String: [String]] = ["boards": ["Balsa", "Fish"]]
    let boards = Promise(value: dictionary).then { dictionary -> [Board] in
      let titles = dictionary["boards"] ?? []
      return titles.map { Board(title: $0) }
    }
    #expect(boards.resolvedValue == [Board(title: "Balsa"), Board(title: "Fish")])
  }

  @Test func thenWithSideEffectOnlyGivesVoid() {
    let seen = Counter()
    let step: Promise<Void> = Promise(value: 1).then { _ in
      seen.increment()
    }
    #expect(step.resolvedValue != nil)
    #expect(seen.value == 1)
  }

  @Test("recover turns a failure into a value", arguments: [false, true])
  func recoverValue(fails: Bool) {
    let source = fails ? Promise<Int>(error: TestError(code: 1)) : Promise(value: 5)
    #expect(source.recover { _ in 0 }.resolvedValue == (fails ? 0 : 5))
  }

  @Test("recover turns a failure into another promise", arguments: [false, true])
  func recoverPromise(fails: Bool) {
    let source = fails ? Promise<Int>(error: TestError(code: 1)) : Promise(value: 5)
    let fallback = Promise<Int>()
    let recovered = source.recover { _ in fallback }
    fallback.resolve(9)
    #expect(recovered.resolvedValue == (fails ? 9 : 5))
  }

  @Test func recoverSeesTheError() {
    let seen = Recorder<Int>()
    let recovered = Promise<Int>(error: TestError(code: 12)).recover { error -> Int in
      seen.append((error as? TestError)?.code ?? -1)
      throw TestError(code: 13)
    }
    #expect(seen.values == [12])
    #expect(recovered.rejectedError as? TestError == TestError(code: 13))
  }

  @Test func asVoidKeepsOutcome() {
    #expect(Promise(value: 1).asVoid().resolvedValue != nil)
    #expect(Promise<Int>(error: TestError(code: 1)).asVoid().rejectedError as? TestError == TestError(code: 1))
  }

  /// An outcome a transform does not take passes on at once, on the settling thread, without waiting for the
  /// transform's queue: here a queue that is suspended, so anything sent to it would stay pending.
  @Test func anOutcomeTheTransformDoesNotTakeSkipsItsQueue() {
    let queue = DispatchQueue(label: "suspended")
    queue.suspend()
    defer { queue.resume() }
    let calls = Counter()
    let rejected = Promise<Int>()
    let resolved = Promise<Int>()
    let then = rejected.then(on: queue) { value -> Int in
      calls.increment()
      return value
    }
    let thenPromise = rejected.then(on: queue) { value -> Promise<Int> in
      calls.increment()
      return Promise(value: value)
    }
    let recover = resolved.recover(on: queue) { _ -> Int in
      calls.increment()
      return 0
    }
    let recoverPromise = resolved.recover(on: queue) { _ -> Promise<Int> in
      calls.increment()
      return Promise(value: 0)
    }
    rejected.reject(TestError(code: 5))
    resolved.resolve(7)
    #expect(then.rejectedError as? TestError == TestError(code: 5))
    #expect(thenPromise.rejectedError as? TestError == TestError(code: 5))
    #expect(recover.resolvedValue == 7)
    #expect(recoverPromise.resolvedValue == 7)
    #expect(calls.value == 0)
    // The outcomes the transforms do take wait for the queue.
    let waiting = Promise(value: 1).then(on: queue) { $0 + 1 }
    #expect(waiting.isPending)
  }

  @Test func longChainDoesNotOverflowTheStack() {
    let root = Promise<Int>()
    var end = root
    for _ in 0..<100_000 { end = end.then { $0 + 1 } }
    root.resolve(0)
    #expect(end.resolvedValue == 100_000)
  }

  @Test func longPromiseReturningChainDoesNotOverflowTheStack() {
    let root = Promise<Int>()
    var end = root
    for _ in 0..<20_000 { end = end.then { n in Promise(value: n + 1) } }
    root.resolve(0)
    #expect(end.resolvedValue == 20_000)
  }

  @Test func apiSnippetCompilesAndBehaves() async throws {
    @Sendable func compute() async throws -> Int { 41 }
    func legacyCall(_ resolve: @escaping @Sendable (Int) -> Void, _ reject: @escaping @Sendable (any Error) -> Void) {
      DispatchQueue.global().async { resolve(7) }
    }
    let printed = Recorder<Int>()
    let p = Promise<Int>()
    let ready = Promise<Int>(value: 1)
    let failed = Promise<Int>(error: TestError(code: 1))
    let fromAsync = Promise<Int> { try await compute() }
    let fromCallbacks = Promise<Int> { resolve, reject in legacyCall(resolve, reject) }
    let chain = p.then { $0 + 1 }.then { n in Promise(value: n * 2) }.recover { _ in 0 }
      .done { printed.append($0) }.fail { _ in printed.append(-1) }.fail(policy: .allErrors) { _ in }.always { _ in }
    p.resolve(5)
    let n: Int = try await p.value
    let all: Promise<[Int]> = when([p, ready])
    let pair: Promise<(Int, String)> = when(p, Promise(value: "s"))

    #expect(n == 5)
    #expect(chain.resolvedValue == 12)
    #expect(printed.values == [12])
    #expect(failed.rejectedError as? TestError == TestError(code: 1))
    #expect(try await fromAsync.value == 41)
    #expect(try await fromCallbacks.value == 7)
    #expect(all.resolvedValue == [5, 1])
    #expect(pair.resolvedValue?.0 == 5)
    #expect(pair.resolvedValue?.1 == "s")
  }
}
