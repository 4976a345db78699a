import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuCore
import MalibuTransport
import Testing

/// A transport that answers each request with the next scripted event stream: a head, chunks, then a clean end, a
/// dropped connection, or silence. It records the requests and whether each body was closed.
private final class ScriptedEventTransport: Transport {
  enum Ending: Sendable {
    case clean
    case drop
    case hang
  }

  struct Script: Sendable {
    var status: HTTPResponse.Status = .ok
    var contentType: String? = "text/event-stream"
    var chunks: [String] = []
    var ending = Ending.clean
    var failure: (any Error)?
  }

  private struct State {
    var scripts: [Script]
    var requests: [HTTPRequest] = []
    var closed: [Bool] = []
  }

  private let state: Locked<State>

  init(_ scripts: [Script]) {
    state = Locked(State(scripts: scripts))
  }

  var requests: [HTTPRequest] { state.withLock { $0.requests } }
  var lastEventIDs: [String?] { requests.map { $0.headerFields[HTTPField.Name("Last-Event-ID")!] } }
  var closed: [Bool] { state.withLock { $0.closed } }

  func send(_ request: HTTPRequest, body: RequestBody?, options: TransferOptions) async throws -> TransportResponse {
    let (script, index) = state.withLock { state -> (Script, Int) in
      state.requests.append(request)
      state.closed.append(false)
      let script = state.scripts.isEmpty ? Script(status: .noContent) : state.scripts.removeFirst()
      return (script, state.closed.count - 1)
    }
    if let failure = script.failure { throw failure }
    var fields = HTTPFields()
    if let contentType = script.contentType { fields[.contentType] = contentType }
    let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
    for chunk in script.chunks { continuation.yield(Data(chunk.utf8)) }
    switch script.ending {
    case .clean: continuation.finish()
    case .drop: continuation.finish(throwing: TransportError(code: .connectionReset, message: "reset"))
    case .hang: break
    }
    continuation.onTermination = { [state] _ in state.withLock { $0.closed[index] = true } }
    return TransportResponse(
      head: HTTPResponse(status: script.status, headerFields: fields),
      url: nil,
      body: ResponseBody(chunks: stream)
    )
  }
}

@Suite("ServerSentEvents: connections and reconnection")
struct ServerSentEventsTests {
  private let request = HTTPRequest(method: .get, url: URL(string: "http://127.0.0.1:1/events")!)
  /// Fast reconnections for tests: no jitter, 10 ms unless the server says otherwise.
  private let quick = EventReconnection(delay: .milliseconds(10), jitter: 0, maxAttempts: 2)

  private func collect(_ events: ServerSentEvents) async throws -> [ServerSentEvent] {
    var all: [ServerSentEvent] = []
    for try await event in events { all.append(event) }
    return all
  }

  @Test func reconnectsAfterADropWithTheLastEventID() async throws {
    let transport = ScriptedEventTransport([
      .init(chunks: ["retry: 20\nid: 1\ndata: a\n\nid: 2\nda", "ta: b\n\ndata: partial"], ending: .drop),
      .init(chunks: ["data: c\n\n"], ending: .clean),
      .init(status: .noContent, contentType: nil),
    ])
    let events = try await collect(transport.events(request, reconnection: quick))
    #expect(events.map(\.data) == ["a", "b", "c"])
    #expect(events.map(\.id) == ["1", "2", "2"])
    #expect(events[0].retry == 20)
    #expect(transport.lastEventIDs == [nil, "2", "2"])
    #expect(transport.requests.allSatisfy { $0.headerFields[.accept] == "text/event-stream" })
    #expect(transport.requests.allSatisfy { $0.headerFields[.cacheControl] == "no-store" })
  }

  @Test func waitsTheServersRetry() async throws {
    let transport = ScriptedEventTransport([
      .init(chunks: ["retry: 300\ndata: a\n\n"], ending: .drop),
      .init(status: .noContent, contentType: nil),
    ])
    let clock = ContinuousClock()
    let start = clock.now
    let events = try await collect(transport.events(request, reconnection: quick))
    #expect(events.map(\.data) == ["a"])
    // The server's 300 ms, not the policy's 10 ms (a lower bound only: tests do not assert speed).
    #expect(clock.now - start >= .milliseconds(300))
  }

  @Test func noContentEndsWithoutReconnecting() async throws {
    let transport = ScriptedEventTransport([
      .init(status: .noContent, contentType: nil), .init(chunks: ["data: x\n\n"]),
    ])
    #expect(try await collect(transport.events(request, reconnection: quick)).isEmpty)
    #expect(transport.requests.count == 1)
  }

