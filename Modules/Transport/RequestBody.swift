public import Foundation
@_spi(Malibu) public import MalibuCore

/// The body of a request: bytes in memory, a source read in chunks (a file, a multipart form), or an async
/// sequence of chunks.
///
/// ```swift
/// let small = RequestBody.data(Data("hello".utf8))
/// let large = try RequestBody.file(URL(fileURLWithPath: "/tmp/video.mp4"))
/// let form = RequestBody.source(multipartForm)          // any BodySource, streamed with its exact length
/// let live = RequestBody.stream(chunks, length: nil)    // any AsyncSequence of Data; sent chunked
/// ```
///
/// Data and sources can be sent again (a 307 or 308 redirect repeats the body); a stream is read once, so a
/// redirect that must repeat it fails with ``TransportError/Code/invalidRequest``.
public struct RequestBody: Sendable {
  /// Where the bytes come from.
  package enum Storage: Sendable {
    case data(Data)
    case source(any BodySource)
    case stream(AsyncStreamBody)
  }

  package let storage: Storage

  private init(_ storage: Storage) {
    self.storage = storage
  }

  /// A body of bytes in memory.
  /// - Parameter data: The bytes.
  /// - Returns: The body.
  public static func data(_ data: Data) -> RequestBody {
    RequestBody(.data(data))
  }

  /// A body read from a source on demand, such as a multipart form or a file.
  /// - Parameter source: The source; its `length`, when known, becomes the `Content-Length`.
  /// - Returns: The body.
  public static func source(_ source: any BodySource) -> RequestBody {
    RequestBody(.source(source))
  }

  /// A body streamed from a file, never held in memory as a whole.
  /// - Parameter url: A file URL.
  /// - Returns: The body, with the file's size as its length.
  /// - Throws: ``TransportError`` with code ``TransportError/Code/invalidRequest`` when the file is missing or is
  ///   not a regular file.
  public static func file(_ url: URL) throws(TransportError) -> RequestBody {
    do {
      return RequestBody(.source(try FileBody(url: url)))
    } catch {
      throw TransportError(code: .invalidRequest, message: error.message, underlyingError: error)
    }
  }

  /// A body produced by an async sequence, read once as the transport sends it.
  /// - Parameters:
  ///   - chunks: The chunks, in order.
  ///   - length: The total length when known (sent as `Content-Length`); `nil` sends the body chunked.
  /// - Returns: The body.
  public static func stream<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks, length: UInt64?) -> RequestBody
  where Chunks.Element == Data {
    RequestBody(.stream(AsyncStreamBody(chunks, length: length)))
  }

  /// The length in bytes when known before sending.
  public var length: UInt64? {
    switch storage {
    case .data(let data): return UInt64(data.count)
    case .source(let source): return source.length
    case .stream(let stream): return stream.length
    }
  }

  /// Whether the body can be sent more than once (by a redirect that keeps the body).
  public var isRepeatable: Bool {
    if case .stream = storage { return false }
    return true
  }
}

/// A single-pass async sequence of chunks, type-erased. The transport pulls it chunk by chunk, so a slow network
/// slows the producer down instead of piling chunks up in memory.
package struct AsyncStreamBody: Sendable {
  package let length: UInt64?
  private let pump: @Sendable (_ deliver: @Sendable (Data) async throws -> Void) async throws -> Void
  private let taken = Locked(false)

  init<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks, length: UInt64?) where Chunks.Element == Data {
    self.length = length
    pump = { deliver in
      for try await chunk in chunks where !chunk.isEmpty {
        try await deliver(chunk)
      }
    }
  }

  /// Reads the whole sequence, handing each chunk to `deliver` and waiting for it before reading the next.
  /// Only the first call reads; a later one throws ``TransportError/Code/invalidRequest``.
  package func forEachChunk(_ deliver: @Sendable (Data) async throws -> Void) async throws {
    let first = taken.withLock { taken in
      defer { taken = true }
      return !taken
    }
    guard first else {
      throw TransportError(code: .invalidRequest, message: "a streamed request body can be sent only once")
    }
    try await pump(deliver)
  }
}
