import Foundation
import MalibuCore

#if canImport(FoundationNetworking)
import FoundationNetworking

/// The `InputStream` URLSession reads a streamed request body from on Linux.
///
/// FoundationNetworking has no bound stream pair, but it reads `httpBodyStream` through the stream's overridable
/// `read(_:maxLength:)` on the session's queue, and ends the body as soon as `hasBytesAvailable` is false, so this
/// subclass answers `true` until its source has said "end". A failure of the source is handed to `onError` and ends
/// the read with `-1`, which makes libcurl abort the transfer.
///
/// Only URLSession's queue touches an instance once the task has started; nothing here is shared between threads.
final class BodyInputStream: InputStream {
  private let source: any ChunkSource
  private let onError: @Sendable (any Error) -> Void
  private var status: Stream.Status = .notOpen
  private var failure: (any Error)?

  init(source: any ChunkSource, onError: @escaping @Sendable (any Error) -> Void) {
    self.source = source
    self.onError = onError
    super.init(data: Data())
  }

  override func open() {
    if status == .notOpen { status = .open }
  }

  override func close() {
    status = .closed
  }

  override var streamStatus: Stream.Status { status }

  override var streamError: (any Error)? { failure }

  override var hasBytesAvailable: Bool { status == .open || status == .reading }

  override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
    guard hasBytesAvailable, len > 0 else { return status == .error ? -1 : 0 }
    do {
      let count = try source.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: len))
      if count == 0 { status = .atEnd }
      return count
    } catch {
      status = .error
      failure = error
      onError(error)
      return -1
    }
  }

  override func getBuffer(
    _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
    length len: UnsafeMutablePointer<Int>
  ) -> Bool {
    false
  }
}
#endif
