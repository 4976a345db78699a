import CZlib

/// A streaming decompressor for gzip, zlib and raw-deflate bodies, fed chunk by chunk as they arrive.
///
/// An `Inflater` has one owner at a time: it is deliberately not `Sendable`. Feed every chunk to
/// ``inflate(_:_:)`` (or the `Data` convenience ``inflate(_:)``), then call ``finish()`` once the input has
/// ended, so that a cut-off stream is reported as ``GzipError/Code/truncated``. A chunk may end at any
/// byte, even inside the gzip header: the output is the same as for one big chunk.
///
/// ```swift
/// let inflater = Inflater(format: .automatic, limit: 50 << 20)
/// for try await chunk in body {
///   try chunk.withUnsafeBytes { bytes in
///     try inflater.inflate(bytes) { output in consume(output) }
///   }
/// }
/// try inflater.finish()
/// ```
///
/// - Concatenated gzip members are all decoded; bytes after the end of a zlib or raw stream, or bytes
///   after a gzip member that do not start another member, are ``GzipError/Code/trailingData``.
/// - With a `limit`, the inflater hands out at most `limit` bytes and then throws
///   ``GzipError/Code/limitExceeded``, without inflating further (a decompression bomb costs at most
///   `limit` bytes of work).
/// - After ``finish()`` or after any error (including one thrown by your sink), the inflater is closed
///   and every later call throws ``GzipError/Code/closed``; zlib's memory is released at that point.
public final class Inflater {
  /// The format asked for at creation.
  public let format: Format
  /// The largest decompressed size accepted, or `nil` for no limit.
  public let limit: Int?
  /// The format being decoded: the one asked for, or the one detected by ``Format/automatic`` once the
  /// first two bytes have arrived; `nil` before that.
  public internal(set) var detectedFormat: Format?
  /// The number of compressed bytes accepted so far.
  public internal(set) var totalIn = 0
  /// The number of decompressed bytes handed out so far.
  public internal(set) var totalOut = 0

  /// The size of the output buffer reused for every call. zlib copies up to 32 KiB of each call's output into its
  /// window, so a large buffer (fewer calls per input chunk) keeps that copy small next to the output itself.
  static let bufferSize = 256 * 1024

  // The z_stream lives on the heap at a fixed address for the object's whole life: zlib's internal state
  // keeps a pointer back to it and rejects a moved stream. It is allocated in init, initialised by zlib on
  // the first byte, ended (inflateEnd) when the stream finishes or fails, and deallocated in deinit; next_in
  // and next_out are cleared after every call so the stream never points at caller memory.
  let stream: UnsafeMutablePointer<z_stream>
  let buffer: UnsafeMutableRawPointer
  var state = State.idle(sniffed: nil)
  /// Whether `inflateInit2` succeeded and `inflateEnd` has not run yet.
  var zlibReady = false
  /// The first bytes of the input (up to four), quoted when they turn out not to be compressed data.
  var leadingBytes: [UInt8] = []

  /// Where the inflater stands.
  enum State {
    /// Nothing handed to zlib yet; `.automatic` may hold the first byte while waiting for the second.
    case idle(sniffed: UInt8?)
    /// Inside a stream (or a gzip member).
    case inflating
    /// A gzip member ended; the next bytes must start another member (`sawMagic`: `1f` already seen).
    case memberEnded(sawMagic: Bool)
    /// A zlib or raw-deflate stream ended; nothing may follow.
    case ended
    /// Finished, or failed with the given error.
    case closed(cause: (any Error)?)
  }

  /// Creates an inflater. No zlib memory is allocated until the first byte arrives.
  /// - Parameters:
  ///   - format: The expected format; ``Format/automatic`` (the default) detects it from the first bytes.
  ///   - limit: The largest decompressed size accepted (negative values count as 0), or `nil` for none.
  public init(format: Format = .automatic, limit: Int? = nil) {
    self.format = format
    self.limit = limit.map { max($0, 0) }
    stream = .allocate(capacity: 1)
    stream.initialize(to: z_stream())
    buffer = .allocate(byteCount: Self.bufferSize, alignment: 16)
  }

  deinit {
    endZlib()
    stream.deinitialize(count: 1)
    stream.deallocate()
    buffer.deallocate()
  }

  /// Decompresses one chunk, handing the output to `sink` in pieces of up to 256 KiB.
  ///
  /// This is the fast path: the output buffer is reused, nothing is allocated per chunk.
  /// - Parameters:
  ///   - input: The next compressed bytes (may be empty).
  ///   - sink: Called with each piece of output. The buffer is only valid during the call and is reused
  ///     afterwards; copy what you keep. An error thrown by `sink` is rethrown unchanged and closes the
  ///     inflater.
  /// - Throws: ``GzipError`` (``GzipError/Code/corrupt``, ``GzipError/Code/limitExceeded``,
  ///   ``GzipError/Code/trailingData``, ``GzipError/Code/closed``, ``GzipError/Code/internal``) or the
  ///   error thrown by `sink`.
  public func inflate(_ input: UnsafeRawBufferPointer, _ sink: (UnsafeRawBufferPointer) throws -> Void) throws {
    if case .closed(let cause) = state {
      throw GzipError.closed("the inflater", cause: cause)
    }
    do {
      try process(input, sink)
    } catch {
      close(cause: error)
      throw error
    }
  }

  /// Declares the end of the input and checks that the stream was complete.
  ///
  /// All output has already been handed out by ``inflate(_:_:)``; this call produces none. It closes the
  /// inflater and releases zlib's memory.
  /// - Throws: ``GzipError/Code/truncated`` if the stream (or a gzip member) is incomplete — an empty
  ///   input included, whatever the format — or ``GzipError/Code/closed`` if already closed.
  public func finish() throws {
    let error: GzipError
    switch state {
    case .ended, .memberEnded(sawMagic: false):
      close(cause: nil)
      return
    case .closed(let cause):
      throw GzipError.closed("the inflater", cause: cause)
    case .idle(let sniffed):
      let what = sniffed == nil ? "the compressed stream is empty" : "the compressed stream ended after one byte"
      error = GzipError(code: .truncated, message: what)
    case .memberEnded(sawMagic: true):
      error = GzipError(code: .truncated, message: "a gzip member ended after its first byte")
    case .inflating:
      error = GzipError(
        code: .truncated,
        message: "the \((detectedFormat ?? format).displayName) stream ended early, after \(totalIn) compressed bytes"
      )
    }
    close(cause: error)
    throw error
  }

  /// Moves to the closed state and releases zlib's memory.
  func close(cause: (any Error)?) {
    endZlib()
    state = .closed(cause: cause)
  }

  private func endZlib() {
    if zlibReady {
      inflateEnd(stream)
      zlibReady = false
    }
  }
}

@available(*, unavailable)
extension Inflater: Sendable {}
