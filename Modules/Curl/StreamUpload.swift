import Foundation
import MalibuCore
import MalibuTransport

/// The hand-over between the task that reads a streamed request body (`RequestBody.stream`) and the loop thread
/// that sends it.
///
/// The producer task appends chunks with ``deliver(_:)`` and is suspended while more than ``capacity`` bytes wait
/// (back-pressure). The loop's read callback takes bytes with ``read(into:)``; when none are there it answers
/// ``UploadRead/wait``, libcurl pauses the upload, and the next delivered chunk calls `onReadable`, which sends the
/// loop a command to unpause.
final class StreamUpload: Sendable {
  /// Bytes buffered above which the producer waits.
  static let capacity = 1 << 20

  private struct State {
    var chunks: [Data] = []
    var head = 0
    var offset = 0
    var buffered = 0
    var finished = false
    var failure: (any Error)?
    var cancelled = false
    var readerWaiting = false
    var producer: CheckedContinuation<Void, any Error>?
  }

  private let state = Locked(State())
  private let onReadable: @Sendable () -> Void

  init(onReadable: @escaping @Sendable () -> Void) {
    self.onReadable = onReadable
  }

  /// Appends a chunk; waits while the buffer is full.
  /// - Throws: ``TransportError/Code/cancelled`` once the transfer has ended.
  func deliver(_ chunk: Data) async throws {
    let (wake, mustWait) = try state.withLock { state in
      guard !state.cancelled else { throw TransportError.cancelled() }
      state.chunks.append(chunk)
      state.buffered += chunk.count
      let wake = state.readerWaiting
      state.readerWaiting = false
      return (wake, state.buffered >= Self.capacity)
    }
    if wake { onReadable() }
    guard mustWait else { return }
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
      let now: Result<Void, any Error>? = state.withLock { state in
        if state.cancelled { return .failure(TransportError.cancelled()) }
        if state.buffered < Self.capacity { return .success(()) }
        state.producer = continuation
        return nil
      }
      if let now { continuation.resume(with: now) }
    }
  }

  /// Ends the body: normally, or with the error the producer's sequence threw.
  func finish(_ error: (any Error)?) {
    let wake = state.withLock { state in
      state.finished = true
      state.failure = error
      defer { state.readerWaiting = false }
      return state.readerWaiting
    }
    if wake { onReadable() }
  }

  /// Stops the producer: the transfer is over.
  func cancel() {
    let producer = state.withLock { state in
      state.cancelled = true
      state.chunks = []
      state.buffered = 0
      defer { state.producer = nil }
      return state.producer
    }
    producer?.resume(throwing: TransportError.cancelled())
  }

  /// Takes buffered bytes (loop thread).
  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> UploadRead {
    var producer: CheckedContinuation<Void, any Error>?
    defer { producer?.resume() }
    return try state.withLock { state in
      var copied = 0
      while copied < buffer.count && state.head < state.chunks.count {
        let chunk = state.chunks[state.head]
        let count = min(buffer.count - copied, chunk.count - state.offset)
        chunk.withUnsafeBytes { bytes in
          (buffer.baseAddress! + copied).copyMemory(from: bytes.baseAddress! + state.offset, byteCount: count)
        }
        copied += count
        state.offset += count
        if state.offset == chunk.count {
          state.head += 1
          state.offset = 0
        }
      }
      if state.head == state.chunks.count {
        state.chunks.removeAll(keepingCapacity: true)
        state.head = 0
      }
      if copied > 0 {
        state.buffered -= copied
        if state.buffered < Self.capacity / 2 {
          producer = state.producer
          state.producer = nil
        }
        return .bytes(copied)
      }
      if state.finished {
        if let failure = state.failure { throw failure }
        return .end
      }
      state.readerWaiting = true
      return .wait
    }
  }
}
