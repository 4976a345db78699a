import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuCore
import MalibuTestSupport
import Testing

@testable import Malibu

/// `Networking.events(_:)` on MockTransport: every connection passes the facade's path and reconnections carry
/// `Last-Event-ID`.
@Suite("Networking events")
struct EventsTests {
  private static let eventHeaders: HTTPFields = [.contentType: "text/event-stream"]
  private let quick = EventReconnection(delay: .milliseconds(10), jitter: 0, maxAttempts: 2)

  /// A transport whose `/api/events` answers the scripted bodies in turn, then 204.
  private func networking(_ bodies: [String], status: HTTPResponse.Status = .ok) -> (Networking<Probe>, MockTransport) {
    let transport = MockTransport()
    let remaining = Locked(bodies)
    transport.stub(.get, "/api/events") { _ in
      guard let body = remaining.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else {
        return MockTransport.Reply(status: .noContent)
      }
      return MockTransport.Reply(status: status, headerFields: Self.eventHeaders, body: Data(body.utf8))
    }
    transport.stub(.post, "/api/complete", headerFields: Self.eventHeaders, body: Data(bodies.joined().utf8))
    return (Networking<Probe>(transport: .custom(transport)), transport)
  }

  @Test func reconnectsWithLastEventIDThroughTheFacade() async throws {
    let (networking, transport) = networking(["id: 1\ndata: a\n\nid: 2\ndata: b\n\ndata: cut", "data: c\n\n"])
    networking.beforeEach = { request in request.adding(headers: ["X-Hook": "yes"]) }
    var seen: [String] = []
    for try await event in networking.events(Probe(.get("events")), reconnection: quick) { seen.append(event.data) }
    #expect(seen == ["a", "b", "c"])
    let requests = transport.recordedRequests
    #expect(requests.count == 3)
    #expect(requests.map { $0.headerFields[HTTPField.Name("Last-Event-ID")!] } == [nil, "2", "2"])
    #expect(requests.allSatisfy { $0.headerFields[.accept] == "text/event-stream" })
    #expect(requests.allSatisfy { $0.headerFields[HTTPField.Name("X-Hook")!] == "yes" })
  }

  @Test func refusesANonSuccessStatusNamingIt() async throws {
    let (networking, _) = networking(["data: a\n\n"], status: .serviceUnavailable)
    let error = await #expect(throws: EventStreamError.self) {
      for try await _ in networking.events(Probe(.get("events")), reconnection: quick) {}
    }
    #expect(error?.code == .unexpectedStatus)
    #expect(error?.message.contains("503") == true)
  }

  @Test func plainRequestsCarryNoEventFields() async throws {
    let (networking, transport) = networking([])
    _ = try? await networking.request(Probe(.get("events"))).value
    #expect(transport.recordedRequests.first?.headerFields[.accept] == "application/json")
    #expect(transport.recordedRequests.first?.headerFields[HTTPField.Name("Last-Event-ID")!] == nil)
  }

  /// A request that a connection's middleware gate makes on another networking (a token fetch, say) is a plain
  /// request: the event-stream fields belong to the connection's own head only.
  @Test func requestsMadeWhileConnectingCarryNoEventFields() async throws {
    let (networking, _) = networking(["id: 7\ndata: a\n\n"])
    let tokens = MockTransport()
    tokens.stub(.get, "/api/token", headerFields: [.contentType: "application/json"], body: Data("{}".utf8))
    let tokenNetworking = Networking<Probe>(transport: .custom(tokens))
    networking.middleware = { gate in
      Task {
        _ = try? await tokenNetworking.request(Probe(.get("token"))).value
        gate.resolve()
      }
    }
    var seen: [String] = []
    for try await event in networking.events(Probe(.get("events")), reconnection: quick) { seen.append(event.data) }
    #expect(seen == ["a"])
    let tokenRequests = tokens.recordedRequests
    #expect(tokenRequests.count == 2)  // one per connection: the first, and the one answered 204
    #expect(tokenRequests.allSatisfy { $0.headerFields[.accept] == "application/json" })
    #expect(tokenRequests.allSatisfy { $0.headerFields[HTTPField.Name("Last-Event-ID")!] == nil })
  }

  struct Chunk: Decodable, Sendable, Equatable {
    let text: String
  }

  @Test func typedEventsUseTheNetworkingsDecoderAndStopAtDone() async throws {
    let (networking, transport) = networking([
      "data: {\"text\":\"Hi\"}\n\n", "data: oops\n\n", "data: [DONE]\n\n", "data: {\"text\":\"late\"}\n\n",
    ])
    var values: [Chunk] = []
    var undecodable: [String] = []
    for try await event in networking.events(Probe(.post("complete", parameters: ["stream": true])), as: Chunk.self) {
      switch event {
      case .value(let chunk, _): values.append(chunk)
      case .undecodable(let raw, _): undecodable.append(raw.data)
      }
    }
    #expect(values == [Chunk(text: "Hi")])
    #expect(undecodable == ["oops"])
    #expect(transport.recordedRequests.count == 1)  // a POST does not reconnect by default
  }
}
