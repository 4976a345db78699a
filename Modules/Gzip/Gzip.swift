public import Foundation

/// One-shot helpers: compress or decompress a whole body held in memory.
///
/// The one-shot style of MalibuGzip is this namespace (not extensions on `Data`), so the calls read
/// the same at every use and never clash with other libraries' `Data` extensions. For bodies that arrive
/// in pieces, use ``Inflater`` and ``Deflater`` directly.
///
/// ```swift
/// let packed = try Gzip.deflate(Data("hello".utf8))
/// let body = try Gzip.inflate(packed, limit: 1 << 20)
/// ```
public enum Gzip: Sendable {
  /// Decompresses a complete gzip, zlib or raw-deflate stream.
  /// - Parameters:
  ///   - data: The whole compressed stream.
  ///   - format: The expected format; ``Inflater/Format/automatic`` (the default) detects it.
  ///   - limit: The largest decompressed size accepted, or `nil` for no limit.
  /// - Returns: The decompressed bytes (every member of a multi-member gzip stream, concatenated).
  /// - Throws: ``GzipError`` with ``GzipError/Code/truncated``, ``GzipError/Code/corrupt``,
  ///   ``GzipError/Code/limitExceeded``, ``GzipError/Code/trailingData`` or ``GzipError/Code/internal``.
  public static func inflate(
    _ data: some DataProtocol,
    format: Inflater.Format = .automatic,
    limit: Int? = nil
  ) throws -> Data {
    let inflater = Inflater(format: format, limit: limit)
    let output = try inflater.inflate(data)
    try inflater.finish()
    return output
  }

  /// Compresses bytes into one complete stream.
  /// - Parameters:
  ///   - data: The bytes to compress.
  ///   - format: The framing of the output; gzip by default.
  ///   - level: The compression level.
  /// - Returns: The complete compressed stream (for empty input, a valid stream of nothing).
  /// - Throws: ``GzipError`` with ``GzipError/Code/internal`` if zlib fails (for example out of memory).
  public static func deflate(
    _ data: some DataProtocol,
    format: Deflater.Format = .gzip,
    level: CompressionLevel = .default
  ) throws -> Data {
    let deflater = Deflater(format: format, level: level)
    var output = try deflater.deflate(data)
    output.append(try deflater.finish())
    return output
  }
}
