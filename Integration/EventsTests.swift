import Foundation
import HTTPTypes
import Malibu
import MalibuTransport
import Testing

/// Server-sent events on both transports against the fault server's `/events` route: a drop mid-event, the
/// reconnection after the server's `retry` with the right `Last-Event-ID`, a clean end, then 204; through the
/// transport and through the facade.
@Suite("Server-sent events")
struct EventsTests {
  private let policy = EventReconnection(delay: .milliseconds(20), jitter: 0, maxAttempts: 3)

  @Test(arguments: Backend.allCases)
  func resumesAfterADropWithTheLastEventID(_ backend: Backend) async throws {
    let url = try await Servers.faults("/events")
    let clock = ContinuousClock()
    let start = clock.now
    var events: [ServerSentEvent] = []
    for try await event in backend.transport.events(HTTPRequest(method: .get, url: url), reconnection: policy) {
      events.append(event)
    }
    // The server answers 409 to any other Last-Event-ID, which would end the sequence with an EventStreamError.
    #expect(events.map(\.data) == ["one", "two", "three"])
    #expect(events.map(\.id) == ["1", "2", "3"])
    #expect(events.first?.retry == 300)
    // Two reconnections (after the drop, after the clean end), each after the server's 300 ms (a lower bound only).
    #expect(clock.now - start >= .milliseconds(600))
  }

  @Test(arguments: Backend.allCases)
  func resumesThroughTheFacade(_ backend: Backend) async throws {
    try await FaultServer.start()
    let networking = Networking<FaultRoute>(transport: backend.kind)
    var events: [ServerSentEvent] = []
    for try await event in networking.events(.route("events"), reconnection: policy) { events.append(event) }
    #expect(events.map(\.data) == ["one", "two", "three"])
    #expect(events.map(\.id) == ["1", "2", "3"])
  }

  @Test(arguments: Backend.allCases)
  func refusesAWrongContentType(_ backend: Backend) async throws {
    let url = try await Servers.faults("/events?type=json")
    let error = await #expect(throws: EventStreamError.self) {
      for try await _ in backend.transport.events(HTTPRequest(method: .get, url: url), reconnection: policy) {}
    }
    #expect(error?.code == .unexpectedContentType)
    #expect(error?.message.contains("application/json") == true)
  }
}