  @Test(arguments: [
    (HTTPResponse.Status.notFound, "text/event-stream", EventStreamError.Code.unexpectedStatus, "404"),
    (.internalServerError, "text/event-stream", .unexpectedStatus, "500"),
    (.ok, "application/json", .unexpectedContentType, "application/json"),
    (.ok, "text/plain; charset=utf-8", .unexpectedContentType, "text/plain"),
  ])
  func refusesAWrongStatusOrContentType(
    status: HTTPResponse.Status,
    contentType: String,
    code: EventStreamError.Code,
    named: String
  ) async throws {
    let transport = ScriptedEventTransport([.init(status: status, contentType: contentType, chunks: ["data: x\n\n"])])
    let error = await #expect(throws: EventStreamError.self) {
      _ = try await collect(transport.events(request, reconnection: quick))
    }
    #expect(error?.code == code)
    #expect(error?.message.contains(named) == true)
    #expect(transport.requests.count == 1)
  }

  @Test func missingContentTypeRefused() async throws {
    let transport = ScriptedEventTransport([.init(contentType: nil, chunks: ["data: x\n\n"])])
    let error = await #expect(throws: EventStreamError.self) {
      _ = try await collect(transport.events(request, reconnection: quick))
    }
    #expect(error?.code == .unexpectedContentType)
    #expect(error?.message.contains("none") == true)
  }

  @Test func contentTypeWithParametersAccepted() async throws {
    let transport = ScriptedEventTransport([
      .init(contentType: "Text/Event-Stream; charset=utf-8", chunks: ["data: x\n\n"])
    ])
    let events = try await collect(transport.events(request, reconnection: .never))
    #expect(events.map(\.data) == ["x"])
  }

  @Test func aRequestWithABodyDoesNotReconnectByDefault() async throws {
    let transport = ScriptedEventTransport([
      .init(chunks: ["data: a\n\n"], ending: .drop), .init(chunks: ["data: b\n\n"]),
    ])
    var seen: [String] = []
    let error = await #expect(throws: TransportError.self) {
      for try await event in transport.events(request, body: .data(Data("{}".utf8)), reconnection: quick) {
        seen.append(event.data)
      }
    }
    #expect(error?.code == .connectionReset)
    #expect(seen == ["a"])
    #expect(transport.requests.count == 1)
  }

  @Test func aRequestWithABodyReconnectsWhenThePolicySaysSo() async throws {
    let transport = ScriptedEventTransport([
      .init(chunks: ["data: a\n\n"], ending: .drop), .init(chunks: ["data: b\n\n"]),
    ])
    var policy = quick
    policy.reconnectsWithBody = true
    let events = try await collect(transport.events(request, body: .data(Data("{}".utf8)), reconnection: policy))
    #expect(events.map(\.data) == ["a", "b"])
  }

  @Test func givesUpAfterMaxAttempts() async throws {
    let failure = TransportError(code: .connectionRefused, message: "refused")
    let transport = ScriptedEventTransport(Array(repeating: .init(failure: failure), count: 5))
    let error = await #expect(throws: TransportError.self) {
      _ = try await collect(transport.events(request, reconnection: quick))
    }
    #expect(error?.code == .connectionRefused)
    #expect(transport.requests.count == 3)  // the first attempt and two reconnections
  }

  @Test func aRefusedRequestIsNotRetried() async throws {
    let failure = TransportError(code: .insecureScheme, message: "http refused")
    let transport = ScriptedEventTransport(Array(repeating: .init(failure: failure), count: 3))
    let error = await #expect(throws: TransportError.self) {
      _ = try await collect(transport.events(request, reconnection: quick))
    }
    #expect(error?.code == .insecureScheme)
    #expect(transport.requests.count == 1)
  }

  @Test func aNetworkErrorWrappingAResetIsRetried() async throws {
    let reset = TransportError(code: .connectionReset, message: "reset")
    let wrapped = NetworkError(code: .transportFailed, message: "failed", underlyingError: reset)
    let transport = ScriptedEventTransport([.init(failure: wrapped), .init(chunks: ["data: a\n\n"])])
    #expect(try await collect(transport.events(request, reconnection: quick)).map(\.data) == ["a"])
    #expect(transport.requests.count == 3)  // the failure, the events, then 204 after the clean end
  }

  @Test func neverReconnectsEndsOnACleanEnd() async throws {
    let transport = ScriptedEventTransport([.init(chunks: ["data: a\n\n"]), .init(chunks: ["data: b\n\n"])])
    #expect(try await collect(transport.events(request, reconnection: .never)).map(\.data) == ["a"])
    #expect(transport.requests.count == 1)
  }

  @Test func anIdleConnectionCountsAsADrop() async throws {
    let transport = ScriptedEventTransport([
      .init(chunks: ["id: 5\ndata: a\n\n"], ending: .hang),
      .init(chunks: ["data: b\n\n"]),
      .init(status: .noContent, contentType: nil),
    ])
    var policy = quick
    policy.idleTimeout = .milliseconds(100)
    let events = try await collect(transport.events(request, reconnection: policy))
    #expect(events.map(\.data) == ["a", "b"])
    #expect(transport.lastEventIDs == [nil, "5", "5"])
    #expect(transport.closed.first == true)
  }

  @Test func breakingOutClosesTheConnection() async throws {
    let transport = ScriptedEventTransport([.init(chunks: ["data: a\n\n"], ending: .hang)])
    for try await event in transport.events(request, reconnection: quick) {
      #expect(event.data == "a")
      break
    }
    try await waitUntil { transport.closed == [true] }
    #expect(transport.requests.count == 1)
  }

  @Test func cancellingTheTaskClosesTheConnectionAndStops() async throws {
    let transport = ScriptedEventTransport([.init(chunks: ["data: a\n\n"], ending: .hang)])
    let started = Locked(false)
    let task = Task { [request, quick] in
      for try await _ in transport.events(request, reconnection: quick) { started.withLock { $0 = true } }
    }
    try await waitUntil { started.withLock { $0 } }
    task.cancel()
    await #expect(throws: (any Error).self) { try await task.value }
    try await waitUntil { transport.closed == [true] }
    #expect(transport.requests.count == 1)
  }

  @Test func waitUsesRetryThenDelayCappedWithJitter() {
    let policy = EventReconnection(delay: .seconds(2), jitter: 0, maximumDelay: .seconds(5))
    #expect(policy.wait(retry: nil) == .seconds(2))
    #expect(policy.wait(retry: 1500) == .milliseconds(1500))
    #expect(policy.wait(retry: 60_000) == .seconds(5))
    #expect(policy.wait(retry: Int.max) == .seconds(5))
    let jittered = EventReconnection(delay: .seconds(1), jitter: 0.5, maximumDelay: .seconds(60))
    for _ in 0..<50 {
      let wait = jittered.wait(retry: nil)
      #expect(wait >= .seconds(1) && wait <= .milliseconds(1500))
    }
  }

  private func waitUntil(_ condition: @Sendable () -> Bool) async throws {
    for _ in 0..<200 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
    #expect(condition())
  }
}

