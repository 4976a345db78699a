import Foundation
import MalibuCore
import MalibuGzip

/// Bytes of a request body pulled by whatever feeds URLSession (an `InputStream`): one owner, one thread at a time.
protocol ChunkSource: AnyObject {
  /// Copies the next bytes into `buffer`; `0` only at the end of the body.
  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

/// A body held in memory.
final class DataChunks: ChunkSource {
  private let data: Data
  private var offset = 0

  init(_ data: Data) {
    self.data = data
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    let count = min(buffer.count, data.count - offset)
    guard count > 0 else { return 0 }
    data.withUnsafeBytes { bytes in
      buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count]))
    }
    offset += count
    return count
  }
}

/// A body read from a `BodySource`'s reader (a file, a multipart form).
final class ReaderChunks: ChunkSource {
  private let reader: any BodyReader

  init(_ reader: any BodyReader) {
    self.reader = reader
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    try reader.read(into: buffer)
  }
}

/// Another source, gzip-compressed on the fly (`Content-Encoding: gzip` request bodies).
final class GzipChunks: ChunkSource {
  private let inner: any ChunkSource
  private let deflater = Deflater(format: .gzip)
  private var input = [UInt8](repeating: 0, count: 64 * 1024)
  private var output: [UInt8] = []
  private var outputOffset = 0
  private var finished = false

  init(_ inner: any ChunkSource) {
    self.inner = inner
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    while outputOffset == output.count {
      if finished { return 0 }
      output.removeAll(keepingCapacity: true)
      outputOffset = 0
      let count = try input.withUnsafeMutableBytes { try inner.read(into: $0) }
      if count == 0 {
        finished = true
        try deflater.finish { output.append(contentsOf: $0) }
      } else {
        try input.withUnsafeBytes { bytes in
          try deflater.deflate(UnsafeRawBufferPointer(rebasing: bytes[0..<count])) { output.append(contentsOf: $0) }
        }
      }
    }
    let count = min(buffer.count, output.count - outputOffset)
    output.withUnsafeBytes { bytes in
      buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[outputOffset..<outputOffset + count]))
    }
    outputOffset += count
    return count
  }
}
