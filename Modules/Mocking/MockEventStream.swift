import Foundation
public import HTTPTypes
public import MalibuTransport

/// A scripted `text/event-stream`: events and raw text sent chunk by chunk, with pauses, and dropped connections,
/// for ``MockTransport`` (``MockTransport/Reply/events(_:headerFields:delay:)``) and the networking's mocks
/// (``Mock/init(events:delay:)``).
///
/// ```swift
/// let script = MockEventStream([
///   .event(ServerSentEvent(data: "one", id: "1", retry: 10)),
///   .pause(.milliseconds(50)),
///   .event(ServerSentEvent(data: "two", id: "2")),
///   .text("data: cut in the mi"),   // half an event…
///   .drop,                          // …and the connection resets
///   .event(ServerSentEvent(data: "three", id: "3")),
/// ])
/// transport.stub(.get, "/notifications", reply: .events(script))
/// ```
///
/// The script is the server's whole story, and a connection resumes it the way a server honours `Last-Event-ID`:
/// a request without one gets the script from the start; a request with one gets what follows the last event
/// carrying that ID, skipping the ``Step/drop`` that followed it (that drop already happened; a half event before it
/// is skipped too). Each connection
/// ends at the next ``Step/drop`` (the body fails with `TransportError.Code.connectionReset`) or, cleanly, at the end
/// of the script. A request that resumes past the end is answered 204 (No Content), which ends an event stream, and
/// so is one for an ID the script never sent.
public struct MockEventStream: Sendable {
  /// One step of the script.
  public enum Step: Sendable {
    /// An event, written as `ServerSentEvent.text`.
    case event(ServerSentEvent)
    /// Raw stream text sent as it is: comments, fields, half an event.
    case text(String)
    /// A wait before the next step; cancelling the reading task ends it.
    case pause(Duration)
    /// The connection drops here: the body fails with `TransportError.Code.connectionReset`.
    case drop
  }

  /// The steps, in order.
  public var steps: [Step]

  /// Creates a script.
  /// - Parameter steps: The steps, in order.
  public init(_ steps: [Step]) {
    self.steps = steps
  }

  /// The header fields of a scripted stream: `Content-Type: text/event-stream`, `Cache-Control: no-store`.
  public static let headerFields: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-store"]

  /// The answer to one connection: `head` and the steps the request's `Last-Event-ID` resumes at, or a 204 when
  /// none are left.
  func response(to request: HTTPRequest, head: HTTPResponse) -> (HTTPResponse, ResponseBody) {
    let lastEventID = request.headerFields[HTTPField.Name("Last-Event-ID")!]
    guard let start = start(after: lastEventID), start < steps.count else {
      return (HTTPResponse(status: .noContent), .empty)
    }
    return (head, ResponseBody(chunks: Chunks(steps: steps[start...])))
  }

  /// The text a first connection receives, pauses left out: up to the first drop.
  var firstConnectionText: Data {
    Data(steps.prefix { if case .drop = $0 { false } else { true } }.flatMap(Self.bytes(of:)))
  }

  /// Where a connection with `lastEventID` starts: 0 without one, after the last event carrying it with one (and
  /// after the drop that followed, when only pauses and text completing no event lie between), `nil` for an ID the
  /// script never sent.
  private func start(after lastEventID: String?) -> Int? {
    guard let lastEventID, !lastEventID.isEmpty else { return 0 }
    var parser = ServerSentEventParser()
    var resume: (index: Int, parser: ServerSentEventParser)?
    for (index, step) in steps.enumerated() {
      if case .drop = step { parser.finish() }
      if parser.parse(Self.bytes(of: step)).contains(where: { $0.id == lastEventID }) { resume = (index + 1, parser) }
    }
    guard var (start, parser) = resume else { return nil }
    for index in start..<steps.count {
      guard case .drop = steps[index] else {
        if case .event = steps[index] { break }
        if !parser.parse(Self.bytes(of: steps[index])).isEmpty { break }
        continue
      }
      start = index + 1
      break
    }
    return start
  }

  /// What a step sends: the text of an event or of raw text, nothing for a pause or a drop.
  private static func bytes(of step: Step) -> Data {
    switch step {
    case .event(let event): Data(event.text.utf8)
    case .text(let raw): Data(raw.utf8)
    case .pause, .drop: Data()
    }
  }

  /// The body of one connection: its steps up to a drop, as chunks.
  private struct Chunks: AsyncSequence, Sendable {
    typealias Element = Data
    let steps: ArraySlice<Step>

    func makeAsyncIterator() -> Iterator { Iterator(steps: steps) }

    struct Iterator: AsyncIteratorProtocol {
      var steps: ArraySlice<Step>

      mutating func next() async throws -> Data? {
        while let step = steps.popFirst() {
          switch step {
          case .event, .text: return MockEventStream.bytes(of: step)
          case .pause(let duration): try await MockDelay.sleep(duration)
          case .drop:
            steps = []
            throw TransportError(code: .connectionReset, message: "the mocked event stream dropped the connection")
          }
        }
        return nil
      }
    }
  }
}

extension MockTransport.Reply {
  /// A scripted event stream: 200 with `Content-Type: text/event-stream`, its body sent step by step as
  /// ``MockEventStream`` says (resuming at the request's `Last-Event-ID`).
  ///
  /// ```swift
  /// transport.stub(.get, "/events", reply: .events(MockEventStream([.event(ServerSentEvent(data: "hi")), .drop])))
  /// ```
  /// - Parameters:
  ///   - stream: The script.
  ///   - headerFields: The response header fields; ``MockEventStream/headerFields`` by default.
  ///   - delay: How long to wait before answering.
  /// - Returns: The reply.
  public static func events(
    _ stream: MockEventStream,
    headerFields: HTTPFields = MockEventStream.headerFields,
    delay: Duration = .zero
  ) -> MockTransport.Reply {
    var reply = MockTransport.Reply(status: .ok, headerFields: headerFields, delay: delay)
    reply.events = stream
    return reply
  }
}

extension Mock {
  /// A mock answering with a scripted event stream: 200, `Content-Type: text/event-stream`, the body sent step by
  /// step as ``MockEventStream`` says (resuming at the request's `Last-Event-ID`).
  ///
  /// ```swift
  /// let mocks = MockProvider<Feed> { _ in
  ///   Mock(events: MockEventStream([.event(ServerSentEvent(data: "hi", id: "1")), .drop, .text("data: bye\n\n")]))
  /// }
  /// ```
  /// ``loadData()`` gives the text of a first connection, up to its drop.
  /// - Parameters:
  ///   - events: The script.
  ///   - delay: A delay in seconds before each connection is answered; `nil` uses the provider's.
  public init(events: MockEventStream, delay: Double? = nil) {
    self.init(
      httpResponse: HTTPResponse(status: .ok, headerFields: MockEventStream.headerFields),
      source: .events(events),
      error: nil,
      delay: delay
    )
  }
}
