import Foundation
import MalibuTransport

/// Bytes of a request body pulled by whatever feeds URLSession (an `InputStream`): one owner, one thread at a time.
protocol ChunkSource: AnyObject {
  /// Copies the next bytes into `buffer`, blocking until there are some; `0` only at the end of the body.
  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

/// An `UploadSource` read the blocking way URLSession reads a body stream: when the source answers `wait` (a
/// streamed body whose producer has not caught up), the read blocks until `waitForBytes` returns, then tries again.
final class UploadChunks: ChunkSource {
  private let source: any UploadSource
  private let waitForBytes: () -> Void

  init(_ source: any UploadSource, waitForBytes: @escaping () -> Void = {}) {
    self.source = source
    self.waitForBytes = waitForBytes
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    while true {
      switch try source.read(into: buffer) {
      case .bytes(let count): return count
      case .end: return 0
      case .wait: waitForBytes()
      }
    }
  }
}
