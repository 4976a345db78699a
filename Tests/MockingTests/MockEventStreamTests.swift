import Foundation
import HTTPTypes
import MalibuMocking
import MalibuTransport
import Testing

/// `MockEventStream`: what each connection of a scripted event stream receives, by its `Last-Event-ID`.
@Suite("MockEventStream")
struct MockEventStreamTests {
  static let script = MockEventStream([
    .event(ServerSentEvent(data: "one", id: "1", retry: 10)),
    .pause(.milliseconds(1)),
    .event(ServerSentEvent(type: "note", data: "two\nlines", id: "2")),
    .text("data: cut in the mi"),
    .drop,
    .text(": resumed\nid: 3\ndata: three\n\n"),
  ])

  /// A connection's answer: the status, the body text it received, and whether it ended with a drop.
  struct Connection: Equatable {
    var status: Int
    var text: String
    var dropped: Bool
  }

  static func connect(_ transport: MockTransport, lastEventID: String?) async throws -> Connection {
    var head = HTTPRequest(method: .get, url: URL(string: "http://127.0.0.1:8080/events")!)
    if let lastEventID { head.headerFields[HTTPField.Name("Last-Event-ID")!] = lastEventID }
    let response = try await transport.send(head, body: nil, options: TransferOptions())
    var text = ""
    do {
      for try await chunk in response.body { text += String(decoding: chunk, as: UTF8.self) }
    } catch let error as TransportError {
      #expect(error.code == .connectionReset)
      return Connection(status: response.head.status.code, text: text, dropped: true)
    }
    return Connection(status: response.head.status.code, text: text, dropped: false)
  }

  @Test(
    arguments: [
      (
        nil,
        Connection(
          status: 200,
          text: "id: 1\nretry: 10\ndata: one\n\nevent: note\nid: 2\ndata: two\ndata: lines\n\ndata: cut in the mi",
          dropped: true
        )
      ),
      (
        "1",
        Connection(
          status: 200,
          text: "event: note\nid: 2\ndata: two\ndata: lines\n\ndata: cut in the mi",
          dropped: true
        )
      ),
      ("2", Connection(status: 200, text: ": resumed\nid: 3\ndata: three\n\n", dropped: false)),
      ("3", Connection(status: 204, text: "", dropped: false)),
      ("never sent", Connection(status: 204, text: "", dropped: false)),
    ] as [(String?, Connection)]
  )
  func eachConnectionResumesAfterItsLastEventID(_ lastEventID: String?, _ expected: Connection) async throws {
    let transport = MockTransport()
    transport.stub(.get, "/events", reply: .events(Self.script))
    let connection = try await Self.connect(transport, lastEventID: lastEventID)
    #expect(connection == expected)
  }

  @Test func eventsAreWrittenAsTheParserReadsThem() {
    let events = [
      ServerSentEvent(data: ""),
      ServerSentEvent(type: "update", data: "a\r\nb\rc", id: "x", retry: 0),
    ]
    var parser = ServerSentEventParser()
    let parsed = parser.parse(Data(events.map(\.text).joined().utf8))
    #expect(parsed == [ServerSentEvent(data: ""), ServerSentEvent(type: "update", data: "a\nb\nc", id: "x", retry: 0)])
  }

  @Test func aMockServesTheScriptAndLoadsTheFirstConnection() async throws {
    let mock = Mock(events: MockEventStream([.text("data: a\n\n"), .drop, .text("data: b\n\n")]))
    #expect(try mock.loadData() == Data("data: a\n\n".utf8))
    #expect(mock.httpResponse.headerFields[.contentType] == "text/event-stream")
    let transport = MockTransport()
    transport.stub(.get, "/events", mock: mock)
    #expect(
      try await Self.connect(transport, lastEventID: nil) == Connection(status: 200, text: "data: a\n\n", dropped: true)
    )
  }

  @Test func collectingAScriptedBodyFailsAtTheDrop() async throws {
    let transport = MockTransport()
    transport.stub(.get, "/events", reply: .events(Self.script))
    let head = HTTPRequest(method: .get, url: URL(string: "http://127.0.0.1:8080/events")!)
    let error = await #expect(throws: TransportError.self) {
      _ = try await transport.data(for: head, body: nil, options: TransferOptions(), upTo: 1 << 20)
    }
    #expect(error?.code == .connectionReset)
    #expect(error?.message.contains("dropped the connection") == true)
  }

  @Test func cancellingDuringAPauseEndsTheBody() async throws {
    let transport = MockTransport()
    transport.stub(.get, "/events", reply: .events(MockEventStream([.text("data: a\n\n"), .pause(.seconds(3600))])))
    let head = HTTPRequest(method: .get, url: URL(string: "http://127.0.0.1:8080/events")!)
    let response = try await transport.send(head, body: nil, options: TransferOptions())
    let reader = Task {
      var chunks = 0
      for try await _ in response.body { chunks += 1 }
      return chunks
    }
    // The first chunk arrives; the pause is then cut short by the cancellation.
    try await Task.sleep(for: .milliseconds(20))
    reader.cancel()
    await #expect(throws: (any Error).self) { _ = try await reader.value }
  }
}
