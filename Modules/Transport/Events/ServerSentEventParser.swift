/// Turns the bytes of a `text/event-stream` into events, exactly as the WHATWG HTML standard's "interpretation of an
/// event stream" says; a value-type state machine fed chunks of any size.
///
/// ```swift
/// var parser = ServerSentEventParser()
/// for try await chunk in response.body {
///   for event in parser.parse(chunk) { print(event.data) }
/// }
/// parser.finish()   // the end of the stream: an event without its blank line is discarded
/// ```
///
/// The rules: UTF-8 (invalid bytes become U+FFFD) with one leading byte order mark stripped; lines end with CR, LF
/// or CRLF (a CR ending one chunk and an LF starting the next are one line end); a line starting with a colon is a
/// comment; a line without a colon is a field with an empty value; one space after the colon is stripped; `data`
/// lines are joined with LF; an event is dispatched only on a blank line, and not at all when it has no data (the
/// last event ID is still updated); `retry` counts only when all ASCII digits; an `id` containing NUL is ignored;
/// unknown fields are ignored. The last event ID is kept across events and, since ``finish()`` keeps it, across
/// reconnections, for the `Last-Event-ID` header.
public struct ServerSentEventParser: Sendable {
  private enum LineEnd: Sendable {
    /// No CR just before: an LF ends a line.
    case none
    /// The last byte was a CR: an LF now is the second half of a CRLF.
    case afterCR
  }

  /// The bytes of the line being read.
  private var line: [UInt8] = []
  /// Whether the stream's first line is still being read (it may begin with a byte order mark).
  private var atStreamStart = true
  private var lineEnd = LineEnd.none
  /// The data buffer: `data` values, each followed by LF.
  private var data: [UInt8] = []
  /// The event type buffer.
  private var eventType: [UInt8] = []
  /// The last event ID buffer (kept across events and streams).
  private var lastEventIDBuffer: [UInt8] = []
  /// The `retry` value set since the last dispatch.
  private var pendingRetry: Int?

  /// The last event ID as of the last dispatch (an event, or a blank line ending an event without data): what a
  /// reconnection sends as `Last-Event-ID`. Empty when the stream has set none.
  public private(set) var lastEventID = ""
  /// The reconnection time the stream last set with a valid `retry` field, in milliseconds; `nil` when none yet.
  public private(set) var reconnectionTime: Int?

  /// Creates a parser at the start of a stream.
  /// - Parameter lastEventID: The last event ID to start from (the one a reconnection sent), empty by default.
  public init(lastEventID: String = "") {
    self.lastEventID = lastEventID
    self.lastEventIDBuffer = Array(lastEventID.utf8)
  }

  /// Reads a chunk of the stream.
  /// - Parameter bytes: The next bytes, of any length.
  /// - Returns: The events the chunk completed, in order.
  public mutating func parse(_ bytes: some Sequence<UInt8>) -> [ServerSentEvent] {
    var events: [ServerSentEvent] = []
    let read: Void? = bytes.withContiguousStorageIfAvailable { scan($0, into: &events) }
    if read == nil {
      Array(bytes).withUnsafeBufferPointer { scan($0, into: &events) }
    }
    return events
  }

  /// Splits `bytes` into lines, a run of bytes at a time: a line read whole is handled in place, a line's start
  /// without its end waits in ``line`` for the next chunk.
  private mutating func scan(_ bytes: UnsafeBufferPointer<UInt8>, into events: inout [ServerSentEvent]) {
    var start = 0
    if lineEnd == .afterCR, !bytes.isEmpty {
      lineEnd = .none
      if bytes[0] == 0x0A { start = 1 }
    }
    while start < bytes.count {
      var end = start
      while end < bytes.count, bytes[end] != 0x0A, bytes[end] != 0x0D { end += 1 }
      guard end < bytes.count else {
        line.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        return
      }
      let rest = UnsafeBufferPointer(rebasing: bytes[start..<end])
      if line.isEmpty {
        endLine(rest, into: &events)
      } else {
        // The line began in an earlier chunk: moved out of `line` (keeping its storage) to be read as one.
        var whole: [UInt8] = []
        swap(&whole, &line)
        whole.append(contentsOf: rest)
        whole.withUnsafeBufferPointer { endLine($0, into: &events) }
        whole.removeAll(keepingCapacity: true)
        swap(&whole, &line)
      }
      start = end + 1
      if bytes[end] == 0x0D {
        if start == bytes.count {
          lineEnd = .afterCR
        } else if bytes[start] == 0x0A {
          start += 1
        }
      }
    }
  }

