package import Foundation
package import MalibuCore
import MalibuGzip

/// What one pull from a request body gave.
package enum UploadRead: Sendable, Equatable {
  /// This many bytes were written into the buffer (never zero).
  case bytes(Int)
  /// The body ended.
  case end
  /// No bytes yet: a streamed body's producer has not caught up (see ``UploadBuffer``).
  case wait
}

/// One pass over a request body, pulled by a transport in chunks: one owner, one thread at a time.
package protocol UploadSource: AnyObject {
  /// Copies the next bytes into `buffer`.
  /// - Parameter buffer: where the bytes go (not empty).
  /// - Returns: how many bytes were copied, the end of the body, or ``UploadRead/wait``.
  /// - Throws: whatever reading the body threw.
  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> UploadRead
}

/// Bytes in memory.
package final class DataUploadSource: UploadSource {
  private let data: Data
  private var offset = 0

  /// Creates a source over `data`.
  /// - Parameter data: the whole body.
  package init(_ data: Data) {
    self.data = data
  }

  /// Copies the next bytes into `buffer`.
  /// - Parameter buffer: where the bytes go.
  /// - Returns: how many bytes were copied, or the end.
  package func read(into buffer: UnsafeMutableRawBufferPointer) -> UploadRead {
    let count = min(buffer.count, data.count - offset)
    guard count > 0 else { return .end }
    data.withUnsafeBytes { bytes in
      buffer.baseAddress!.copyMemory(from: bytes.baseAddress! + offset, byteCount: count)
    }
    offset += count
    return .bytes(count)
  }
}

/// A `BodySource`'s reader (a file, a multipart form).
package final class ReaderUploadSource: UploadSource {
  private let reader: any BodyReader

  /// Creates a source over `reader`.
  /// - Parameter reader: a fresh reader of the body.
  package init(_ reader: any BodyReader) {
    self.reader = reader
  }

  /// Copies the next bytes into `buffer`.
  /// - Parameter buffer: where the bytes go.
  /// - Returns: how many bytes were copied, or the end.
  /// - Throws: whatever the reader threw.
  package func read(into buffer: UnsafeMutableRawBufferPointer) throws -> UploadRead {
    let count = try reader.read(into: buffer)
    return count == 0 ? .end : .bytes(min(count, buffer.count))
  }
}

/// Compresses another source's bytes with gzip on the way (`requestCompression == .gzip`). When the inner source
/// answers ``UploadRead/wait``, what was compressed so far is flushed first, so the server is never left waiting
/// for bytes that sit in zlib's window.
package final class GzipUploadSource: UploadSource {
  private static let scratchSize = 64 << 10
  private let inner: any UploadSource
  private let deflater = Deflater(format: .gzip, level: .default)
  private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: scratchSize, alignment: 16)
  private var pending: [UInt8] = []
  private var pendingOffset = 0
  private var finished = false
  private var fedSinceFlush = false

  /// Creates a source compressing `inner`.
  /// - Parameter inner: the uncompressed body.
  package init(_ inner: any UploadSource) {
    self.inner = inner
  }

  deinit {
    scratch.deallocate()
  }

  /// Copies the next compressed bytes into `buffer`.
  /// - Parameter buffer: where the bytes go.
  /// - Returns: how many bytes were copied, the end, or ``UploadRead/wait``.
  /// - Throws: whatever the inner source or the compressor threw.
  package func read(into buffer: UnsafeMutableRawBufferPointer) throws -> UploadRead {
    while true {
      if pendingOffset < pending.count {
        let count = min(buffer.count, pending.count - pendingOffset)
        pending.withUnsafeBytes { bytes in
          buffer.baseAddress!.copyMemory(from: bytes.baseAddress! + pendingOffset, byteCount: count)
        }
        pendingOffset += count
        if pendingOffset == pending.count {
          pending.removeAll(keepingCapacity: true)
          pendingOffset = 0
        }
        return .bytes(count)
      }
      if finished { return .end }
      switch try inner.read(into: scratch) {
      case .bytes(let count):
        try deflater.deflate(UnsafeRawBufferPointer(rebasing: scratch[0..<count])) { pending.append(contentsOf: $0) }
        fedSinceFlush = true
      case .end:
        try deflater.finish { pending.append(contentsOf: $0) }
        finished = true
      case .wait:
        guard fedSinceFlush else { return .wait }
        try deflater.flush { pending.append(contentsOf: $0) }
        fedSinceFlush = false
      }
    }
  }
}
