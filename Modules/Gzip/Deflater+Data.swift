public import Foundation

extension Deflater {
  /// Compresses one chunk and returns the output it produced (often empty: zlib buffers).
  /// - Parameter chunk: The next uncompressed bytes.
  /// - Returns: The compressed bytes produced so far by this chunk.
  /// - Throws: ``GzipError``, as ``deflate(_:_:)``.
  public func deflate(_ chunk: some DataProtocol) throws -> Data {
    var output = Data()
    for region in chunk.regions {
      try region.withUnsafeBytes { bytes in
        try deflate(bytes) { output.append($0.baseAddress!.assumingMemoryBound(to: UInt8.self), count: $0.count) }
      }
    }
    return output
  }

  /// Flushes the input fed so far and returns the output, as ``flush(_:)``.
  /// - Returns: The compressed bytes for everything fed so far and not yet handed out.
  /// - Throws: ``GzipError``, as ``flush(_:)``.
  public func flush() throws -> Data {
    var output = Data()
    try flush { output.append($0.baseAddress!.assumingMemoryBound(to: UInt8.self), count: $0.count) }
    return output
  }

  /// Writes the end of the stream, closes the deflater and returns the remaining output.
  /// - Returns: The last compressed bytes, trailer included.
  /// - Throws: ``GzipError``, as ``finish(_:)``.
  public func finish() throws -> Data {
    var output = Data()
    try finish { output.append($0.baseAddress!.assumingMemoryBound(to: UInt8.self), count: $0.count) }
    return output
  }
}
