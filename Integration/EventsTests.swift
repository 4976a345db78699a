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

  /// A consumer that stops early frees the connection: the server sees it closed, and no reconnection follows.
  @Test(arguments: Backend.allCases)
  func stoppingEarlyClosesTheConnection(_ backend: Backend) async throws {
    let key = UUID().uuidString
    let url = try await Servers.faults("/events?endless=1&key=\(key)")
    var events: [ServerSentEvent] = []
    for try await event in backend.transport.events(HTTPRequest(method: .get, url: url), reconnection: policy) {
      events.append(event)
      if events.count == 3 { break }
    }
    #expect(events.map(\.data) == ["1", "2", "3"])
    // The server's write fails once the client has closed (up to 20 s; no speed asserted).
    var closed = 0
    for _ in 0..<400 where closed == 0 {
      closed = try await Self.count("/events/closed", key: key, on: backend)
      if closed == 0 { try await Task.sleep(for: .milliseconds(50)) }
    }
    #expect(closed == 1, "the server never saw the event stream's connection closed")
    #expect(try await Self.count("/events", key: key, on: backend) == 1)
  }

  /// How many requests to `path` with `key` the fault server counted.
  private static func count(_ path: String, key: String, on backend: Backend) async throws -> Int {
    let exchange = try await backend.exchange(try await Servers.faults("/count?path=\(path)&key=\(key)"))
    return try #require(try exchange.json()["count"] as? Int)
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
