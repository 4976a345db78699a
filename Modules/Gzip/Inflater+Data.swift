public import Foundation

extension Inflater {
  /// Decompresses one chunk and returns its output.
  /// - Parameter chunk: The next compressed bytes (may be empty).
  /// - Returns: The output this chunk produced (possibly empty, when the chunk only completed a header).
  /// - Throws: ``GzipError``, as ``inflate(_:_:)``.
  public func inflate(_ chunk: some DataProtocol) throws -> Data {
    var output = Data()
    for region in chunk.regions {
      try region.withUnsafeBytes { bytes in
        try inflate(bytes) { piece in
          output.append(piece.baseAddress!.assumingMemoryBound(to: UInt8.self), count: piece.count)
        }
      }
    }
    return output
  }
}
