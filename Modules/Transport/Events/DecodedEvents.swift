import Foundation
public import MalibuCore

/// One event of a typed stream: its `data` decoded, or the event and the error when it could not be.
public enum DecodedEvent<Value: Decodable & Sendable>: Sendable {
  /// The event's data, decoded; with the event it came from.
  case value(Value, event: ServerSentEvent)
  /// The event whose data could not be decoded, and the decoder's error; the stream goes on.
  case undecodable(ServerSentEvent, error: any Error)

  /// The decoded value; `nil` for an undecodable event.
  public var value: Value? {
    guard case .value(let value, _) = self else { return nil }
    return value
  }

  /// The raw event.
  public var event: ServerSentEvent {
    switch self {
    case .value(_, let event), .undecodable(let event, _): event
    }
  }
}

/// Server-sent events whose `data` is decoded (as JSON by default) into `Value`, event by event, ending at a
/// sentinel such as `[DONE]`: an `AsyncSequence` of ``DecodedEvent``.
///
/// ```swift
/// for try await event in transport.events(request).decoding(Chunk.self, with: JSONDecoder()) {
///   switch event {
///   case .value(let chunk, _): print(chunk.text, terminator: "")
///   case .undecodable(let raw, let error): print("skipped \(raw.data): \(error)")
///   }
/// }
/// ```
/// A decoding failure is an ``DecodedEvent/undecodable(_:error:)`` element, not the end of the sequence.
public struct DecodedServerSentEvents<Value: Decodable & Sendable>: AsyncSequence, Sendable {
  /// A decoded event, or an undecodable one.
  public typealias Element = DecodedEvent<Value>
  /// The errors of the underlying ``ServerSentEvents``.
  public typealias Failure = any Error

  private let events: ServerSentEvents
  private let decoder: any ResponseDecoder
  private let sentinel: String?

  /// Creates the sequence.
  /// - Parameters:
  ///   - events: The raw events.
  ///   - decoder: The decoder of each event's data.
  ///   - sentinel: The data that ends the sequence (not decoded, not returned), if any.
  public init(_ events: ServerSentEvents, decoder: any ResponseDecoder, sentinel: String?) {
    self.events = events
    self.decoder = decoder
    self.sentinel = sentinel
  }

  /// Creates the iterator.
  /// - Returns: The iterator.
  public func makeAsyncIterator() -> Iterator {
    Iterator(events: events.makeAsyncIterator(), decoder: decoder, sentinel: sentinel)
  }

  /// Reads and decodes events.
  public struct Iterator: AsyncIteratorProtocol {
    private var events: ServerSentEvents.Iterator
    private let decoder: any ResponseDecoder
    private let sentinel: String?
    private var done = false

    fileprivate init(events: ServerSentEvents.Iterator, decoder: any ResponseDecoder, sentinel: String?) {
      self.events = events
      self.decoder = decoder
      self.sentinel = sentinel
    }

    /// The next event, or `nil` after the sentinel or at the end of the stream.
    /// - Returns: The decoded (or undecodable) event.
    /// - Throws: What ``ServerSentEvents`` throws.
    public mutating func next() async throws -> DecodedEvent<Value>? {
      guard !done, let event = try await events.next() else { return nil }
      if let sentinel, event.data == sentinel {
        done = true
        return nil
      }
      do {
        return .value(try decoder.decode(Value.self, from: Data(event.data.utf8)), event: event)
      } catch {
        return .undecodable(event, error: error)
      }
    }
  }
}

@available(*, unavailable)
extension DecodedServerSentEvents.Iterator: Sendable {}

extension ServerSentEvents {
  /// Decodes each event's `data` into `type`, ending at `sentinel`.
  /// - Parameters:
  ///   - type: The type of each event's data.
  ///   - decoder: The decoder (a `JSONDecoder`, `MalibuJSONDecoder`, …).
  ///   - sentinel: The data that ends the stream; `"[DONE]"` by default, `nil` for none.
  /// - Returns: The typed events.
  public func decoding<Value: Decodable & Sendable>(
    _ type: Value.Type,
    with decoder: any ResponseDecoder,
    until sentinel: String? = "[DONE]"
  ) -> DecodedServerSentEvents<Value> {
    DecodedServerSentEvents(self, decoder: decoder, sentinel: sentinel)
  }
}
