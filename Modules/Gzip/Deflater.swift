import CZlib

/// A streaming compressor producing gzip, zlib or raw-deflate output, for request bodies.
///
/// A `Deflater` has one owner at a time: it is deliberately not `Sendable`. Feed the body to
/// ``deflate(_:_:)`` in as many chunks as you like, then call ``finish(_:)`` once to write the end of the
/// stream (the gzip trailer, the zlib checksum). ``flush(_:)`` pushes out everything fed so far, so a
/// reader can decode it before the stream ends.
///
/// ```swift
/// let deflater = Deflater(format: .gzip, level: .default)
/// var body = Data()
/// for chunk in chunks {
///   body.append(try deflater.deflate(chunk))
/// }
/// body.append(try deflater.finish())
/// ```
///
/// After ``finish(_:)`` or any error (including one thrown by your sink) the deflater is closed, its zlib
/// memory released, and every later call throws ``GzipError/Code/closed``.
public final class Deflater {
  /// The framing of a compressed stream to produce.
  public struct Format: Hashable, Sendable, CustomStringConvertible {
    private let name: String

    private init(_ name: String) {
      self.name = name
    }

    /// gzip (RFC 1952), what HTTP `Content-Encoding: gzip` means; the header has no name and no time.
    public static let gzip = Format("gzip")
    /// zlib (RFC 1950), what HTTP `Content-Encoding: deflate` means.
    public static let zlib = Format("zlib")
    /// Raw deflate (RFC 1951) with no header and no checksum.
    public static let rawDeflate = Format("rawDeflate")

    /// The name of the format, for example `gzip`.
    public var description: String { name }

    var windowBits: Int32 {
      switch self {
      case .gzip: return 15 + 16
      case .zlib: return 15
      default: return -15
      }
    }
  }

  /// The framing of the output.
  public let format: Format
  /// The compression level.
  public let level: CompressionLevel
  /// The number of uncompressed bytes accepted so far.
  public private(set) var totalIn = 0
  /// The number of compressed bytes handed out so far.
  public private(set) var totalOut = 0

  private static let bufferSize = 64 * 1024
  // The z_stream lives on the heap at a fixed address for the object's whole life: zlib's internal state
  // keeps a pointer back to it and rejects a moved stream. It is allocated in init, initialised by zlib on
  // first use, ended (deflateEnd) when the stream finishes or fails, and deallocated in deinit; next_in
  // and next_out are cleared after every call so the stream never points at caller memory.
  private let stream: UnsafeMutablePointer<z_stream>
  private let buffer: UnsafeMutableRawPointer
  private var zlibReady = false
  private var closed = false
  private var closeCause: (any Error)?

