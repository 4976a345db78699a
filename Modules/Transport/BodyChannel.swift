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
    /// A small body's bytes since the last flush (a large one's go into ``queue``'s buffers).
    var pending = Data()
    /// The chunks waiting for the consumer, and the recycled buffer a large body fills.
    var queue = ChunkQueue()
    /// The bytes written so far.
    var written = 0
    var end: Result<Void, any Error>?
    /// The waiting reader. Continuations here are unsafe ones (no allocation to check them): each is taken out of
    /// the state under the lock before it is resumed, so it is resumed exactly once.
    var waiter: UnsafeContinuation<Data?, any Error>?
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
    var continuation: UnsafeContinuation<Data, any Error>?
  }

  private let state = Locked(State())
  /// The body's length when known in advance (from `Content-Length`, when no decoding changes it).
  package let expectedLength: Int?

  /// The body size from which bytes go into recycled buffers instead of a growing `Data`.
  static let bufferedBodyThreshold = 64 << 10
  /// Whether the expected length alone makes the body large (see ``bufferedBodyThreshold``).
  private let expectedLarge: Bool

  /// The reading side's decoder, when the body is encoded: the producer writes the encoded bytes and the reader
  /// inflates them (see ``DecodingReader``).
  private let decoding: DecodingReader?

  /// A channel for a body of `expectedLength` bytes, if known; with a `decoder`, the producer writes the encoded
  /// bytes and the reading task decodes them.
  package init(expectedLength: Int?, decoder: ContentDecoder? = nil) {
    self.expectedLength = expectedLength
    decoding = decoder.map(DecodingReader.init)
    expectedLarge = (expectedLength ?? 0) >= Self.bufferedBodyThreshold
  }

  /// A channel that already holds the whole body, `data`, and has ended: nothing is copied.
  package init(complete data: Data) {
    expectedLength = data.count
    decoding = nil
    expectedLarge = false
    state.withLock { state in
      state.queue.append(data)
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
    var failedCollector: UnsafeContinuation<Data, any Error>?
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
      return Self.backPressure(&state)
    }
    failedCollector?.resume(throwing: Self.tooLarge(limit))
    return result
  }

  /// Appends received bytes that already live in a `Data` of their own (URLSession hands each network read over as
  /// one). A streamed body queues the `Data` itself, after everything written before it, instead of copying it into
  /// the channel's buffers; a collected body, or a piece smaller than ``ownedChunkThreshold`` or larger than
  /// ``chunkSize``, is copied in as the raw-bytes `write` does. Nobody is woken until
  /// ``flush()``.
  package func write(_ data: Data) -> WriteResult {
    guard (Self.ownedChunkThreshold...Self.chunkSize).contains(data.count) else {
      return data.withUnsafeBytes { write($0) }
    }
    let queued: WriteResult? = state.withLock { state in
      if state.cancelled || state.end != nil { return .stop }
      guard state.collector == nil else { return nil }
      state.written += data.count
      queuePending(&state)
      state.queue.append(data)
      return Self.backPressure(&state)
    }
    return queued ?? data.withUnsafeBytes { write($0) }
  }

  /// `.pause` (and the producer marked paused) when more than ``highWater`` bytes wait for the consumer, else `.proceed`.
  private static func backPressure(_ state: inout State) -> WriteResult {
    guard state.queue.queuedBytes + state.queue.unqueuedBytes + state.pending.count > highWater else { return .proceed }
    state.paused = true
    return .pause
  }

  /// The size from which `write(_:)` given a `Data` queues a streamed body's `Data` as it is: smaller pieces are merged,
  /// so that a trickle of tiny reads does not become as many chunks.
  static let ownedChunkThreshold = 4 << 10

  /// Appends to the pending bytes. A small body grows a `Data`, cut at ``chunkSize``; once the body is large, bytes
  /// fill recycled buffers to the end, across flushes (see ``ChunkQueue``).
  private func append(_ bytes: UnsafeRawBufferPointer, to state: inout State) {
    var rest = bytes
    state.written += bytes.count
    if expectedLarge || state.written >= Self.bufferedBodyThreshold {
      // What a small start left in `pending` goes first, so the order holds.
      if !state.pending.isEmpty {
        state.queue.append(state.pending)
        state.pending = Data()
      }
      rest = UnsafeRawBufferPointer(rebasing: rest[state.queue.write(rest)...])
    }
    // A small body, or no memory left for a buffer.
    while !rest.isEmpty {
      let piece = min(rest.count, Self.chunkSize - state.pending.count)
      state.pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: rest[..<piece]))
      rest = UnsafeRawBufferPointer(rebasing: rest[piece...])
      if state.pending.count >= Self.chunkSize { queuePending(&state) }
    }
  }

  /// Queues the bytes written since the last flush: the unqueued part of the buffer being filled, then the pending
  /// `Data`.
  private func queuePending(_ state: inout State) {
    state.queue.flush()
    if !state.pending.isEmpty {
      state.queue.append(state.pending)
      state.pending = Data()
    }
  }

  /// Hands what was written since the last flush to a waiting consumer.
  package func flush() {
    let wake: (UnsafeContinuation<Data?, any Error>, Data)? = state.withLock { state in
      queuePending(&state)
      guard let waiter = state.waiter, let chunk = state.queue.popFirst() else { return nil }
      state.waiter = nil
      return (waiter, chunk)
    }
    if let (waiter, chunk) = wake { waiter.resume(returning: chunk) }
  }

  /// Does what ``flush()`` does when that wakes nobody — no consumer waits, or nothing was written since it began to
  /// wait — and answers `true`; answers `false`, doing nothing, when a flush would wake a waiting consumer (a producer
  /// that expects more bytes at once may flush later instead, and wake it once for all of them).
  package func flushUnlessWaking() -> Bool {
    state.withLock { state in
      // A consumer waits only on an empty queue, so anything queued since (an owned `Data`) is unflushed too.
      let unflushed = state.queue.queuedBytes + state.queue.unqueuedBytes + state.pending.count
      if state.waiter != nil && unflushed > 0 { return false }
      queuePending(&state)
      return true
    }
  }

  /// Ends the body: normally with `nil`, or with the error that broke the transfer.
  package func finish(_ error: (any Error)?) {
    flush()
    let wake: (UnsafeContinuation<Data?, any Error>?, UnsafeContinuation<Data, any Error>?, Data) =
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
    if let ready = takeQueued() { return ready }
    return try await withTaskCancellationHandler {
      try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Data?, any Error>) in
        var demand: (@Sendable () -> Void)?
        let outcome: Result<Data?, any Error>? = state.withLock { state in
          state.consumerStarted = true
          if let chunk = Self.take(&state, demand: &demand) { return .success(chunk) }
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

  /// The oldest queued chunk, taken without suspending (and without the cancellation handler and continuation of a
  /// wait): a reader that keeps up finds many chunks queued by one flush. `nil` when none is queued, or when the
  /// reading task is cancelled (the waiting path reports that and stops the transfer).
  private func takeQueued() -> Data? {
    if Task.isCancelled { return nil }
    var demand: (@Sendable () -> Void)?
    let chunk = state.withLock { state -> Data? in
      guard let chunk = Self.take(&state, demand: &demand) else { return nil }
      state.consumerStarted = true
      return chunk
    }
    demand?()
    return chunk
  }

  /// Takes the oldest queued chunk; when that drains a paused producer's backlog below ``lowWater``, resumes it and sets
  /// `demand` to the hook to call once the lock is released.
  private static func take(_ state: inout State, demand: inout (@Sendable () -> Void)?) -> Data? {
    guard let chunk = state.queue.popFirst() else { return nil }
    if state.paused && state.queue.queuedBytes < lowWater {
      state.paused = false
      demand = state.onDemand
    }
    return chunk
  }

  /// The whole body, collected into one buffer.
  package func collect(upTo limit: Int) async throws -> Data {
    if decoding != nil { return try await collectDecoded(upTo: limit) }
    if let ready = try collectEnded(upTo: limit) { return ready }
    return try await withTaskCancellationHandler {
      try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Data, any Error>) in
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
          let queued = state.queue.queuedBytes
          if queued > limit {
            state.cancelled = true
            cancelProducer = state.onCancel
            return .failure(Self.tooLarge(limit))
          }
          data.reserveCapacity(min(max(expectedLength ?? 0, queued), limit))
          for chunk in state.queue.removeAll() { data.append(chunk) }
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
      guard state.queue.queuedBytes <= limit else {
        state.cancelled = true
        return .failure(Self.tooLarge(limit))
      }
      var data = Data()
      let size = state.queue.queuedBytes
      let chunks = state.queue.removeAll()
      if chunks.count == 1, let only = chunks.first {
        data = only
      } else {
        data.reserveCapacity(size)
        for chunk in chunks { data.append(chunk) }
      }
      return .success(data)
    }
    return try outcome?.get()
  }

  /// Stops the transfer from the consumer's side; a waiting read ends with ``TransportError/Code/cancelled``.
  package func cancel() {
    let wake: (UnsafeContinuation<Data?, any Error>?, UnsafeContinuation<Data, any Error>?, (@Sendable () -> Void)?) =
      state.withLock { state in
        guard state.end == nil, !state.cancelled else { return (nil, nil, nil) }
        state.cancelled = true
        state.end = .failure(TransportError.cancelled())
        let waiter = state.waiter
        state.waiter = nil
        let collector = state.collector?.continuation
        state.collector = nil
        state.queue.clear()
        state.pending = Data()
        return (waiter, collector, state.onCancel)
      }
    wake.0?.resume(throwing: TransportError.cancelled())
    wake.1?.resume(throwing: TransportError.cancelled())
    wake.2?()
  }

  /// Whether a reader is suspended waiting for the next chunk.
  package var hasWaitingReader: Bool {
    state.withLock { $0.waiter != nil }
  }

  /// Whether the body ended or was cancelled.
  package var isFinished: Bool {
    state.withLock { $0.end != nil }
  }

  private static func tooLarge(_ limit: Int) -> TransportError {
    .bodyTooLarge(limit: limit)
  }
}
