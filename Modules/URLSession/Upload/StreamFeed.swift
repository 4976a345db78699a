import Dispatch
import Foundation
import MalibuCore
import MalibuTransport

/// Hands the chunks of a streamed request body from the task that produces them to the thread URLSession reads the
/// body on.
///
/// The producer (``run(_:)``) waits while more than ``highWater`` bytes are queued; the reader (``read(into:)``)
/// blocks until bytes arrive, the body ends, or ``close(_:)`` gives up. Closing is what unblocks a reader: every
/// path that stops a transfer closes the feed before it cancels the URLSession task, because on Linux
/// `URLSessionTask.cancel()` waits for the session's queue, the very queue a blocked reader sits on.
final class StreamFeed: Sendable {
  static let highWater = 1 << 20

  private struct State {
    var chunks: [Data] = []
    var head = 0
    var offset = 0
    var buffered = 0
    var ended = false
    var failure: (any Error)?
    var readerWaiting = false
    var spaceWaiter: CheckedContinuation<Void, Never>?
  }

  private let state = Locked(State())
  private let wakeReader = DispatchSemaphore(value: 0)
  private let producer = Locked<Task<Void, Never>?>(nil)

  /// Starts pulling the body's chunks.
  func start(_ body: AsyncStreamBody) {
    let task = Task { [self] in
      do {
        try await body.forEachChunk { chunk in try await self.push(chunk) }
        finish(nil)
      } catch {
        finish(error)
      }
    }
    producer.withLock { $0 = task }
  }

  /// Ends the body with an error (or stops a transfer): a waiting reader wakes up and throws, the producer stops.
  func close(_ error: any Error) {
    finish(error)
    producer.withLock { $0 }?.cancel()
  }

  private func push(_ chunk: Data) async throws {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let wait = state.withLock { state -> Bool in
        guard state.failure == nil, state.buffered >= Self.highWater else { return false }
        state.spaceWaiter = continuation
        return true
      }
      if !wait { continuation.resume() }
    }
    try Task.checkCancellation()
    let wake = try state.withLock { state -> Bool in
      if let failure = state.failure { throw failure }
      state.chunks.append(chunk)
      state.buffered += chunk.count
      defer { state.readerWaiting = false }
      return state.readerWaiting
    }
    if wake { wakeReader.signal() }
  }

  private func finish(_ error: (any Error)?) {
    let (wake, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
      guard !state.ended, state.failure == nil else { return (false, nil) }
      if let error { state.failure = error } else { state.ended = true }
      defer {
        state.readerWaiting = false
        state.spaceWaiter = nil
      }
      return (state.readerWaiting, state.spaceWaiter)
    }
    waiter?.resume()
    if wake { wakeReader.signal() }
  }

  /// Copies queued bytes into `buffer`, blocking until there are some; `0` at the end of the body.
  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    while true {
      var waiter: CheckedContinuation<Void, Never>?
      let count = try state.withLock { state -> Int? in
        if let failure = state.failure { throw failure }
        guard state.head < state.chunks.count else {
          if state.ended { return 0 }
          state.readerWaiting = true
          return nil
        }
        let chunk = state.chunks[state.head]
        let count = min(buffer.count, chunk.count - state.offset)
        chunk.withUnsafeBytes { bytes in
          buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[state.offset..<state.offset + count]))
        }
        state.offset += count
        state.buffered -= count
        if state.offset == chunk.count {
          state.head += 1
          state.offset = 0
          if state.head == state.chunks.count {
            state.chunks.removeAll(keepingCapacity: true)
            state.head = 0
          }
        }
        if state.buffered < Self.highWater {
          waiter = state.spaceWaiter
          state.spaceWaiter = nil
        }
        return count
      }
      waiter?.resume()
      if let count { return count }
      wakeReader.wait()
    }
  }
}

/// A ``StreamFeed`` read as a ``ChunkSource``.
final class FeedChunks: ChunkSource {
  private let feed: StreamFeed

  init(_ feed: StreamFeed) {
    self.feed = feed
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    try feed.read(into: buffer)
  }
}