  /// Ends the stream: any event without its blank line and any unterminated line are discarded. The last event ID
  /// and the reconnection time are kept, and the parser is ready for the next stream (a reconnection).
  public mutating func finish() {
    line.removeAll(keepingCapacity: true)
    data.removeAll(keepingCapacity: true)
    eventType.removeAll(keepingCapacity: true)
    pendingRetry = nil
    atStreamStart = true
    lineEnd = .none
  }

  /// Handles one whole line (without its line end).
  private mutating func endLine(_ whole: UnsafeBufferPointer<UInt8>, into events: inout [ServerSentEvent]) {
    var text = whole[...]
    if atStreamStart {
      atStreamStart = false
      if text.starts(with: [0xEF, 0xBB, 0xBF]) { text = text.dropFirst(3) }
    }
    guard let first = text.first else {
      if let event = dispatch() { events.append(event) }
      return
    }
    guard first != 0x3A else { return }  // a comment
    let colon = text.firstIndex(of: 0x3A) ?? text.endIndex
    let name = UnsafeBufferPointer(rebasing: text[..<colon])
    var valueStart = colon < text.endIndex ? colon + 1 : text.endIndex
    if valueStart < text.endIndex, text[valueStart] == 0x20 { valueStart += 1 }
    let value = UnsafeBufferPointer(rebasing: text[valueStart...])
    if Self.name(name, is: "data") {
      data.append(contentsOf: value)
      data.append(0x0A)
    } else if Self.name(name, is: "event") {
      eventType.removeAll(keepingCapacity: true)
      eventType.append(contentsOf: value)
    } else if Self.name(name, is: "id") {
      if !value.contains(0) {
        lastEventIDBuffer.removeAll(keepingCapacity: true)
        lastEventIDBuffer.append(contentsOf: value)
      }
    } else if Self.name(name, is: "retry") {
      if let milliseconds = Self.digits(value) {
        reconnectionTime = milliseconds
        pendingRetry = milliseconds
      }
    }
  }

  /// Whether a field name is `expected` (ASCII).
  private static func name(_ name: UnsafeBufferPointer<UInt8>, is expected: StaticString) -> Bool {
    name.count == expected.utf8CodeUnitCount && expected.withUTF8Buffer { $0.elementsEqual(name) }
  }

  /// The value of a `retry` field made of ASCII digits only (saturating at `Int.max`); `nil` otherwise.
  private static func digits(_ value: UnsafeBufferPointer<UInt8>) -> Int? {
    guard !value.isEmpty else { return nil }
    var result = 0
    for byte in value {
      guard byte >= 0x30, byte <= 0x39 else { return nil }
      let (times, overflowA) = result.multipliedReportingOverflow(by: 10)
      let (sum, overflowB) = times.addingReportingOverflow(Int(byte - 0x30))
      result = overflowA || overflowB ? Int.max : sum
    }
    return result
  }

  private mutating func dispatch() -> ServerSentEvent? {
    lastEventID = String(decoding: lastEventIDBuffer, as: UTF8.self)
    let retry = pendingRetry
    pendingRetry = nil
    defer {
      data.removeAll(keepingCapacity: true)
      eventType.removeAll(keepingCapacity: true)
    }
    guard !data.isEmpty else { return nil }
    data.removeLast()
    return ServerSentEvent(
      type: eventType.isEmpty ? "message" : String(decoding: eventType, as: UTF8.self),
      data: String(decoding: data, as: UTF8.self),
      id: lastEventID,
      retry: retry
    )
  }
}
