import Synchronization
import Testing

@testable import Malibu

/// `NetworkingFlights`, the slots `cancelAllRequests()` reaches unfinished work through.
@Suite("Networking flights")
struct FlightsTests {
  /// A flight that counts how often it is cancelled.
  final class Counted: Sendable {
    let cancels = Atomic<Int>(0)
    var flight: NetworkingFlight { NetworkingFlight { [self] in cancels.add(1, ordering: .relaxed) } }
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
    #expect(first.cancels.load(ordering: .relaxed) == 0)
    #expect(second.cancels.load(ordering: .relaxed) == 1)
    flights.remove(secondKey)  // after removeAll: nothing left to remove, nothing breaks
    #expect(flights.removeAll().isEmpty)
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
    let cancelled = (counted + refill).map { $0.cancels.load(ordering: .relaxed) }
    #expect(cancelled == [0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 1, 1])
    // A removed key of a flight handed out by removeAll() changes nothing.
    for key in keys { flights.remove(key) }
    #expect(flights.removeAll().isEmpty)
  }
}
