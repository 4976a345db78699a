import Dispatch
import Foundation
@_spi(Malibu) import MalibuCore
import MalibuTransport

/// Hands the chunks of a streamed request body from the task that produces them to the thread URLSession reads the
/// body on: an `UploadBuffer` (back-pressure on the producer) with a semaphore on top, because URLSession's reads
/// block.
///
/// A read blocks until bytes arrive, the body ends, or ``close(_:)`` gives up. Closing is what unblocks a reader:
/// every path that stops a transfer closes the feed before it cancels the URLSession task, because on Linux
/// `URLSessionTask.cancel()` waits for the session's queue, the very queue a blocked reader sits on.
final class StreamFeed: Sendable {
  private let readable: DispatchSemaphore
  private let buffer: UploadBuffer
  private let producer = Locked<Task<Void, Never>?>(nil)

  init() {
    let readable = DispatchSemaphore(value: 0)
    self.readable = readable
    buffer = UploadBuffer(onReadable: { readable.signal() })
  }

  /// Starts pulling the body's chunks.
  func start(_ body: AsyncStreamBody) {
    let task = buffer.pump(body)
    producer.withLock { $0 = task }
  }

  /// Stops a transfer: a waiting reader wakes up and throws `error`, the producer stops.
  func close(_ error: any Error) {
    buffer.cancel(error)
    readable.signal()
    producer.withLock { $0 }?.cancel()
  }

  /// A blocking reader of the body, gzip-compressed on the way or not.
  func chunks(gzip: Bool) -> any ChunkSource {
    let readable = self.readable
    return UploadChunks(gzip ? GzipUploadSource(buffer) : buffer, waitForBytes: { readable.wait() })
  }
}
