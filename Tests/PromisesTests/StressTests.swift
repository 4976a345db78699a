import Dispatch
import MalibuPromises
import Synchronization
import Testing

@Suite("Stress")
struct StressTests {
  /// Callback counts of one promise, updated from any thread.
  final class Hits: Sendable {
    let done = Atomic<Int>(0)
    let fail = Atomic<Int>(0)
  }

  @Test func hundredThousandPromisesSettledAndObservedConcurrently() {
    let count = 100_000
    let promises = (0..<count).map { _ in Promise<Int>() }
    let hits = (0..<count).map { _ in Hits() }
    let totalCallbacks = Atomic<Int>(0)
    // Even iterations settle promise k / 2, odd ones observe it: neighbouring iterations run on different threads
    // at about the same time, so settling and observing race on every promise.
    DispatchQueue.concurrentPerform(iterations: count * 2) { iteration in
      let index = iteration / 2
      let promise = promises[index]
      if iteration.isMultiple(of: 2) {
        if index.isMultiple(of: 2) { promise.resolve(index) } else { promise.reject(TestError(code: index)) }
      } else {
        promise
          .done { value in
            hits[value].done.add(1, ordering: .relaxed)
            totalCallbacks.add(1, ordering: .relaxed)
          }
          .fail { error in
            let code = (error as? TestError)?.code ?? 0
            hits[code].fail.add(1, ordering: .relaxed)
            totalCallbacks.add(1, ordering: .relaxed)
          }
      }
    }
    let done = hits.map { $0.done.load(ordering: .relaxed) }
    let fail = hits.map { $0.fail.load(ordering: .relaxed) }
    let wrongDone = (0..<count).filter { done[$0] != ($0.isMultiple(of: 2) ? 1 : 0) }
    let wrongFail = (0..<count).filter { fail[$0] != ($0.isMultiple(of: 2) ? 0 : 1) }
    #expect(wrongDone.isEmpty, "done callbacks lost or doubled for \(wrongDone.prefix(10))")
    #expect(wrongFail.isEmpty, "fail callbacks lost or doubled for \(wrongFail.prefix(10))")
    #expect(totalCallbacks.load(ordering: .relaxed) == count)
  }

  @Test func observersAddedConcurrentlyToOnePromiseAllRun() {
    let promise = Promise<Int>()
    let calls = Counter()
    let children = Locked<[Promise<Int>]>([])
    DispatchQueue.concurrentPerform(iterations: 20_000) { index in
      if index.isMultiple(of: 2) {
        promise.done { _ in calls.increment() }
      } else {
        let child = promise.then { $0 + index }
        children.withLock { $0.append(child) }
      }
    }
    promise.resolve(1)
    #expect(calls.value == 10_000)
    let settled = children.withLock { $0 }.filter { !$0.isPending }.count
    #expect(settled == 10_000)
  }
}
