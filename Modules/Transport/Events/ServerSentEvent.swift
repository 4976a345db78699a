/// One event of a `text/event-stream`, as the WHATWG HTML standard's "server-sent events" section dispatches it.
///
/// ```swift
/// for try await event in try await transport.events(request) {
///   print(event.type, event.id, event.data)
/// }
/// ```
public struct ServerSentEvent: Sendable, Hashable {
  /// The event type: the last `event` field of the event, or `"message"` when it has none (or an empty one).
  public var type: String
  /// The `data` lines of the event joined with line feeds (without a trailing one).
  public var data: String
  /// The last event ID when the event was dispatched: the last `id` field seen on the stream so far (across events
  /// and reconnections), empty when there was none. An `id` containing U+0000 NULL is ignored.
  public var id: String
  /// The reconnection time the event's own lines set with a `retry` field, in milliseconds; `nil` when they set none.
  public var retry: Int?

  /// Creates an event.
  /// - Parameters:
  ///   - type: The event type; `"message"` by default.
  ///   - data: The data.
  ///   - id: The last event ID.
  ///   - retry: The reconnection time in milliseconds set by the event, if any.
  public init(type: String = "message", data: String, id: String = "", retry: Int? = nil) {
    self.type = type
    self.data = data
    self.id = id
    self.retry = retry
  }
}

extension ServerSentEvent {
  /// The event as a server writes it in a `text/event-stream`, ending with its blank line: `event` when the type is
  /// not `"message"`, `id` when there is one, `retry` when set, then one `data` line per line of ``data`` (CR, LF
  /// and CRLF all split it). Parsing the text gives the event back. For mocks, servers and printing.
  ///
  /// ```swift
  /// ServerSentEvent(data: "one\ntwo", id: "7").text   // "id: 7\ndata: one\ndata: two\n\n"
  /// ```
  public var text: String {
    var text = ""
    if type != "message" { text += "event: \(type)\n" }
    if !id.isEmpty { text += "id: \(id)\n" }
    if let retry { text += "retry: \(retry)\n" }
    for line in data.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
      text += "data: \(line)\n"
    }
    return text + "\n"
  }
}
