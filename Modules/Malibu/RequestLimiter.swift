@_spi(Malibu) import MalibuCore

/// The mode's queue: hands out at most `limit` slots at a time, in the order places were reserved.
///
/// A request reserves its place synchronously, when `request(_:)` is called, so the order of the calls is the order
/// of the queue; its task then waits for the slot. A waiter whose task is cancelled leaves the queue at once with
/// `CancellationError` and never holds a slot. Whoever returns from ``wait(for:)`` holds a slot and must call
/// ``release()`` exactly once.
final class RequestLimiter: Sendable {
  /// A place in the queue.
  struct Ticket: Sendable {
    fileprivate let id: UInt64
  }

  private struct Waiter {
    let id: UInt64
    var continuation: CheckedContinuation<Void, any Error>?
  }

  private struct State {
    var running = 0
    var nextID: UInt64 = 0
    var waiting: [Waiter] = []
    /// Tickets given a slot before their task started waiting.
    var granted: Set<UInt64> = []
  }

  /// The most slots held at once, or `nil` for no limit.
  let limit: Int?
  private let state = Locked(State())

  init(limit: Int?) {
    self.limit = limit
  }

  /// Takes a place at the end of the queue (or a free slot at once).
  func reserve() -> Ticket {
    state.withLock { state in
      state.nextID &+= 1
      let id = state.nextID
      guard let limit else { return Ticket(id: id) }
      if state.running < limit && state.waiting.isEmpty {
        state.running += 1
        state.granted.insert(id)
      } else {
        state.waiting.append(Waiter(id: id))
      }
      return Ticket(id: id)
    }
  }

  /// Waits until the ticket holds a slot.
  /// - Throws: `CancellationError` when the task is cancelled while the ticket is still waiting.
  func wait(for ticket: Ticket) async throws {
    guard limit != nil else { return }
    let id = ticket.id
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        // Decided under the lock: the cancellation flag is set before the handler below runs, and the handler takes
        // the same lock, so a cancellation is seen either here or there.
        let outcome: Result<Void, any Error>? = state.withLock { state in
          if state.granted.remove(id) != nil { return .success(()) }
          guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return .success(()) }
          if Task.isCancelled {
            state.waiting.remove(at: index)
            return .failure(CancellationError())
          }
          state.waiting[index].continuation = continuation
          return nil
        }
        if let outcome { continuation.resume(with: outcome) }
      }
    } onCancel: {
      let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
        guard let index = state.waiting.firstIndex(where: { $0.id == id }),
          let continuation = state.waiting[index].continuation
        else { return nil }
        state.waiting.remove(at: index)
        return continuation
      }
      continuation?.resume(throwing: CancellationError())
    }
  }

  /// Gives up a ticket whose task will never wait for it (a request failed before its turn): its place in the queue,
  /// or the slot it was granted.
  func abandon(_ ticket: Ticket) {
    guard limit != nil else { return }
    let held = state.withLock { state -> Bool in
      if state.granted.remove(ticket.id) != nil { return true }
      state.waiting.removeAll { $0.id == ticket.id }
      return false
    }
    if held { release() }
  }

  /// Gives a slot back: to the first waiter, or to the pool.
  func release() {
    guard limit != nil else { return }
    let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
      guard !state.waiting.isEmpty else {
        state.running -= 1
        return nil
      }
      let waiter = state.waiting.removeFirst()
      if waiter.continuation == nil { state.granted.insert(waiter.id) }
      return waiter.continuation
    }
    next?.resume()
  }
}
