import MalibuTransport
import Testing

/// Byte-exact inputs for every rule of the WHATWG "interpretation of an event stream", each also fed in two chunks
/// split at every byte boundary.
@Suite("ServerSentEventParser")
struct ServerSentEventParserTests {
  struct Case: Sendable, CustomTestStringConvertible {
    let name: String
    let input: [UInt8]
    let events: [ServerSentEvent]
    var lastEventID = ""
    var reconnectionTime: Int?

    var testDescription: String { name }
  }

  private static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

  static let cases: [Case] = [
    Case(name: "LF line ends", input: bytes("data: a\n\n"), events: [ServerSentEvent(data: "a")]),
    Case(name: "CR line ends", input: bytes("data: a\r\r"), events: [ServerSentEvent(data: "a")]),
    Case(name: "CRLF line ends", input: bytes("data: a\r\n\r\n"), events: [ServerSentEvent(data: "a")]),
    Case(
      name: "mixed line ends",
      input: bytes("data: a\rdata: b\ndata: c\r\n\r"),
      events: [ServerSentEvent(data: "a\nb\nc")]
    ),
    Case(
      name: "CR then LF is one line end",
      input: bytes("data: a\r\ndata: b\r\n\n"),
      events: [
        ServerSentEvent(data: "a\nb")
      ]
    ),
    Case(
      name: "LF then CR is two line ends",
      input: bytes("data: a\n\rdata: b\n\n"),
      events: [
        ServerSentEvent(data: "a"), ServerSentEvent(data: "b"),
      ]
    ),
    Case(
      name: "leading BOM stripped",
      input: [0xEF, 0xBB, 0xBF] + bytes("data: a\n\n"),
      events: [
        ServerSentEvent(data: "a")
      ]
    ),
    Case(
      name: "only one BOM stripped",
      input: [0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF] + bytes("data: a\n\n"),
      events: []
    ),
    Case(
      name: "BOM not at the start kept",
      input: bytes("data: a\n\n") + [0xEF, 0xBB, 0xBF] + bytes("data: b\n\n"),
      events: [
        ServerSentEvent(data: "a")
      ]
    ),
    Case(
      name: "invalid UTF-8 replaced",
      input: bytes("data: a") + [0xFF] + bytes("b\n\n"),
      events: [
        ServerSentEvent(data: "a\u{FFFD}b")
      ]
    ),
    Case(name: "multibyte UTF-8", input: bytes("data: é€😀\n\n"), events: [ServerSentEvent(data: "é€😀")]),
    Case(
      name: "comments ignored",
      input: bytes(": hello\ndata: a\n:\n\n: tail\n\n"),
      events: [
        ServerSentEvent(data: "a")
      ]
    ),
    Case(
      name: "field without colon has empty value",
      input: bytes("data\ndata\n\n"),
      events: [
        ServerSentEvent(data: "\n")
      ]
    ),
    Case(
      name: "only one leading space stripped",
      input: bytes("data:  a \ndata:b\n\n"),
      events: [
        ServerSentEvent(data: " a \nb")
      ]
    ),
    Case(name: "colon in value kept", input: bytes("data: a: b\n\n"), events: [ServerSentEvent(data: "a: b")]),
    Case(
      name: "data lines joined, trailing LF removed",
      input: bytes("data: a\ndata:\ndata: b\n\n"),
      events: [
        ServerSentEvent(data: "a\n\nb")
      ]
    ),
    Case(
      name: "single empty data line dispatches an empty event",
      input: bytes("data:\n\n"),
      events: [
        ServerSentEvent(data: "")
      ]
    ),
    Case(
      name: "event type",
      input: bytes("event: add\ndata: 1\n\ndata: 2\n\n"),
      events: [
        ServerSentEvent(type: "add", data: "1"), ServerSentEvent(data: "2"),
      ]
    ),
    Case(
      name: "empty event type means message",
      input: bytes("event:\ndata: 1\n\n"),
      events: [
        ServerSentEvent(data: "1")
      ]
    ),
    Case(
      name: "event without data not dispatched, type reset",
      input: bytes("event: add\n\ndata: 1\n\n"),
      events: [
        ServerSentEvent(data: "1")
      ]
    ),
    Case(
      name: "id kept across events",
      input: bytes("id: 1\ndata: a\n\ndata: b\n\n"),
      events: [ServerSentEvent(data: "a", id: "1"), ServerSentEvent(data: "b", id: "1")],
      lastEventID: "1"
    ),
    Case(
      name: "empty id resets",
      input: bytes("id: 1\ndata: a\n\nid\ndata: b\n\n"),
      events: [ServerSentEvent(data: "a", id: "1"), ServerSentEvent(data: "b", id: "")]
    ),
    Case(
      name: "id without data still updates the last event ID",
      input: bytes("id: 7\n\n"),
      events: [],
      lastEventID: "7"
    ),
    Case(
      name: "id with NUL ignored",
      input: bytes("id: 1\ndata: a\n\nid: 2") + [0] + bytes("3\ndata: b\n\n"),
      events: [ServerSentEvent(data: "a", id: "1"), ServerSentEvent(data: "b", id: "1")],
      lastEventID: "1"
    ),
    Case(
      name: "id set after the data line applies to the event",
      input: bytes("data: a\nid: 9\n\n"),
      events: [ServerSentEvent(data: "a", id: "9")],
      lastEventID: "9"
    ),
    Case(
      name: "retry digits",
      input: bytes("retry: 1500\ndata: a\n\ndata: b\n\n"),
      events: [ServerSentEvent(data: "a", retry: 1500), ServerSentEvent(data: "b")],
      reconnectionTime: 1500
    ),
    Case(
      name: "bad retry ignored",
      input: bytes("retry: 10\n\nretry: 1.5\nretry: -1\nretry: 2a\nretry:\nretry:  3\nretry\ndata: a\n\n"),
      events: [ServerSentEvent(data: "a")],
      reconnectionTime: 10
    ),
    Case(
      name: "huge retry saturates",
      input: bytes("retry: 99999999999999999999999\ndata: a\n\n"),
      events: [ServerSentEvent(data: "a", retry: Int.max)],
      reconnectionTime: Int.max
    ),
    Case(
      name: "unknown fields ignored",
      input: bytes("foo: bar\nData: x\nDATA: y\ndata: a\n\n"),
      events: [
        ServerSentEvent(data: "a")
      ]
    ),
    Case(
      name: "field names are case-sensitive and exact",
      input: bytes("data : a\ndata: b\n\n"),
      events: [
        ServerSentEvent(data: "b")
      ]
    ),
    Case(
      name: "trailing event without blank line discarded",
      input: bytes("data: a\n\ndata: b\n"),
      events: [
        ServerSentEvent(data: "a")
      ]
    ),
    Case(
      name: "unterminated last line discarded",
      input: bytes("data: a\n\ndata: b"),
      events: [
        ServerSentEvent(data: "a")
      ]
    ),
    Case(
      name: "unterminated id line not applied",
      input: bytes("id: 1\ndata: a\n\nid: 2"),
      events: [ServerSentEvent(data: "a", id: "1")],
      lastEventID: "1"
    ),
    Case(name: "empty stream", input: [], events: []),
    Case(name: "blank lines only", input: bytes("\n\r\n\r\n"), events: []),
  ]

