public import Foundation
public import HTTPTypes
import MalibuCore

/// One connection of an event stream: the response head and its body, chunk by chunk.
public struct EventStreamConnection: Sendable {
  /// The status and header fields.
  public var head: HTTPResponse
  /// The body; dropping it (and its iterator) must close the connection.
  public var body: any AsyncSequence<Data, any Error> & Sendable

  /// Creates a connection.
  /// - Parameters:
  ///   - head: The response head.
  ///   - body: The body.
  public init(head: HTTPResponse, body: any AsyncSequence<Data, any Error> & Sendable) {
    self.head = head
    self.body = body
  }
}

/// A stream of server-sent events that reconnects: an `AsyncSequence` of ``ServerSentEvent``.
///
/// ```swift
/// for try await event in transport.events(HTTPRequest(method: .get, url: url)) {
///   print(event.id, event.data)
/// }
/// ```
///
/// Each connection's head is checked first: a 204 ends the sequence (no reconnection); a status other than 2xx, or
/// a content type other than `text/event-stream`, ends it with an ``EventStreamError`` that names which. The body is
/// read with ``ServerSentEventParser``. When the connection drops (an error, or ``EventReconnection/idleTimeout``
/// without a byte) or ends cleanly, the sequence waits (the server's `retry`, else the policy's delay) and
/// connects again with the last event ID, as the WHATWG standard says; after
/// ``EventReconnection/maxAttempts`` failed reconnections in a row it ends with the last error (or, after a clean
/// end, returns `nil`). A connection that fails for another reason than the network (an invalid request, the HTTPS
/// policy, TLS, a rejected credential) ends the sequence with its error at once. Breaking out of the loop or
/// cancelling the task closes the connection and stops at once.
public struct ServerSentEvents: AsyncSequence, Sendable {
  /// An event.
  public typealias Element = ServerSentEvent
  /// The errors: ``EventStreamError``, the connection's own (a transport error after the last attempt), or
  /// `CancellationError`.
  public typealias Failure = any Error
  /// Opens one connection, sending the last event ID (`nil` when none) as `Last-Event-ID`.
  public typealias Connect = @Sendable (_ lastEventID: String?) async throws -> EventStreamConnection

  private let reconnection: EventReconnection
  private let connect: Connect

  /// Creates the sequence; nothing is sent until it is iterated.
  /// - Parameters:
  ///   - reconnection: The reconnection policy.
  ///   - lastEventID: The last event ID to send on the first connection, if any.
  ///   - connect: Opens one connection.
  public init(
    reconnection: EventReconnection = EventReconnection(),
    lastEventID: String? = nil,
    connect: @escaping Connect
  ) {
    self.reconnection = reconnection
    self.initialID = lastEventID
    self.connect = connect
  }

  private let initialID: String?

  /// Creates the iterator; each iteration connects anew.
  /// - Returns: The iterator.
  public func makeAsyncIterator() -> Iterator {
    Iterator(reconnection: reconnection, lastEventID: initialID ?? "", connect: connect)
  }

  /// Reads events, connecting and reconnecting as needed.
  public struct Iterator: AsyncIteratorProtocol {
    private let reconnection: EventReconnection
    private let connect: Connect
    private var parser: ServerSentEventParser
    /// Where the stream is: connecting, reading, waiting to reconnect, or over.
    private var machine: StateMachine
    /// The body being read, while ``StateMachine/State/streaming(failures:)``.
    private var chunks: (any AsyncIteratorProtocol<Data, any Error>)?
    /// The events of the last chunk not handed out yet.
    private var pending: ArraySlice<ServerSentEvent> = []

    fileprivate init(reconnection: EventReconnection, lastEventID: String, connect: @escaping Connect) {
      self.reconnection = reconnection
      self.connect = connect
      self.parser = ServerSentEventParser(lastEventID: lastEventID)
      self.machine = StateMachine(maxAttempts: reconnection.maxAttempts)
    }

    /// The last event ID: what the next reconnection sends as `Last-Event-ID`.
    public var lastEventID: String { parser.lastEventID }

    /// The next event, or `nil` when the stream is over.
    /// - Returns: The event.
    /// - Throws: ``EventStreamError``, the last connection error, or `CancellationError`.
    public mutating func next() async throws -> ServerSentEvent? {
      while true {
        if let event = pending.popFirst() { return event }
        try Task.checkCancellation()
        if var reading = chunks {
          let chunk: Data?
          do {
            chunk = try await Self.read(&reading, idleTimeout: reconnection.idleTimeout)
          } catch {
            if Task.isCancelled {
              endBody()
              machine.cancelled()
              throw CancellationError()
            }
            try endBody(error)
            continue
          }
          guard let chunk else {
            try endBody(nil)
            continue
          }
          chunks = reading
          pending = parser.parse(chunk)[...]
          if !pending.isEmpty { machine.receivedEvents() }
          continue
        }
        guard case .connect(let afterWait) = machine.nextConnection() else { return nil }
        try await open(afterWait: afterWait)
      }
    }

