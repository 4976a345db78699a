package import Foundation
@_spi(Malibu) import MalibuCore

/// The hand-over between the task that produces a streamed request body (`RequestBody.stream`) and the thread a
/// transport sends it from.
///
/// The producer appends chunks with ``deliver(_:)`` and is suspended while ``capacity`` bytes or more wait
/// (back-pressure); it resumes once the reader has taken the buffer below half of that. The reader takes bytes
/// with ``read(into:)``, which never blocks: when nothing is buffered it answers ``UploadRead/wait`` and the next
/// chunk (or the end of the body) calls `onReadable` once. A transport that must block (URLSession) waits for that
/// call; one that can pause the upload (libcurl) resumes it from there.
package final class UploadBuffer: UploadSource, Sendable {
  /// Bytes buffered above which the producer waits, unless told otherwise.
  package static let defaultCapacity = 1 << 20

  private struct State {
    var chunks: [Data] = []
    var head = 0
    var offset = 0
    var buffered = 0
    var finished = false
    var failure: (any Error)?
    var cancellation: (any Error)?
    var readerWaiting = false
    var producer: CheckedContinuation<Void, any Error>?
  }

  /// Bytes buffered above which the producer waits.
  package let capacity: Int
  private let state = Locked(State())
  private let onReadable: @Sendable () -> Void

  /// Creates an empty buffer.
  /// - Parameters:
  ///   - capacity: bytes buffered above which ``deliver(_:)`` waits.
  ///   - onReadable: called (outside the lock) when a reader that was answered ``UploadRead/wait`` can read again.
  package init(capacity: Int = UploadBuffer.defaultCapacity, onReadable: @escaping @Sendable () -> Void) {
    self.capacity = max(1, capacity)
    self.onReadable = onReadable
  }

  /// Reads the whole of `body` into the buffer in a new task, then ends the buffer with its outcome.
  /// - Parameter body: the streamed body.
  /// - Returns: the producer task; cancel it (and ``cancel(_:)`` the buffer) to stop early.
  package func pump(_ body: AsyncStreamBody) -> Task<Void, Never> {
    Task { [self] in
      do {
        try await body.forEachChunk { chunk in try await self.deliver(chunk) }
        finish(nil)
      } catch {
        finish(error)
      }
    }
  }

  /// Appends a chunk; waits while the buffer is full.
  /// - Parameter chunk: the next bytes of the body.
  /// - Throws: the error given to ``cancel(_:)`` once the transfer has stopped.
  package func deliver(_ chunk: Data) async throws {
    let (wake, mustWait) = try state.withLock { state in
      if let cancellation = state.cancellation { throw cancellation }
      state.chunks.append(chunk)
      state.buffered += chunk.count
      defer { state.readerWaiting = false }
      return (state.readerWaiting, state.buffered >= capacity)
    }
    if wake { onReadable() }
    guard mustWait else { return }
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
      let now: Result<Void, any Error>? = state.withLock { state in
        if let cancellation = state.cancellation { return .failure(cancellation) }
        if state.buffered < capacity { return .success(()) }
        state.producer = continuation
        return nil
      }
      if let now { continuation.resume(with: now) }
    }
  }

  /// Ends the body: normally, or with the error its producer threw. The reader gets the bytes still buffered, then
  /// ``UploadRead/end`` or the error. Only the first call counts.
  /// - Parameter error: what ended the body, `nil` for its normal end.
  package func finish(_ error: (any Error)?) {
    let wake = state.withLock { state in
      guard !state.finished else { return false }
      state.finished = true
      state.failure = error
      defer { state.readerWaiting = false }
      return state.readerWaiting
    }
    if wake { onReadable() }
  }

  /// Stops the transfer: the buffered bytes are dropped, the producer's ``deliver(_:)`` and the reader's
  /// ``read(into:)`` throw `error` from now on. Does not call `onReadable`.
  /// - Parameter error: the reason, ``TransportError/Code/cancelled`` when not given.
  package func cancel(_ error: (any Error)? = nil) {
    let error = error ?? TransportError.cancelled()
    let producer = state.withLock { state in
      if state.cancellation == nil { state.cancellation = error }
      state.chunks = []
      state.head = 0
      state.offset = 0
      state.buffered = 0
      defer { state.producer = nil }
      return state.producer
    }
    producer?.resume(throwing: error)
  }

  /// Takes buffered bytes without blocking.
  /// - Parameter buffer: where the bytes go.
  /// - Returns: how many bytes were copied, the end of the body, or ``UploadRead/wait``.
  /// - Throws: the error the body ended with, or the one it was cancelled with.
  package func read(into buffer: UnsafeMutableRawBufferPointer) throws -> UploadRead {
    var producer: CheckedContinuation<Void, any Error>?
    defer { producer?.resume() }
    return try state.withLock { state in
      if let cancellation = state.cancellation { throw cancellation }
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
        if state.buffered < capacity / 2 || state.buffered == 0 {
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
