/// Waits for every promise of an array.
///
/// ```swift
/// let all: Promise<[Int]> = when([first, second, third])
/// ```
/// - Parameter promises: The promises to wait for; an empty array gives a promise resolved with `[]`.
/// - Returns: A promise resolved with the values in the order of `promises`, or rejected with the first rejection
///   (the other promises keep running). Cancelling it cancels every promise of `promises`.
public func when<Value: Sendable>(_ promises: [Promise<Value>]) -> Promise<[Value]> {
  guard !promises.isEmpty else { return Promise(value: []) }
  let combined = Promise<[Value]>()
  let slots = Shared((values: [Value?](repeating: nil, count: promises.count), remaining: promises.count))
  var work = Worklist()
  combined.addCancelHandler(
    { work in
      for promise in promises { promise.cancel(into: &work) }
    },
    into: &work
  )
  for (index, promise) in promises.enumerated() {
    promise.observe(into: &work) { result, work in
      switch result {
      case .success(let value):
        let values: [Value]? = slots.withLock { slots in
          slots.values[index] = value
          slots.remaining -= 1
          guard slots.remaining == 0 else { return nil }
          return slots.values.map { $0! }
        }
        if let values { combined.settle(.success(values), into: &work) }
      case .failure(let error):
        combined.settle(.failure(error), into: &work)
      }
    }
  }
  work.drain()
  return combined
}

/// Waits for two promises of any types.
///
/// ```swift
/// let pair: Promise<(User, [Board])> = when(fetchUser(), fetchBoards())
/// ```
/// - Parameters:
///   - first: The first promise.
///   - second: The second promise.
/// - Returns: A promise resolved with both values, or rejected with the first rejection. Cancelling it cancels both
///   promises.
public func when<A: Sendable, B: Sendable>(_ first: Promise<A>, _ second: Promise<B>) -> Promise<(A, B)> {
  let combined = Promise<(A, B)>()
  let slots = Shared<(A?, B?)>((nil, nil))
  var work = Worklist()
  combined.addCancelHandler(
    { work in
      first.cancel(into: &work)
      second.cancel(into: &work)
    },
    into: &work
  )
  first.observe(into: &work) { result, work in
    switch result {
    case .success(let value):
      let pair = slots.withLock { slots in
        slots.0 = value
        return slots.1.map { (value, $0) }
      }
      if let pair { combined.settle(.success(pair), into: &work) }
    case .failure(let error):
      combined.settle(.failure(error), into: &work)
    }
  }
  second.observe(into: &work) { result, work in
    switch result {
    case .success(let value):
      let pair = slots.withLock { slots in
        slots.1 = value
        return slots.0.map { ($0, value) }
      }
      if let pair { combined.settle(.success(pair), into: &work) }
    case .failure(let error):
      combined.settle(.failure(error), into: &work)
    }
  }
  work.drain()
  return combined
}

/// Waits for three promises of any types.
///
/// ```swift
/// let triple: Promise<(Int, String, Bool)> = when(count, name, flag)
/// ```
/// - Parameters:
///   - first: The first promise.
///   - second: The second promise.
///   - third: The third promise.
/// - Returns: A promise resolved with the three values, or rejected with the first rejection. Cancelling it cancels
///   all three promises.
public func when<A: Sendable, B: Sendable, C: Sendable>(
  _ first: Promise<A>,
  _ second: Promise<B>,
  _ third: Promise<C>
) -> Promise<(A, B, C)> {
  when(when(first, second), third).then { pair, third in (pair.0, pair.1, third) }
}
