import Dispatch
import MalibuPromises
import Testing

@Suite("Cancellation")
struct CancellationTests {
  @Test func cancelRunsEveryHookExactlyOnce() {
    let promise = Promise<Int>()
    let first = Counter()
    let second = Counter()
    promise.onCancel { first.increment() }
    promise.onCancel { second.increment() }
    promise.cancel()
    promise.cancel()
    #expect(first.value == 1)
    #expect(second.value == 1)
    #expect(promise.rejectedError is CancellationError)
  }

  @Test func hookAddedAfterCancelRunsAtOnce() {
    let promise = Promise<Int>()
    promise.cancel()
    let hook = Counter()
    promise.onCancel { hook.increment() }
    #expect(hook.value == 1)
  }

  @Test(
    "hooks never run when the promise settles otherwise",
    arguments: [true, false],
    [true, false]
  )
  func hooksSkippedAfterOtherSettlement(resolves: Bool, hookFirst: Bool) {
    let promise = Promise<Int>()
    let hook = Counter()
    if hookFirst { promise.onCancel { hook.increment() } }
    if resolves { promise.resolve(1) } else { promise.reject(TestError(code: 1)) }
    if !hookFirst { promise.onCancel { hook.increment() } }
    promise.cancel()
    #expect(hook.value == 0)
    #expect(!promise.isRejectedByCancellation)
  }

  @Test func cancellingRacingHooksRunOnce() {
    for _ in 0..<300 {
      let promise = Promise<Int>()
      let hooks = Counter()
      DispatchQueue.concurrentPerform(iterations: 8) { index in
        if index.isMultiple(of: 2) { promise.onCancel { hooks.increment() } } else { promise.cancel() }
      }
      #expect(hooks.value == 4)
    }
  }

  enum Link: String, CaseIterable, Sendable {
    case thenValue
    case thenPromise
    case recoverValue
    case recoverPromise
    case asVoid
    case doneFailAlways

    func derive(_ promise: Promise<Int>) -> Promise<Int> {
      switch self {
      case .thenValue: return promise.then { $0 + 1 }
      case .thenPromise: return promise.then { Promise(value: $0) }
      case .recoverValue: return promise.recover { _ in 0 }
      case .recoverPromise: return promise.recover { _ in Promise(value: 0) }
      case .asVoid: return promise.asVoid().then { 1 }
      case .doneFailAlways: return promise.done { _ in }.fail { _ in }.always { _ in }
      }
    }
  }

  @Test("cancelling the end of a chain reaches the source's onCancel", arguments: Link.allCases)
  func cancellationTravelsUpstream(link: Link) {
    let source = Promise<Int>()
    let hook = Counter()
    source.onCancel { hook.increment() }
    let end = link.derive(link.derive(link.derive(source)))
    end.cancel()
    #expect(hook.value == 1)
    #expect(source.isRejectedByCancellation)
    #expect(end.isRejectedByCancellation)
  }

  @Test func cancellingALongChainReachesTheSource() {
    let source = Promise<Int>()
    let hook = Counter()
    source.onCancel { hook.increment() }
    var end = source
    for _ in 0..<20_000 { end = end.then { $0 + 1 } }
    end.cancel()
    #expect(hook.value == 1)
  }

  @Test func cancellingTheSourceRejectsDerivedPromisesAndSiblings() {
    let source = Promise<Int>()
    let first = source.then { $0 + 1 }
    let second = source.then { $0 + 2 }
    let failures = Counter()
    let skipped = Counter()
    second.fail(policy: .allErrors) { _ in failures.increment() }.fail { _ in skipped.increment() }
    first.cancel()
    #expect(source.isRejectedByCancellation)
    #expect(first.isRejectedByCancellation)
    #expect(second.isRejectedByCancellation)
    #expect(failures.value == 1)
    #expect(skipped.value == 0)
  }

  @Test func cancellingAfterThePromiseReturningStepReachesTheInnerPromise() {
    let inner = Promise<Int>()
    let innerHook = Counter()
    inner.onCancel { innerHook.increment() }
    let source = Promise(value: 1)
    let chained = source.then { _ in inner }
    chained.cancel()
    #expect(innerHook.value == 1)
    #expect(inner.isRejectedByCancellation)
    #expect(source.resolvedValue == 1)
  }

  @Test func cancellingASettledChainChangesNothing() {
    let source = Promise<Int>()
    let hook = Counter()
    source.onCancel { hook.increment() }
    let end = source.then { $0 + 1 }
    source.resolve(1)
    end.cancel()
    #expect(end.resolvedValue == 2)
    #expect(hook.value == 0)
  }

  @Test func transformSkippedWhenCancelledWhileQueued() async {
    let queue = DispatchQueue(label: "malibu.promises.tests.blocked")
    let gate = DispatchSemaphore(value: 0)
    queue.async { gate.wait() }
    let ran = Counter()
    let source = Promise(value: 1)
    let derived = source.then(on: queue) { value -> Int in
      ran.increment()
      return value
    }
    derived.cancel()
    gate.signal()
    let flushed = Promise<Void>()
    queue.async { flushed.resolve() }
    _ = await outcome(of: flushed)
    #expect(ran.value == 0)
    #expect(derived.isRejectedByCancellation)
  }
}