@Suite("DecodedServerSentEvents")
struct DecodedServerSentEventsTests {
  struct Chunk: Decodable, Sendable, Equatable {
    let text: String
  }

  @Test func decodesUntilTheSentinelAndKeepsUndecodableEvents() async throws {
    let transport = ScriptedEventTransport([
      .init(chunks: [
        "data: {\"text\":\"Hel\"}\n\n", "data: not json\n\n", "data: {\"text\":\"lo\"}\n\n", "data: [DONE]\n\n",
        "data: {\"text\":\"after\"}\n\n",
      ])
    ])
    let request = HTTPRequest(method: .post, url: URL(string: "http://127.0.0.1:1/complete")!)
    var values: [Chunk] = []
    var failures: [String] = []
    for try await event in transport.events(request).decoding(Chunk.self, with: JSONDecoder()) {
      switch event {
      case .value(let chunk, let raw):
        values.append(chunk)
        #expect(raw.data.contains(chunk.text))
      case .undecodable(let raw, let error):
        failures.append(raw.data)
        #expect(error is DecodingError)
      }
    }
    #expect(values == [Chunk(text: "Hel"), Chunk(text: "lo")])
    #expect(failures == ["not json"])
  }

  @Test func noSentinelReadsToTheEnd() async throws {
    let transport = ScriptedEventTransport([.init(chunks: ["data: {\"text\":\"a\"}\n\ndata: [DONE]\n\n"])])
    let request = HTTPRequest(method: .get, url: URL(string: "http://127.0.0.1:1/e")!)
    var count = 0
    var undecodable = 0
    for try await event in transport.events(request, reconnection: .never)
      .decoding(Chunk.self, with: JSONDecoder(), until: nil)
    {
      count += 1
      if event.value == nil { undecodable += 1 }
    }
    #expect(count == 2)
    #expect(undecodable == 1)
  }
}
