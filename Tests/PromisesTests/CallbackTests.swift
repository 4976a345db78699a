import Dispatch
import MalibuPromises
import Testing

@Suite("Callbacks")
struct CallbackTests {
  enum Outcome: String, Sendable, CaseIterable {
    case value
    case failure
    case cancellation
    case markedCancellation
    case unmarkedTransferError

    func settle(_ promise: Promise<Int>) {
      switch self {
      case .value: promise.resolve(1)
      case .failure: promise.reject(TestError(code: 1))
      case .cancellation: promise.cancel()
      case .markedCancellation: promise.reject(TransferError(cancelled: true))
      case .unmarkedTransferError: promise.reject(TransferError(cancelled: false))
      }
    }

    var isCancellation: Bool {
      self == .cancellation || self == .markedCancellation
    }
  }

  @Test(
    "done, fail and always see the right outcomes, whether attached before or after settlement",
    arguments: Outcome.allCases,
    [false, true]
  )
  func callbacksSeeOutcome(outcome: Outcome, attachAfterSettlement: Bool) {
    let promise = Promise<Int>()
    if attachAfterSettlement { outcome.settle(promise) }
    let done = Counter()
    let fail = Counter()
    let failAll = Counter()
    let always = Counter()
    promise
      .done { _ in done.increment() }
      .fail { _ in fail.increment() }
      .fail(policy: .allErrors) { _ in failAll.increment() }
      .always { _ in always.increment() }
    if !attachAfterSettlement {
      #expect(always.value == 0)
      outcome.settle(promise)
    }
    #expect(done.value == (outcome == .value ? 1 : 0))
    #expect(fail.value == (outcome == .value || outcome.isCancellation ? 0 : 1))
    #expect(failAll.value == (outcome == .value ? 0 : 1))
    #expect(always.value == 1)
  }

  @Test(
    "isCancellationError",
    arguments: [
      (CancellationError() as any Error, true),
      (TransferError(cancelled: true), true),
      (TransferError(cancelled: false), false),
      (TestError(code: 1), false),
    ]
  )
  func cancellationDetection(error: any Error, expected: Bool) {
    #expect(isCancellationError(error) == expected)
  }

  @Test func chainedCallbacksReturnTheSamePromise() {
    let promise = Promise<Int>()
    #expect(promise.done { _ in } === promise)
    #expect(promise.fail { _ in } === promise)
    #expect(promise.always { _ in } === promise)
  }

  @Test func fiftyThenChildrenAllSettle() {
    let promise = Promise<Int>()
    let children = (0..<50).map { offset in promise.then { $0 + offset } }
    let calls = Counter()
    for child in children { child.done { _ in calls.increment() } }
    #expect(children.allSatisfy { $0.isPending })
    promise.resolve(100)
    #expect(calls.value == 50)
    #expect(children.map(\.resolvedValue) == (0..<50).map { 100 + $0 })
  }

  @Test func observersOfOnePromiseRunInOrder() {
    let promise = Promise<Int>()
    let order = Recorder<Int>()
    for index in 0..<20 { promise.done { _ in order.append(index) } }
    promise.resolve(0)
    #expect(order.values == Array(0..<20))
  }

  @Test func aSettledPromisesObserversAllRunBeforeThoseOfThePromisesTheySettle() {
    let promise = Promise<Int>()
    let order = Recorder<String>()
    let first = promise.then { value -> Int in
      order.append("then 1")
      return value + 1
    }
    promise.done { _ in order.append("done") }
    let second = promise.then { value -> Int in
      order.append("then 2")
      return value + 2
    }
    first.done { order.append("first \($0)") }
    second.done { order.append("second \($0)") }
    promise.always { _ in order.append("always") }
    promise.resolve(10)
    #expect(order.values == ["then 1", "done", "then 2", "always", "first 11", "second 12"])
  }

  @Test func callbackMayUseItsPromise() {
    let promise = Promise<Int>()
    let seen = Recorder<Int?>()
    promise.done { _ in
      seen.append(promise.resolvedValue)
      promise.done { seen.append($0) }
    }
    promise.resolve(4)
    #expect(seen.values == [4, 4])
  }

  @Test("callbacks given a queue run on it", arguments: [false, true])
  func callbacksRunOnGivenQueue(settleFirst: Bool) async {
    let queue = DispatchQueue(label: "malibu.promises.tests.callbacks")
    let key = DispatchSpecificKey<Int>()
    queue.setSpecific(key: key, value: 42)
    let markers = Recorder<String>()
    let finished = Promise<Void>()
    let remaining = Counter()
    @Sendable func record(_ name: String) {
      markers.append("\(name):\(DispatchQueue.getSpecific(key: key) ?? 0)")
      remaining.increment()
      if remaining.value == 5 { finished.resolve() }
    }
    let promise = Promise<Int>()
    let failing = Promise<Int>()
    if settleFirst {
      promise.resolve(1)
      failing.reject(TestError(code: 1))
    }
    promise.done(on: queue) { _ in record("done") }.always(on: queue) { _ in record("always") }
    _ = promise.then(on: queue) { value -> Int in
      record("then")
      return value
    }
    .recover(on: queue) { _ in 0 }
    failing.fail(on: queue) { _ in record("fail") }
    failing.recover(on: queue) { _ -> Int in
      record("recover")
      return 0
    }
    .done { _ in }
    if !settleFirst {
      promise.resolve(1)
      failing.reject(TestError(code: 1))
    }
    _ = await outcome(of: finished)
    #expect(markers.values.sorted() == ["always:42", "done:42", "fail:42", "recover:42", "then:42"])
  }

  @Test func defaultCallbacksRunOnTheSettlingThread() async {
    let queue = DispatchQueue(label: "malibu.promises.tests.settler")
    let key = DispatchSpecificKey<Int>()
    queue.setSpecific(key: key, value: 7)
    let promise = Promise<Int>()
    let seen = Promise<Int?>()
    promise.then { $0 * 2 }.done { _ in seen.resolve(DispatchQueue.getSpecific(key: key)) }
    queue.async { promise.resolve(1) }
    #expect(await outcome(of: seen).success == 7)
  }
}
