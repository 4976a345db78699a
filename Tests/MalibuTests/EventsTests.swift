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

  // MARK: - Scripted event streams (MockEventStream)

  /// A stream that drops mid-event after event 2, sets `retry: 5`, and resumes with event 3.
  static let droppingScript = MockEventStream([
    .event(ServerSentEvent(data: "one", id: "1", retry: 5)),
    .pause(.milliseconds(5)),
    .event(ServerSentEvent(data: "two", id: "2")),
    .text("data: cut in the mi"),
    .drop,
    .text(": resumed\n"),
    .event(ServerSentEvent(data: "three", id: "3")),
  ])

  /// The policy's own delay is an hour: the test ends in time only if the server's `retry: 5` is honoured.
  static let retryOnly = EventReconnection(
    delay: .seconds(3600),
    jitter: 0,
    maximumDelay: .seconds(7200),
    maxAttempts: 2
  )

  @Test(.timeLimit(.minutes(1)))
  func reconnectsAfterAScriptedDropWithLastEventIDAfterTheRetry() async throws {
    let transport = MockTransport()
    transport.stub(.get, "/api/events", reply: .events(Self.droppingScript))
    let networking = Networking<Probe>(transport: .custom(transport))
    var seen: [String] = []
    for try await event in networking.events(Probe(.get("events")), reconnection: Self.retryOnly) {
      seen.append("\(event.id):\(event.data)")
    }
    #expect(seen == ["1:one", "2:two", "3:three"])
    let sent = transport.recordedRequests.map { $0.headerFields[HTTPField.Name("Last-Event-ID")!] }
    #expect(sent == [nil, "2", "3"], "the connection after the drop resumes at 2; the one after the end gets 204")
  }

  @Test(.timeLimit(.minutes(1)))
  func aMockProvidersScriptedStreamReconnectsThroughTheChain() async throws {
    let transport = MockTransport()
    let mocks = MockProvider<Probe> { _ in Mock(events: Self.droppingScript) }
    let networking = Networking<Probe>(mockProvider: mocks, transport: .custom(transport))
    let connections = Locked<[String?]>([])
    networking.preProcessRequest = { head in
      connections.withLock { $0.append(head.headerFields[HTTPField.Name("Last-Event-ID")!]) }
      return head
    }
    var seen: [String] = []
    for try await event in networking.events(Probe(.get("events")), reconnection: Self.retryOnly) {
      seen.append(event.data)
    }
    #expect(seen == ["one", "two", "three"])
    #expect(transport.recordedRequests.isEmpty, "the mock answered every connection")
    #expect(connections.withLock { $0 }.count == 3)
  }

  @Test func aScriptedDropWithoutReconnectionEndsWithTheResetError() async throws {
    let transport = MockTransport()
    transport.stub(.get, "/api/events", reply: .events(Self.droppingScript))
    let networking = Networking<Probe>(transport: .custom(transport))
    var seen: [String] = []
    let error = await #expect(throws: (any Error).self) {
      for try await event in networking.events(Probe(.get("events")), reconnection: .never) { seen.append(event.data) }
    }
    #expect(seen == ["one", "two"])
    let reset = (error as? TransportError) ?? ((error as? NetworkError)?.underlyingError as? TransportError)
    #expect(reset?.code == .connectionReset, "\(String(describing: error))")
    #expect(transport.recordedRequests.count == 1)
  }

  @Test func typedEventsOfAScriptedPOSTEndAtDone() async throws {
    let transport = MockTransport()
    let script = MockEventStream([
      .event(ServerSentEvent(data: #"{"text":"Hi"}"#)),
      .pause(.milliseconds(5)),
      .event(ServerSentEvent(data: #"{"text":" there"}"#)),
      .event(ServerSentEvent(data: "not json")),
      .event(ServerSentEvent(data: "[DONE]")),
      .event(ServerSentEvent(data: #"{"text":"never read"}"#)),
      .pause(.seconds(3600)),
    ])
    transport.stub(.post, "/api/complete", reply: .events(script))
    let networking = Networking<Probe>(transport: .custom(transport))
    var text = ""
    var undecodable: [String] = []
    let completion = Probe(.post("complete", parameters: ["prompt": "Name a shark", "stream": true]))
    for try await event in networking.events(completion, as: Chunk.self) {
      switch event {
      case .value(let chunk, _): text += chunk.text
      case .undecodable(let raw, _): undecodable.append(raw.data)
      }
    }
    #expect(text == "Hi there")
    #expect(undecodable == ["not json"])
    let request = try #require(transport.recordedRequests.first)
    #expect(transport.recordedRequests.count == 1)
    #expect(request.headerFields[.accept] == "text/event-stream")
    let body = try JSONSerialization.jsonObject(with: try #require(request.body)) as? [String: any Sendable]
    #expect(body?["prompt"] as? String == "Name a shark")
  }
}
