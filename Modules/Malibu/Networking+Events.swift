public import MalibuTransport

extension Networking {
  /// Opens a stream of server-sent events (`text/event-stream`) at an endpoint, reconnecting as `reconnection` says.
  ///
  /// ```swift
  /// for try await event in networking.events(.notifications) {
  ///   print(event.type, event.data)
  /// }
  /// ```
  /// Every connection goes through ``stream(_:)``, so the mode's queue, the hooks, logging, authentication and token
  /// refresh, the HTTPS policy and the endpoint's mock apply to each, reconnections included; each carries
  /// `Accept: text/event-stream`, `Cache-Control: no-store` and, once the stream has set an ID, `Last-Event-ID`
  /// (set after `preProcessRequest`, so that the middleware chain sees them).
  /// Nothing is sent until the sequence is iterated. A 204 ends it; another non-2xx status or a content type other
  /// than `text/event-stream` ends it with an `EventStreamError` naming which. A request whose method is not GET or
  /// HEAD counts as one with a body and reconnects only when `reconnection.reconnectsWithBody` is on. Breaking out of
  /// the loop or cancelling the task closes the connection and stops reconnecting.
  /// - Parameters:
  ///   - endpoint: The endpoint.
  ///   - reconnection: The reconnection policy; `EventReconnection()` by default.
  /// - Returns: The events (a `ServerSentEvents`).
  public func events(_ endpoint: R, reconnection: EventReconnection = EventReconnection()) -> ServerSentEvents {
    var policy = reconnection
    let method = endpoint.request.method
    if method != .get, method != .head, !policy.reconnectsWithBody { policy.maxAttempts = 0 }
    return ServerSentEvents(reconnection: policy) { [self] lastEventID in
      let response = try await stream(endpoint) { head in
        EventStreamHeaders.apply(to: &head, lastEventID: lastEventID)
      }
      return EventStreamConnection(head: response.head, body: response.body)
    }
  }

  /// Opens a stream of server-sent events whose `data` is JSON (or whatever ``decoder`` reads), decoded into
  /// `type` event by event, ending at `sentinel`.
  ///
  /// ```swift
  /// for try await event in networking.events(.complete(prompt), as: Completion.self) {
  ///   if let chunk = event.value { print(chunk.text, terminator: "") }
  /// }
  /// ```
  /// An event that cannot be decoded is an `undecodable` element carrying the raw event and the error; the stream
  /// goes on. See ``events(_:reconnection:)`` for the connections.
  /// - Parameters:
  ///   - endpoint: The endpoint.
  ///   - type: The type of each event's data.
  ///   - sentinel: The data that ends the stream: `"[DONE]"` by default, `nil` for none.
  ///   - reconnection: The reconnection policy.
  /// - Returns: The typed events (a `DecodedServerSentEvents`).
  public func events<Value: Decodable & Sendable>(
    _ endpoint: R,
    as type: Value.Type,
    until sentinel: String? = "[DONE]",
    reconnection: EventReconnection = EventReconnection()
  ) -> DecodedServerSentEvents<Value> {
    events(endpoint, reconnection: reconnection).decoding(type, with: decoder, until: sentinel)
  }
}