  /// The events of `input` fed in the given chunks, after `finish()`.
  private static func run(_ chunks: [ArraySlice<UInt8>]) -> ([ServerSentEvent], ServerSentEventParser) {
    var parser = ServerSentEventParser()
    var events: [ServerSentEvent] = []
    for chunk in chunks { events += parser.parse(chunk) }
    parser.finish()
    return (events, parser)
  }

  @Test(arguments: cases) func wholeInput(_ test: Case) {
    let (events, parser) = Self.run([test.input[...]])
    #expect(events == test.events)
    #expect(parser.lastEventID == test.lastEventID)
    #expect(parser.reconnectionTime == test.reconnectionTime)
  }

  @Test(arguments: cases) func splitAtEveryByteBoundary(_ test: Case) {
    for split in 0...test.input.count {
      let (events, parser) = Self.run([test.input[..<split], test.input[split...]])
      #expect(events == test.events, "split at \(split)")
      #expect(parser.lastEventID == test.lastEventID, "split at \(split)")
      #expect(parser.reconnectionTime == test.reconnectionTime, "split at \(split)")
    }
  }

  @Test func byteByByte() {
    for test in Self.cases {
      let (events, _) = Self.run(test.input.map { [$0][...] })
      #expect(events == test.events, "\(test.name)")
    }
  }

  /// A sequence without contiguous storage takes the parser's other path: the same events.
  @Test(arguments: cases) func nonContiguousSequence(_ test: Case) {
    for split in 0...test.input.count {
      var parser = ServerSentEventParser()
      var events = parser.parse(test.input[..<split].lazy.map { $0 })
      events += parser.parse(test.input[split...].lazy.map { $0 })
      parser.finish()
      #expect(events == test.events, "split at \(split)")
      #expect(parser.lastEventID == test.lastEventID, "split at \(split)")
    }
  }

  @Test func finishKeepsLastEventIDAndStartsANewStream() {
    var parser = ServerSentEventParser()
    _ = parser.parse(Array("id: 4\nretry: 20\ndata: a\n\ndata: lost".utf8))
    parser.finish()
    // A new stream: its BOM is stripped again, the pending data was dropped, the ID and retry are kept.
    let events = parser.parse([0xEF, 0xBB, 0xBF] + Array("data: b\n\n".utf8))
    #expect(events == [ServerSentEvent(data: "b", id: "4")])
    #expect(parser.lastEventID == "4")
    #expect(parser.reconnectionTime == 20)
  }

  @Test func finishForgetsACRAtTheEnd() {
    var parser = ServerSentEventParser()
    _ = parser.parse(Array("data: a\r".utf8))
    parser.finish()
    // The LF starting the next stream is a line end of its own, not the second half of a CRLF.
    let events = parser.parse(Array("data: b\n\ndata: c\n\n".utf8))
    #expect(events == [ServerSentEvent(data: "b"), ServerSentEvent(data: "c")])
  }

  @Test func startsFromAGivenLastEventID() {
    var parser = ServerSentEventParser(lastEventID: "41")
    #expect(parser.parse(Array("data: a\n\n".utf8)) == [ServerSentEvent(data: "a", id: "41")])
  }
}
