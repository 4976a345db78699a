import Foundation
import MalibuCore
import MalibuGzip
import MalibuTransport

/// What one pull from a request body gave.
enum UploadRead {
  /// This many bytes were written into the buffer (never zero).
  case bytes(Int)
  /// The body ended.
  case end
  /// No bytes yet: a streamed body's producer has not caught up. The transfer pauses until it has.
  case wait
}

/// One pass over a request body, pulled by libcurl's read callback on the loop thread straight into libcurl's
/// upload buffer.
protocol UploadReader: AnyObject {
  /// Copies the next bytes into `buffer`.
  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> UploadRead
}

/// A ``BodySource``'s reader (a file, a multipart form).
final class SourceUploadReader: UploadReader {
  private let reader: any BodyReader

  init(_ reader: any BodyReader) {
    self.reader = reader
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> UploadRead {
    let count = try reader.read(into: buffer)
    return count == 0 ? .end : .bytes(min(count, buffer.count))
  }
}

/// Bytes in memory; used when they are compressed on the way (plain `Data` goes to libcurl as it is).
final class DataUploadReader: UploadReader {
  private let data: Data
  private var offset = 0

  init(_ data: Data) {
    self.data = data
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> UploadRead {
    let count = min(buffer.count, data.count - offset)
    guard count > 0 else { return .end }
    data.withUnsafeBytes { bytes in
      buffer.baseAddress!.copyMemory(from: bytes.baseAddress! + offset, byteCount: count)
    }
    offset += count
    return .bytes(count)
  }
}

/// A streamed body, read from the buffer its producer task fills.
final class StreamUploadReader: UploadReader {
  private let upload: StreamUpload

  init(_ upload: StreamUpload) {
    self.upload = upload
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> UploadRead {
    try upload.read(into: buffer)
  }
}

/// Compresses another reader's bytes with gzip on the way (`requestCompression == .gzip`). When a streamed body
/// makes the transfer wait, what was compressed so far is flushed first, so the server is never left waiting for
/// bytes that sit in zlib's window.
final class GzipUploadReader: UploadReader {
  private static let scratchSize = 64 << 10
  private let inner: any UploadReader
  private let deflater = Deflater(format: .gzip, level: .default)
  private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: scratchSize, alignment: 16)
  private var pending: [UInt8] = []
  private var pendingOffset = 0
  private var finished = false
  private var fedSinceFlush = false

  init(_ inner: any UploadReader) {
    self.inner = inner
  }

  deinit {
    scratch.deallocate()
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> UploadRead {
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
