public import Foundation
public import MalibuCore

/// The body of a response: collect it whole with ``collect(upTo:)``, or read it chunk by chunk as an
/// `AsyncSequence` of `Data`.
///
/// ```swift
/// let response = try await transport.send(request, body: nil, options: .init())
/// let data = try await response.body.collect(upTo: 10 << 20)   // fails beyond 10 MiB
///
/// for try await chunk in response.body { handle.write(chunk) }  // or stream it, with back-pressure
/// ```
///
/// A body is read once. Dropping it unread, or cancelling the task that reads it, stops the transfer and frees
/// the connection. Content codings (gzip, deflate) have already been decoded, unless the request disabled it.
public final class ResponseBody: AsyncSequence, Sendable, TransferMeasured {
  /// A chunk of the body.
  public typealias Element = Data
  /// Errors thrown while reading: ``TransportError`` or whatever the source of a custom body throws.
  public typealias Failure = any Error

  package let channel: BodyChannel

  /// A body fed by a transport through its channel.
  package init(channel: BodyChannel) {
    self.channel = channel
  }

  /// A body of bytes already in memory (for mocks and custom transports).
  /// - Parameter data: The whole body.
  public convenience init(data: Data) {
    self.init(channel: BodyChannel(complete: data))
  }

  /// A body read from an async sequence of chunks (for custom transports). The sequence is read as the body is
  /// consumed; dropping the body cancels the reading.
  /// - Parameters:
  ///   - chunks: The chunks.
  ///   - expectedLength: The total length when known, used to pre-size a collected body.
  public convenience init<Chunks: AsyncSequence & Sendable>(chunks: Chunks, expectedLength: Int? = nil)
  where Chunks.Element == Data {
    let channel = BodyChannel(expectedLength: expectedLength)
    let demand = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    let task = Task {
      var demandSignals = demand.stream.makeAsyncIterator()
      do {
        for try await chunk in chunks {
          let result = chunk.withUnsafeBytes { channel.write($0) }
          channel.flush()
          if result == .stop { return }
          if result == .pause { _ = await demandSignals.next() }
        }
        channel.finish(nil, metrics: (chunks as? any TransferMeasured)?.metrics)
      } catch {
        channel.finish(error)
      }
    }
    channel.setHandlers(
      onDemand: { demand.continuation.yield() },
      onCancel: {
        task.cancel()
        demand.continuation.finish()
      }
    )
    self.init(channel: channel)
  }

  deinit {
    channel.cancel()
  }

  /// An empty body.
  public static var empty: ResponseBody { ResponseBody(data: Data()) }

  /// The body's length when the server announced it and no decoding changes it.
  public var expectedLength: Int? { channel.expectedLength }

  /// The transfer's final figures (`TransferMetrics.total` and the body's sizes included), once the body
  /// has been read to its end; `nil` before, and when the transport measured nothing. A body that middleware passed
  /// through another sequence keeps them when that sequence is this body or conforms to ``TransferMeasured``.
  public var metrics: TransferMetrics? { channel.metrics }

  /// Reads the whole body into memory.
  /// - Parameter maxBytes: The largest body accepted.
  /// - Returns: The body.
  /// - Throws: ``TransportError`` with code ``TransportError/Code/bodyTooLarge`` past `maxBytes` (the transfer is
  ///   stopped at once), ``TransportError/Code/cancelled`` when the reading task is cancelled, or the error that
  ///   ended the transfer.
  public func collect(upTo maxBytes: Int) async throws -> Data {
    try await channel.collect(upTo: maxBytes)
  }

  /// Stops the transfer; a pending read ends with ``TransportError/Code/cancelled``.
  public func cancel() {
    channel.cancel()
  }

  /// Creates the iterator; a body can be iterated once.
  /// - Returns: The iterator.
  public func makeAsyncIterator() -> Iterator {
    Iterator(body: self)
  }

  /// Reads the body chunk by chunk.
  public struct Iterator: AsyncIteratorProtocol {
    private let body: ResponseBody

    fileprivate init(body: ResponseBody) {
      self.body = body
    }

    /// The next chunk, or `nil` at the end.
    /// - Returns: The chunk.
    /// - Throws: The error that ended the transfer.
    public mutating func next() async throws -> Data? {
      try await body.channel.next()
    }
  }
}

@available(*, unavailable)
extension ResponseBody.Iterator: Sendable {}

/// A body sequence that can tell the final `TransferMetrics` of the transfer it reads: a body built with
/// `ResponseBody(chunks:expectedLength:)` from such a sequence carries them on.
public protocol TransferMeasured: Sendable {
  /// The transfer's final figures, once known.
  var metrics: TransferMetrics? { get }
}
