import Testing

@testable import Malibu

/// `NetworkingFlights`, the slots `cancelAllRequests()` reaches unfinished work through.
@Suite("Networking flights")
struct FlightsTests {
  /// A flight's promise and task, and whether the flight was cancelled: the promise rejected with `NetworkError`
  /// code `cancelled` and the task cancelled.
  final class Counted: Sendable {
    let promise = Promise<Int>()
    let task = Task<Void, Never> { try? await Task.sleep(for: .seconds(3600)) }
    var flight: NetworkingFlight { NetworkingFlight(promise: promise, task: task) }

    /// 1 when the flight was cancelled, 0 when neither its promise nor its task was touched; `nil` for half of it.
    var cancels: Int? {
      let rejected: Bool
      if case .rejected(let error) = promise.state {
        rejected = (error as? NetworkError)?.code == .cancelled
      } else {
        rejected = false
      }
      switch (rejected, task.isCancelled) {
      case (true, true): return 1
      case (false, false): return 0
      default: return nil
      }
    }

    deinit { task.cancel() }
  }

  @Test func aLateRemovalLeavesTheFlightThatReusedTheSlotAlone() {
    var flights = NetworkingFlights()
    let first = Counted()
    let second = Counted()
    let firstKey = flights.insert(first.flight)
    flights.remove(firstKey)
    let secondKey = flights.insert(second.flight)  // takes the slot the first one left
    flights.remove(firstKey)  // the first flight's removal arriving again, late
    let active = flights.removeAll()
    #expect(active.count == 1)
    for flight in active { flight.cancel() }
    #expect(first.cancels == 0)
    #expect(second.cancels == 1)
    flights.remove(secondKey)  // after removeAll: nothing left to remove, nothing breaks
    #expect(flights.removeAll().isEmpty)
  }

  /// A request answered before its flight is filled in (a mock with no delay lands its task before `request(_:)`
  /// returns): the slot it let go of stays empty, and a slot reserved and not filled yet is not a flight.
  @Test func aSlotLetGoOfBeforeItIsFilledStaysEmpty() {
    var flights = NetworkingFlights()
    let landed = Counted()
    let reserved = Counted()
    let landedKey = flights.reserve()
    flights.remove(landedKey)  // the task landed first
    let reservedKey = flights.reserve()  // another request takes the freed slot
    flights.fill(landedKey, with: landed.flight)  // late: must not take the other request's slot
    #expect(flights.removeAll().isEmpty)  // the other request's slot is reserved, not filled
    flights.fill(reservedKey, with: reserved.flight)  // after removeAll: gone too
    #expect(flights.removeAll().isEmpty)
    let kept = flights.reserve()
    flights.fill(kept, with: reserved.flight)
    let active = flights.removeAll()
    #expect(active.count == 1)
    for flight in active { flight.cancel() }
    #expect(landed.cancels == 0)
    #expect(reserved.cancels == 1)
  }

  @Test func slotsAreReusedAndEveryFlightStillInIsReturned() {
    var flights = NetworkingFlights()
    let counted = (0..<8).map { _ in Counted() }
    var keys = counted.map { flights.insert($0.flight) }
    for index in stride(from: 0, to: 8, by: 2) { flights.remove(keys[index]) }
    let refill = (0..<4).map { _ in Counted() }
    keys += refill.map { flights.insert($0.flight) }
    let active = flights.removeAll()
    #expect(active.count == 8)
    for flight in active { flight.cancel() }
    let cancelled = (counted + refill).map(\.cancels)
    #expect(cancelled == [0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 1, 1])
    // A removed key of a flight handed out by removeAll() changes nothing.
    for key in keys { flights.remove(key) }
    #expect(flights.removeAll().isEmpty)
  }
}

extension NetworkingFlights {
  /// Reserves a slot and fills it at once, as a request whose task has not landed yet.
  fileprivate mutating func insert(_ flight: NetworkingFlight) -> Key {
    let key = reserve()
    fill(key, with: flight)
    return key
  }
}
