import MalibuPromises
import Testing

@Suite("when")
struct WhenTests {
  @Test(
    "when keeps the input order whatever the settlement order",
    arguments: [[0, 1, 2, 3], [3, 2, 1, 0], [2, 0, 3, 1]]
  )
  func keepsOrder(settlementOrder: [Int]) {
    let inputs = (0..<4).map { _ in Promise<Int>() }
    let all = when(inputs)
    for index in settlementOrder {
      #expect(all.isPending)
      inputs[index].resolve(index * 10)
    }
    #expect(all.resolvedValue == [0, 10, 20, 30])
  }

  @Test func rejectsOnTheFirstRejection() {
    let inputs = (0..<3).map { _ in Promise<Int>() }
    let all = when(inputs)
    inputs[0].resolve(1)
    inputs[2].reject(TestError(code: 2))
    inputs[1].reject(TestError(code: 1))
    #expect(all.rejectedError as? TestError == TestError(code: 2))
  }

  @Test func emptyArrayResolvesToEmpty() {
    #expect(when([Promise<Int>]()).resolvedValue == [])
  }

  @Test func alreadySettledInputs() {
    #expect(when([Promise(value: 1), Promise(value: 2)]).resolvedValue == [1, 2])
  }

  @Test func pairResolves() {
    let first = Promise<Int>()
    let second = Promise<String>()
    let pair = when(first, second)
    second.resolve("b")
    #expect(pair.isPending)
    first.resolve(1)
    #expect(pair.resolvedValue?.0 == 1)
    #expect(pair.resolvedValue?.1 == "b")
  }

  @Test("pair rejects with whichever input fails first", arguments: [0, 1])
  func pairRejects(failing: Int) {
    let first = Promise<Int>()
    let second = Promise<String>()
    let pair = when(first, second)
    if failing == 0 { first.reject(TestError(code: 0)) } else { second.reject(TestError(code: 1)) }
    #expect(pair.rejectedError as? TestError == TestError(code: failing))
  }

  @Test func tripleResolvesAndRejects() {
    let triple = when(Promise(value: 1), Promise(value: "two"), Promise(value: true))
    #expect(triple.resolvedValue?.0 == 1)
    #expect(triple.resolvedValue?.1 == "two")
    #expect(triple.resolvedValue?.2 == true)
    let third = Promise<Bool>()
    let failing = when(Promise(value: 1), Promise<String>(), third)
    third.reject(TestError(code: 3))
    #expect(failing.rejectedError as? TestError == TestError(code: 3))
  }

  @Test("cancelling the result of when cancels the inputs", arguments: [1, 2, 3, 5])
  func cancellationReachesInputs(arity: Int) {
    let inputs = (0..<arity).map { _ in Promise<Int>() }
    let hooks = Counter()
    for input in inputs { input.onCancel { hooks.increment() } }
    switch arity {
    case 2: when(inputs[0], inputs[1]).cancel()
    case 3: when(inputs[0], inputs[1], inputs[2]).cancel()
    default: when(inputs).cancel()
    }
    #expect(hooks.value == arity)
    #expect(inputs.allSatisfy { $0.isRejectedByCancellation })
  }
}
