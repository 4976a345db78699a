import Foundation
import Malibu
import Testing

@testable import SurfCore

/// `surf --stream` (HTTPie's): the body printed as it arrives, a `text/event-stream` event by event.
@Suite struct StreamTests {
  static let url = "http://127.0.0.1:9/feed"

  /// A surf whose networking answers from `transport`, printing the body only, without colours.
  static func run(
    _ transport: MockTransport,
    options: SurfOptions = SurfOptions(),
    output: @escaping @Sendable (Data) -> Void
  ) async throws(SurfError) -> SurfExitStatus {
    let surf = Surf(
      console: Console(inputIsTerminal: true, outputIsTerminal: false, errorIsTerminal: false),
      environment: ["XDG_CONFIG_HOME": "/nonexistent", "HOME": "/nonexistent"]
    )
    var options = options
    options.stream = true
    options.print = options.print ?? PrintSelection(responseBody: true)
    let networking = try surf.makeNetworking(options: options, cookies: nil, transport: .custom(transport))
    let spec = try RequestSpec(line: RequestLine(parsing: ["GET", url]))
    return try await surf.stream(
      SurfEndpoint(request: spec.request()),
      spec: spec,
      networking: networking,
      options: options,
      output: output
    )
  }

  /// Starts a run in a task; its output pieces arrive on the stream as they are printed.
  static func start(_ transport: MockTransport) -> (Task<SurfExitStatus, any Error>, AsyncStream<String>) {
    let (pieces, continuation) = AsyncStream<String>.makeStream()
    let task = Task {
      defer { continuation.finish() }
      return try await run(transport) { continuation.yield(String(decoding: $0, as: UTF8.self)) }
    }
    return (task, pieces)
  }

  @Test func eventsArePrintedOneBlockEachAsTheyArrive() async throws {
    let transport = MockTransport()
    let script = MockEventStream([
      .text(": a comment\nretry: 250\nid: 1\ndata: {\"text\":\"Hi\"}\n\n"),
      .text("event: done\ndata: line 1\ndata: "),  // half an event: printed once its blank line comes
      .text("line 2\n\n"),
      .pause(.seconds(3600)),
      .text("data: never\n\n"),
    ])
    transport.stub(.get, "/feed", reply: .events(script))
    let (task, pieces) = Self.start(transport)
    var printed: [String] = []
    for await piece in pieces {
      printed.append(piece)
      if printed.count == 2 { break }
    }
    // The body has not ended (the script pauses for an hour): both events were printed as they came.
    task.cancel()
    #expect(
      printed == [
        "id: 1\nretry: 250\ndata: {\"text\":\"Hi\"}\n\n", "event: done\nid: 1\ndata: line 1\ndata: line 2\n\n",
      ]
    )
    _ = try? await task.value
  }

  @Test func anotherBodyIsPrintedChunkByChunk() async throws {
    let transport = MockTransport()
    let chunks = MockEventStream([.text("first line\n"), .text("second"), .pause(.seconds(3600))])
    transport.stub(.get, "/feed", reply: .events(chunks, headerFields: [.contentType: "text/plain"]))
    let (task, pieces) = Self.start(transport)
    var printed: [String] = []
    for await piece in pieces {
      printed.append(piece)
      if printed.count == 2 { break }
    }
    task.cancel()
    #expect(printed == ["first line\n", "second"])
    _ = try? await task.value
  }

  @Test func aDroppedConnectionEndsTheRunAfterWhatArrived() async throws {
    let transport = MockTransport()
    transport.stub(.get, "/feed", reply: .events(MockEventStream([.text("data: a\n\n"), .text("data: cut"), .drop])))
    let printed = LockedStrings()
    let error = await #expect(throws: SurfError.self) {
      _ = try await Self.run(transport) { printed.append(String(decoding: $0, as: UTF8.self)) }
    }
    #expect(printed.all == ["data: a\n\n"])
    #expect(error?.status == .error)
    #expect(error?.message.contains("dropped the connection") == true, "\(String(describing: error))")
  }

  @Test func theHeadComesFirstAndCheckStatusApplies() async throws {
    let transport = MockTransport()
    transport.stub(
      .get,
      "/feed",
      status: .serviceUnavailable,
      headerFields: [.contentType: "text/plain"],
      body: Data("busy".utf8)
    )
    var options = SurfOptions()
    options.print = PrintSelection(responseHead: true, responseBody: true)
    options.checkStatus = true
    let printed = LockedStrings()
    let status = try await Self.run(transport, options: options) { printed.append(String(decoding: $0, as: UTF8.self)) }
    #expect(status == .checking(503))
    #expect(printed.all == ["HTTP 503 Service Unavailable\nContent-Type: text/plain\n\n", "busy"])
  }

  @Test func streamWithDownloadIsAUsageError() async throws {
    var options = SurfOptions()
    options.stream = true
    options.download = true
    let error = await #expect(throws: SurfError.self) {
      _ = try await Surf(console: Console(inputIsTerminal: true, outputIsTerminal: false, errorIsTerminal: false))
        .send(["GET", Self.url], options: options)
    }
    #expect(error?.message.contains("cannot be combined with --download") == true)
    #expect(error?.status == .error)
  }

  @Test func eventFieldNamesAreColouredOnATerminal() {
    let formatter = Formatter(pretty: Pretty(colors: true, format: true))
    let text = formatter.event(ServerSentEvent(type: "ping", data: "a:b", id: "7"))
    #expect(
      text == "\u{1B}[34mevent\u{1B}[0m: ping\n\u{1B}[34mid\u{1B}[0m: 7\n\u{1B}[34mdata\u{1B}[0m: a:b\n\n"
    )
  }
}