    /// Opens a connection (after the wait when it is a reconnection) and checks its head.
    private mutating func open(afterWait: Bool) async throws {
      if afterWait { try await Task.sleep(for: reconnection.wait(retry: parser.reconnectionTime)) }
      let action: StateMachine.Action
      do {
        let connection = try await connect(parser.lastEventID.isEmpty ? nil : parser.lastEventID)
        action = machine.connected(connection.head)
        if case .read = action { chunks = connection.body.makeAsyncIterator() }
      } catch {
        // Only a failure of the network is worth another attempt: a refused request (a bad URL, the HTTPS policy,
        // TLS, authentication) would fail the same way after every wait.
        action = machine.connectFailed(error, retryable: !Task.isCancelled && Self.isNetworkFailure(error))
      }
      if case .fail(let error) = action { throw error }
    }

    /// Lets go of the body that ended and ends the parser's stream (a trailing event without its blank line is
    /// dropped).
    private mutating func endBody() {
      chunks = nil
      parser.finish()
    }

    /// After a drop (`error`) or a clean end (`nil`): ``endBody()``, then counts the attempt, or ends the sequence
    /// when no more reconnections are allowed (throwing `error`).
    private mutating func endBody(_ error: (any Error)?) throws {
      endBody()
      if case .fail(let error) = machine.bodyEnded(error) { throw error }
    }

    /// Whether a connection attempt failed on the network (refused, reset, timed out, name not found, a broken
    /// exchange), directly or as the underlying error of the facade's `NetworkError`.
    private static func isNetworkFailure(_ error: any Error) -> Bool {
      let transportError =
        (error as? TransportError) ?? ((error as? NetworkError)?.underlyingError as? TransportError)
      guard let code = transportError?.code else { return false }
      let transient: Set<TransportError.Code> = [
        .connectTimeout, .idleTimeout, .totalTimeout, .connectionRefused, .connectionReset, .dnsFailure,
        .protocolError, .other,
      ]
      return transient.contains(code)
    }

    /// The next chunk, or a ``IdleTimeout`` after `idleTimeout` without one (the read is then cancelled, which
    /// closes the connection).
    private static func read(
      _ chunks: inout any AsyncIteratorProtocol<Data, any Error>,
      idleTimeout: Duration?
    ) async throws -> Data? {
      guard let idleTimeout else { return try await chunks.next() }
      let box = IteratorBox(chunks)
      defer { chunks = box.iterator }
      return try await withThrowingTaskGroup(of: Data?.self) { group in
        group.addTask { try await box.next() }
        group.addTask {
          try await Task.sleep(for: idleTimeout)
          throw IdleTimeout(limit: idleTimeout)
        }
        defer { group.cancelAll() }
        return try await group.next() ?? nil
      }
    }
  }
}

@available(*, unavailable)
extension ServerSentEvents.Iterator: Sendable {}

/// The error a silent event stream is dropped with when ``EventReconnection/idleTimeout`` passes without a byte.
public struct IdleTimeout: Error, Sendable, CustomStringConvertible {
  /// The limit that passed.
  public var limit: Duration

  /// The limit, in words.
  public var description: String { "no byte of the event stream for \(limit)" }
}

/// Lets one child task read the iterator while the parent waits on the task group: the parent does not touch it
/// until the group is done, so there is never more than one reader.
private final class IteratorBox: @unchecked Sendable {
  var iterator: any AsyncIteratorProtocol<Data, any Error>

  init(_ iterator: any AsyncIteratorProtocol<Data, any Error>) {
    self.iterator = iterator
  }

  func next() async throws -> Data? {
    try await iterator.next()
  }
}

extension Transport {
  /// Opens a stream of server-sent events, reconnecting as `reconnection` says.
  ///
  /// ```swift
  /// let request = HTTPRequest(method: .get, url: URL(string: "https://example.com/notifications")!)
  /// for try await event in transport.events(request) { print(event.data) }
  /// ```
  /// Each connection sends `Accept: text/event-stream`, `Cache-Control: no-store` and, once the stream has set
  /// one, `Last-Event-ID`. A request with a body reconnects only when
  /// ``EventReconnection/reconnectsWithBody`` is on (a streamed body cannot be sent twice: use `.data`).
  /// - Parameters:
  ///   - request: The request head.
  ///   - body: The request body, if any.
  ///   - options: Transfer options.
  ///   - reconnection: The reconnection policy.
  /// - Returns: The events; see ``ServerSentEvents``.
  public func events(
    _ request: HTTPRequest,
    body: RequestBody? = nil,
    options: TransferOptions = TransferOptions(),
    reconnection: EventReconnection = EventReconnection()
  ) -> ServerSentEvents {
    var policy = reconnection
    if body != nil, !policy.reconnectsWithBody { policy.maxAttempts = 0 }
    return ServerSentEvents(reconnection: policy) { lastEventID in
      var head = request
      EventStreamHeaders.apply(to: &head, lastEventID: lastEventID)
      let response = try await send(head, body: body, options: options)
      return EventStreamConnection(head: response.head, body: response.body)
    }
  }
}

/// The header fields of every event-stream request, the transport's and the facade's.
package enum EventStreamHeaders {
  /// Sets `Accept: text/event-stream`, `Cache-Control: no-store` and `Last-Event-ID` (when there is one).
  package static func apply(to head: inout HTTPRequest, lastEventID: String?) {
    head.headerFields[.accept] = "text/event-stream"
    head.headerFields[.cacheControl] = "no-store"
    if let lastEventID, !lastEventID.isEmpty {
      head.headerFields[HTTPField.Name("Last-Event-ID")!] = lastEventID
    } else {
      head.headerFields[HTTPField.Name("Last-Event-ID")!] = nil
    }
  }
}