  /// Creates a deflater. No zlib memory is allocated until the first call.
  /// - Parameters:
  ///   - format: The framing of the output.
  ///   - level: The compression level; ``CompressionLevel/default`` unless told otherwise.
  public init(format: Format, level: CompressionLevel = .default) {
    self.format = format
    self.level = level
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

  /// Compresses one chunk; zlib may keep some of it buffered until a later call, a flush or the finish.
  /// - Parameters:
  ///   - input: The next uncompressed bytes (may be empty).
  ///   - sink: Called with each piece of output (up to 64 KiB), valid only during the call.
  /// - Throws: ``GzipError`` (``GzipError/Code/closed``, ``GzipError/Code/internal``) or the error thrown
  ///   by `sink`.
  public func deflate(_ input: UnsafeRawBufferPointer, _ sink: (UnsafeRawBufferPointer) throws -> Void) throws {
    guard input.count > 0 else {
      try checkOpen()
      return
    }
    var base = input.baseAddress!
    var count = input.count
    while count > 0 {
      let piece = min(count, 1 << 30)
      try step(UnsafeRawBufferPointer(start: base, count: piece), Z_NO_FLUSH, sink)
      base += piece
      count -= piece
    }
  }

  /// Hands out all output for the input fed so far (a zlib sync flush), so it can be decoded already.
  /// - Parameter sink: Called with each piece of output, valid only during the call.
  /// - Throws: ``GzipError`` (``GzipError/Code/closed``, ``GzipError/Code/internal``) or the error thrown
  ///   by `sink`.
  public func flush(_ sink: (UnsafeRawBufferPointer) throws -> Void) throws {
    try step(UnsafeRawBufferPointer(start: nil, count: 0), Z_SYNC_FLUSH, sink)
  }

  /// Writes the end of the stream and closes the deflater.
  /// - Parameter sink: Called with each piece of output, valid only during the call.
  /// - Throws: ``GzipError`` (``GzipError/Code/closed``, ``GzipError/Code/internal``) or the error thrown
  ///   by `sink`.
  public func finish(_ sink: (UnsafeRawBufferPointer) throws -> Void) throws {
    try step(UnsafeRawBufferPointer(start: nil, count: 0), Z_FINISH, sink)
    close(cause: nil)
  }

  private func checkOpen() throws {
    if closed {
      throw GzipError.closed("the deflater", cause: closeCause)
    }
  }

  private func step(
    _ input: UnsafeRawBufferPointer,
    _ mode: Int32,
    _ sink: (UnsafeRawBufferPointer) throws -> Void
  ) throws {
    try checkOpen()
    do {
      if !zlibReady {
        let status = CZlib_deflateInit2(
          stream,
          Int32(level.value),
          Z_DEFLATED,
          format.windowBits,
          8,
          Z_DEFAULT_STRATEGY
        )
        guard status == Z_OK else {
          throw GzipError.zlib(.internal, "deflateInit2 failed", status: status, stream: stream)
        }
        zlibReady = true
      }
      try run(input, mode, sink)
    } catch {
      close(cause: error)
      throw error
    }
  }

  private func run(
    _ input: UnsafeRawBufferPointer,
    _ mode: Int32,
    _ sink: (UnsafeRawBufferPointer) throws -> Void
  ) throws {
    let stream = self.stream
    stream.pointee.next_in = input.baseAddress.map {
      UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: Bytef.self))
    }
    stream.pointee.avail_in = uInt(input.count)
    defer {
      stream.pointee.next_in = nil
      stream.pointee.avail_in = 0
      stream.pointee.next_out = nil
      stream.pointee.avail_out = 0
    }
    while true {
      let availIn = stream.pointee.avail_in
      stream.pointee.next_out = buffer.assumingMemoryBound(to: Bytef.self)
      stream.pointee.avail_out = uInt(Self.bufferSize)
      let status = CZlib.deflate(stream, mode)
      let consumed = Int(availIn - stream.pointee.avail_in)
      let produced = Self.bufferSize - Int(stream.pointee.avail_out)
      totalIn += consumed
      if produced > 0 {
        totalOut += produced
        try sink(UnsafeRawBufferPointer(start: buffer, count: produced))
      }
      switch status {
      case Z_STREAM_END where mode == Z_FINISH:
        return
      case Z_OK, Z_BUF_ERROR:
        if mode != Z_FINISH && stream.pointee.avail_out != 0 && stream.pointee.avail_in == 0 {
          return
        }
        if produced == 0 && consumed == 0 {
          throw GzipError.zlib(.internal, "deflate made no progress", status: status, stream: stream)
        }
      case Z_MEM_ERROR:
        throw GzipError.zlib(.internal, "zlib ran out of memory", status: status, stream: stream)
      default:
        throw GzipError.zlib(.internal, "deflate failed", status: status, stream: stream)
      }
    }
  }

  private func close(cause: (any Error)?) {
    endZlib()
    closed = true
    closeCause = cause
  }

  private func endZlib() {
    if zlibReady {
      deflateEnd(stream)
      zlibReady = false
    }
  }
}

@available(*, unavailable)
extension Deflater: Sendable {}
