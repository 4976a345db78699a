package import Foundation
@_spi(Malibu) import MalibuCore

/// The hand-over between a transport's thread (the producer) and the task that reads a response body (the
/// consumer).
///
/// The producer appends bytes with ``write(_:)`` as they arrive — without waking anyone — and calls ``flush()``
/// once per round of its event loop, so a fast download wakes the consumer once per round, not once per network
/// read. A consumer either pulls chunks (``next()``) or collects the whole body (``collect(upTo:)``): then the
/// producer appends straight into one buffer, pre-sized from the expected length, and the consumer is woken once,
/// at the end.
///
/// Back-pressure: when more than ``highWater`` bytes wait for a streaming consumer, ``write(_:)`` answers
/// ``WriteResult/pause``; the producer stops reading from the network until the consumer has drained the buffer
/// below ``lowWater``, which calls the producer's `onDemand` hook.
package final class BodyChannel: Sendable {
  /// What the producer should do after a write.
  package enum WriteResult: Sendable, Equatable {
    /// Keep reading.
    case proceed
    /// Stop reading from the network until `onDemand` is called.
    case pause
    /// Stop the transfer: the consumer is gone, or the body broke its limit.
    case stop
  }

  /// Bytes waiting for a streaming consumer (as written: encoded, when the consumer decodes) above which the
  /// producer is paused.
  package static let highWater = 4 << 20
  /// Bytes waiting below which a paused producer is resumed.
  package static let lowWater = 1 << 20
  /// The largest chunk handed to a streaming consumer. Bytes written in one round are cut into chunks of this size
  /// so that neither the producer's buffer nor the chunk the consumer holds grows to the whole window: a round of a
  /// fast download can write all of ``highWater`` at once.
  package static let chunkSize = 1 << 20

  private struct State {
    var pending = Data()
    /// A large body's buffer being filled (see ``ChunkBuffers``): bytes up to `flushed` were handed over already,
    /// those up to `count` are waiting for the next flush.
    var pendingBuffer: (lease: ChunkBuffers.Lease, flushed: Int, count: Int)?
    /// Whether the body is large enough to be written into recycled buffers: its expected length or the bytes
    /// written so far reached ``bufferedBodyThreshold``.
    var large = false
    /// The bytes written while the body was not yet large.
    var smallBytes = 0
    var chunks: [Data] = []
    var chunkHead = 0
    var buffered = 0
    var end: Result<Void, any Error>?
    var waiter: CheckedContinuation<Data?, any Error>?
    var collector: Collector?
    var paused = false
    var consumerStarted = false
    var cancelled = false
    var onDemand: (@Sendable () -> Void)?
    var onCancel: (@Sendable () -> Void)?
  }

  private struct Collector {
    var data: Data
    var limit: Int
    var continuation: CheckedContinuation<Data, any Error>?
  }

  private let state = Locked(State())
  private let buffers = ChunkBuffers()
  /// The body's length when known in advance (from `Content-Length`, when no decoding changes it).
  package let expectedLength: Int?

  /// The body size from which bytes go into recycled buffers instead of a growing `Data`.
  static let bufferedBodyThreshold = 64 << 10

  /// The reading side's decoder, when the body is encoded: the producer writes the encoded bytes and the reader
  /// inflates them (see ``DecodingReader``).
  private let decoding: DecodingReader?

  /// A channel for a body of `expectedLength` bytes, if known; with a `decoder`, the producer writes the encoded
  /// bytes and the reading task decodes them.
  package init(expectedLength: Int?, decoder: ContentDecoder? = nil) {
    self.expectedLength = expectedLength
    decoding = decoder.map(DecodingReader.init)
    if let expectedLength, expectedLength >= Self.bufferedBodyThreshold {
      state.withLock { $0.large = true }
    }
  }

  /// A channel that already holds the whole body, `data`, and has ended: nothing is copied.
  package init(complete data: Data) {
    expectedLength = data.count
    decoding = nil
    state.withLock { state in
      if !data.isEmpty {
        state.chunks = [data]
        state.buffered = data.count
      }
      state.end = .success(())
    }
  }

  // MARK: Producer

  /// Sets the hooks the producer wants called: `onDemand` when a paused transfer may read again, `onCancel` when the
  /// consumer gives up. Either may be called on any thread.
  package func setHandlers(onDemand: @escaping @Sendable () -> Void, onCancel: @escaping @Sendable () -> Void) {
    let cancelNow = state.withLock { state in
      state.onDemand = onDemand
      state.onCancel = onCancel
      return state.cancelled
    }
    if cancelNow { onCancel() }
  }

  /// Appends received bytes. Nobody is woken until ``flush()`` (or ``finish(_:)``).
  package func write(_ bytes: UnsafeRawBufferPointer) -> WriteResult {
    var failedCollector: CheckedContinuation<Data, any Error>?
    var limit = 0
    let result: WriteResult = state.withLock { state in
      if state.cancelled || state.end != nil { return .stop }
      if var collector = state.collector {
        guard collector.data.count + bytes.count <= collector.limit else {
          failedCollector = collector.continuation
          limit = collector.limit
          state.collector = nil
          state.cancelled = true
          state.end = .failure(Self.tooLarge(collector.limit))
          return .stop
        }
        state.collector = nil  // Keep the buffer uniquely referenced while appending.
        collector.data.append(contentsOf: bytes)
        state.collector = collector
        return .proceed
      }
      append(bytes, to: &state)
      let unflushed = state.pendingBuffer.map { $0.count - $0.flushed } ?? 0
      if state.buffered + state.pending.count + unflushed > Self.highWater {
        state.paused = true
        return .pause
      }
      return .proceed
    }
    failedCollector?.resume(throwing: Self.tooLarge(limit))
    return result
  }

  /// Appends to the pending bytes. A small body grows a `Data`; once the body is large, bytes fill recycled
  /// buffers of ``chunkSize`` (see ``ChunkBuffers``) to the end, across flushes, and a full buffer is queued.
  private func append(_ bytes: UnsafeRawBufferPointer, to state: inout State) {
    var rest = bytes
    if !state.large {
      state.smallBytes += rest.count
      state.large = state.smallBytes >= Self.bufferedBodyThreshold
    }
    while !rest.isEmpty {
      if state.pendingBuffer == nil && state.large, let lease = buffers.take() {
        // Bytes a small start left in `pending` go first, so the order holds.
        let carried = state.pending.count
        if carried > 0, let base = UnsafeMutableRawPointer(bitPattern: lease.address) {
          state.pending.withUnsafeBytes { base.copyMemory(from: $0.baseAddress!, byteCount: carried) }
          state.pending = Data()
        }
        state.pendingBuffer = (lease, 0, carried)
      }
      guard let (lease, flushed, count) = state.pendingBuffer,
        let base = UnsafeMutableRawPointer(bitPattern: lease.address)
      else {
        let piece = min(rest.count, Self.chunkSize - state.pending.count)
        state.pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: rest[..<piece]))
        rest = UnsafeRawBufferPointer(rebasing: rest[piece...])
        if state.pending.count >= Self.chunkSize { queuePending(&state) }
        continue
      }
      let piece = min(rest.count, Self.chunkSize - count)
      (base + count).copyMemory(from: rest.baseAddress!, byteCount: piece)
      state.pendingBuffer = (lease, flushed, count + piece)
      rest = UnsafeRawBufferPointer(rebasing: rest[piece...])
      if count + piece == Self.chunkSize { queuePending(&state) }
    }
  }

  /// Takes the oldest queued chunk, or `nil` when none is queued.
  private static func dequeue(_ state: inout State) -> Data? {
    guard state.chunkHead < state.chunks.count else { return nil }
    // The queue lets go of the chunk: a queue that never runs empty must not keep every chunk it handed out.
    var chunk = Data()
    swap(&chunk, &state.chunks[state.chunkHead])
    state.chunkHead += 1
    state.buffered -= chunk.count
    if state.chunkHead == state.chunks.count {
      state.chunks.removeAll(keepingCapacity: true)
      state.chunkHead = 0
    } else if state.chunkHead >= 64 && state.chunkHead * 2 >= state.chunks.count {
      state.chunks.removeFirst(state.chunkHead)
      state.chunkHead = 0
    }
    return chunk
  }

  /// Queues the bytes written since the last flush: the unflushed part of the buffer being filled (which is let go
  /// once full) or the pending `Data`.
  private func queuePending(_ state: inout State) {
    if let (lease, flushed, count) = state.pendingBuffer {
      if count > flushed {
        state.chunks.append(lease.chunk(from: flushed, count: count - flushed))
        state.buffered += count - flushed
      }
      state.pendingBuffer = count == Self.chunkSize ? nil : (lease, count, count)
    }
    if !state.pending.isEmpty {
      state.chunks.append(state.pending)
      state.buffered += state.pending.count
      state.pending = Data()
    }
  }

  /// Hands what was written since the last flush to a waiting consumer.
  package func flush() {
    let wake: (CheckedContinuation<Data?, any Error>, Data)? = state.withLock { state in
      queuePending(&state)
      guard let waiter = state.waiter, let chunk = Self.dequeue(&state) else { return nil }
      state.waiter = nil
      return (waiter, chunk)
    }
    if let (waiter, chunk) = wake { waiter.resume(returning: chunk) }
  }

  /// Ends the body: normally with `nil`, or with the error that broke the transfer.
  package func finish(_ error: (any Error)?) {
    flush()
    let wake: (CheckedContinuation<Data?, any Error>?, CheckedContinuation<Data, any Error>?, Data) =
      state.withLock { state in
        guard state.end == nil else { return (nil, nil, Data()) }
        state.end = error.map { .failure($0) } ?? .success(())
        let waiter = state.waiter
        state.waiter = nil
        let collector = state.collector
        state.collector = nil
        return (waiter, collector?.continuation, collector?.data ?? Data())
      }
    if let waiter = wake.0 {
      if let error { waiter.resume(throwing: error) } else { waiter.resume(returning: nil) }
    }
    if let collector = wake.1 {
      if let error { collector.resume(throwing: error) } else { collector.resume(returning: wake.2) }
    }
  }

  // MARK: Consumer

  /// The next chunk, or `nil` at the end of the body; decoded, when the channel has a decoder.
  package func next() async throws -> Data? {
    guard let decoding else { return try await nextWritten() }
    while true {
      do {
        if let chunk = try decoding.next() { return chunk }
      } catch {
        cancel()
        throw error
      }
      guard let encoded = try await nextWritten() else {
        try decoding.finish()
        return nil
      }
      decoding.feed(encoded)
    }
  }

  /// The next chunk as the producer wrote it, or `nil` at the end of the body.
  private func nextWritten() async throws -> Data? {
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
        var demand: (@Sendable () -> Void)?
        let outcome: Result<Data?, any Error>? = state.withLock { state in
          state.consumerStarted = true
          if let chunk = Self.dequeue(&state) {
            if state.paused && state.buffered < Self.lowWater {
              state.paused = false
              demand = state.onDemand
            }
            return .success(chunk)
          }
          if let end = state.end { return end.map { nil } }
          if state.cancelled { return .failure(TransportError.cancelled()) }
          state.waiter = continuation
          if state.paused {
            state.paused = false
            demand = state.onDemand
          }
          return nil
        }
        demand?()
        if let outcome { continuation.resume(with: outcome) }
      }
    } onCancel: {
      cancel()
    }
  }

  /// The whole body, collected into one buffer.
  package func collect(upTo limit: Int) async throws -> Data {
    if decoding != nil { return try await collectDecoded(upTo: limit) }
    if let ready = try collectEnded(upTo: limit) { return ready }
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data, any Error>) in
        var demand: (@Sendable () -> Void)?
        var cancelProducer: (@Sendable () -> Void)?
        let outcome: Result<Data, any Error>? = state.withLock { state in
          guard !state.consumerStarted else {
            return .failure(
              TransportError(code: .invalidRequest, message: "a response body can be read only once")
            )
          }
          state.consumerStarted = true
          var data = Data()
          queuePending(&state)
          let queued = state.buffered + state.pending.count
          if queued > limit {
            state.cancelled = true
            cancelProducer = state.onCancel
            return .failure(Self.tooLarge(limit))
          }
          data.reserveCapacity(min(max(expectedLength ?? 0, queued), limit))
          for chunk in state.chunks[state.chunkHead...] { data.append(chunk) }
          data.append(state.pending)
          state.chunks = []
          state.chunkHead = 0
          state.buffered = 0
          state.pending = Data()
          if let end = state.end { return end.map { data } }
          if state.cancelled { return .failure(TransportError.cancelled()) }
          state.collector = Collector(data: data, limit: limit, continuation: continuation)
          if state.paused {
            state.paused = false
            demand = state.onDemand
          }
          return nil
        }
        cancelProducer?()
        demand?()
        if let outcome { continuation.resume(with: outcome) }
      }
    } onCancel: {
      cancel()
    }
  }

  /// The whole decoded body, read chunk by chunk (the decoded length is not known in advance).
  private func collectDecoded(upTo limit: Int) async throws -> Data {
    let alreadyRead = state.withLock { state in
      defer { state.consumerStarted = true }
      return state.consumerStarted
    }
    if alreadyRead {
      throw TransportError(code: .invalidRequest, message: "a response body can be read only once")
    }
    var data = Data()
    while let chunk = try await next() {
      guard data.count + chunk.count <= limit else {
        cancel()
        throw Self.tooLarge(limit)
      }
      data.append(chunk)
    }
    return data
  }

  /// The whole body when the producer has already finished, without suspending; `nil` when it has not (or the
  /// body was read already, or the transfer was cancelled: ``collect(upTo:)`` reports those). A body that is one
  /// chunk is handed over as it is, without a copy.
  private func collectEnded(upTo limit: Int) throws -> Data? {
    let outcome: Result<Data, any Error>? = state.withLock { state in
      guard !state.consumerStarted, !state.cancelled, let end = state.end else { return nil }
      state.consumerStarted = true
      queuePending(&state)
      if case .failure(let error) = end { return .failure(error) }
      guard state.buffered <= limit else {
        state.cancelled = true
        return .failure(Self.tooLarge(limit))
      }
      var data = Data()
      let chunks = state.chunks[state.chunkHead...]
      if chunks.count == 1, let only = chunks.first {
        data = only
      } else {
        data.reserveCapacity(state.buffered)
        for chunk in chunks { data.append(chunk) }
      }
      state.chunks = []
      state.chunkHead = 0
      state.buffered = 0
      return .success(data)
    }
    return try outcome?.get()
  }

  /// Stops the transfer from the consumer's side; a waiting read ends with ``TransportError/Code/cancelled``.
  package func cancel() {
    let wake: (CheckedContinuation<Data?, any Error>?, CheckedContinuation<Data, any Error>?, (@Sendable () -> Void)?) =
      state.withLock { state in
        guard state.end == nil, !state.cancelled else { return (nil, nil, nil) }
        state.cancelled = true
        state.end = .failure(TransportError.cancelled())
        let waiter = state.waiter
        state.waiter = nil
        let collector = state.collector?.continuation
        state.collector = nil
        state.chunks = []
        state.pending = Data()
        state.pendingBuffer = nil
        return (waiter, collector, state.onCancel)
      }
    wake.0?.resume(throwing: TransportError.cancelled())
    wake.1?.resume(throwing: TransportError.cancelled())
    wake.2?()
  }

  /// Whether the body ended or was cancelled.
  package var isFinished: Bool {
    state.withLock { $0.end != nil }
  }

  private static func tooLarge(_ limit: Int) -> TransportError {
    TransportError(code: .bodyTooLarge, message: "the response body is larger than the limit of \(limit) bytes")
  }
}
