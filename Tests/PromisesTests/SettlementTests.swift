import Dispatch
import MalibuPromises
import Testing

@Suite("Settlement")
struct SettlementTests {
  enum Action: Sendable, CustomTestStringConvertible {
    case resolve(Int)
    case reject(Int)
    case cancel

    var testDescription: String {
      switch self {
      case .resolve(let value): return "resolve(\(value))"
      case .reject(let code): return "reject(\(code))"
      case .cancel: return "cancel"
      }
    }

    func apply(to promise: Promise<Int>) {
      switch self {
      case .resolve(let value): promise.resolve(value)
      case .reject(let code): promise.reject(TestError(code: code))
      case .cancel: promise.cancel()
      }
    }
  }

  @Test func initialStates() {
    #expect(Promise<Int>().isPending)
    #expect(Promise<Int>().result == nil)
    #expect(Promise(value: 3).resolvedValue == 3)
    #expect(Promise<Int>(error: TestError(code: 4)).rejectedError as? TestError == TestError(code: 4))
    guard case .resolved(let value) = Promise(value: "s").state else {
      Issue.record("expected resolved state")
      return
    }
    #expect(value == "s")
  }

  @Test(
    "the first settlement wins",
    arguments: [
      [Action.resolve(1), .resolve(2)],
      [.resolve(1), .reject(2)],
      [.resolve(1), .cancel],
      [.reject(1), .resolve(2)],
      [.reject(1), .cancel],
      [.cancel, .resolve(2)],
      [.cancel, .reject(2)],
    ]
  )
  func firstSettlementWins(actions: [Action]) {
    let promise = Promise<Int>()
    let calls = Counter()
    let hooks = Counter()
    promise.always { _ in calls.increment() }
    promise.onCancel { hooks.increment() }
    for action in actions { action.apply(to: promise) }

    #expect(calls.value == 1)
    switch actions[0] {
    case .resolve(let value):
      #expect(promise.resolvedValue == value)
      #expect(hooks.value == 0)
    case .reject(let code):
      #expect(promise.rejectedError as? TestError == TestError(code: code))
      #expect(hooks.value == 0)
    case .cancel:
      #expect(promise.rejectedError is CancellationError)
      #expect(hooks.value == 1)
    }
  }

  @Test func voidPromiseResolvesWithoutArgument() {
    let plain = Promise<Void>()
    plain.resolve()
    #expect(plain.resolvedValue != nil)
    let explicit = Promise<Void>()
    explicit.resolve(())
    #expect(explicit.resolvedValue != nil)
    let fromCallbacks = Promise<Void> { resolve, _ in resolve(()) }
    #expect(fromCallbacks.resolvedValue != nil)
  }

  @Test func callbacksInitializerResolves() {
    let promise = Promise<Int> { resolve, _ in resolve(5) }
    #expect(promise.resolvedValue == 5)
  }

  @Test func callbacksInitializerRejects() {
    let promise = Promise<Int> { _, reject in reject(TestError(code: 6)) }
    #expect(promise.rejectedError as? TestError == TestError(code: 6))
  }

  @Test func callbacksInitializerThrowingBodyRejects() {
    let promise = Promise<Int> { _, _ in throw TestError(code: 7) }
    #expect(promise.rejectedError as? TestError == TestError(code: 7))
  }

  @Test func callbacksInitializerThrowAfterResolveKeepsValue() {
    let promise = Promise<Int> { resolve, _ in
      resolve(8)
      throw TestError(code: 9)
    }
    #expect(promise.resolvedValue == 8)
  }

  @Test func callbacksInitializerSettlesLater() async {
    let promise = Promise<Int> { resolve, _ in
      DispatchQueue.global().async { resolve(10) }
    }
    #expect(await outcome(of: promise).success == 10)
  }

  @Test("racing resolve, reject and cancel settle exactly once", arguments: 0..<4)
  func racingSettlement(batch: Int) {
    for round in 0..<500 {
      let promise = Promise<Int>()
      let always = Counter()
      let outcomes = Recorder<Result<Int, any Error>>()
      let hooks = Counter()
      promise.always { result in
        always.increment()
        outcomes.append(result)
      }
      promise.onCancel { hooks.increment() }
      DispatchQueue.concurrentPerform(iterations: 12) { index in
        switch (index + round + batch) % 3 {
        case 0: promise.resolve(index)
        case 1: promise.reject(TestError(code: index))
        default: promise.cancel()
        }
      }
      #expect(always.value == 1)
      let observed = outcomes.values.first
      switch (observed, promise.result) {
      case (.success(let seen), .success(let stored)?):
        #expect(seen == stored)
        #expect(hooks.value == 0)
      case (.failure(let seen), .failure(let stored)?):
        #expect(String(describing: seen) == String(describing: stored))
        #expect(hooks.value == (seen is CancellationError ? 1 : 0))
      default:
        Issue.record("callback saw \(String(describing: observed)), state is \(String(describing: promise.result))")
      }
    }
  }
}
