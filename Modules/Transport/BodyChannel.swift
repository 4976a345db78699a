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
///
/// What happens on each event is decided by ``StateMachine``; this class keeps it under its lock with the suspended
/// reader's continuation, and resumes the reader or calls the producer's hooks once the lock is released.
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

  /// A suspended reader.
  private typealias Waiter = UnsafeContinuation<Data?, any Error>
  /// One of the producer's hooks.
  private typealias Hook = @Sendable () -> Void

  /// The state machine, the suspended reader and the producer's hooks, under one lock.
  private struct Guarded: Sendable {
    var machine: StateMachine
    /// The suspended reader (of ``next()`` or ``collect(upTo:)``), present exactly while the machine has a reader
    /// waiting. An unsafe continuation (no allocation to check it): it is taken out under the lock before it is
    /// resumed, so it is resumed exactly once.
    var waiter: Waiter?
    var onDemand: Hook?
    var onCancel: Hook?
    /// The transfer's final figures, given by the producer when it ended the body.
    var metrics: TransferMetrics?

    mutating func takeWaiter() -> Waiter? {
      defer { waiter = nil }
      return waiter
    }

    /// The producer's hook a signal calls for.
    func hook(for signal: StateMachine.ProducerSignal) -> Hook? {
      switch signal {
      case .none: nil
      case .resume: onDemand
      case .cancel: onCancel
      }
    }
  }

  private let state: Locked<Guarded>
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
    state = Locked(Guarded(machine: StateMachine(expectedLength: expectedLength)))
  }

  /// A channel that already holds the whole body, `data`, and has ended: nothing is copied.
  package init(complete data: Data) {
    expectedLength = data.count
    decoding = nil
    state = Locked(Guarded(machine: StateMachine(complete: data)))
  }

  // MARK: Producer

  /// Sets the hooks the producer wants called: `onDemand` when a paused transfer may read again, `onCancel` when the
  /// consumer gives up. Either may be called on any thread.
  package func setHandlers(onDemand: @escaping @Sendable () -> Void, onCancel: @escaping @Sendable () -> Void) {
    let cancelNow = state.withLock { state in
      state.onDemand = onDemand
      state.onCancel = onCancel
      return state.machine.isStopped
    }
    if cancelNow { onCancel() }
  }

  /// Appends received bytes. Nobody is woken until ``flush()`` (or ``finish(_:)``).
  package func write(_ bytes: UnsafeRawBufferPointer) -> WriteResult {
    answer(state.withLock { state in Self.wrote(state.machine.write(bytes), &state) })
  }

  /// Appends received bytes that already live in a `Data` of their own (URLSession hands each network read over as
  /// one). A streamed body queues the `Data` itself, after everything written before it, instead of copying it into
  /// the channel's buffers; a piece smaller than ``ownedChunkThreshold`` or larger than ``chunkSize`` is copied in as
  /// the raw-bytes `write` does. Nobody is woken until ``flush()``.
  package func write(_ data: Data) -> WriteResult {
    guard (Self.ownedChunkThreshold...Self.chunkSize).contains(data.count) else {
      return data.withUnsafeBytes { write($0) }
    }
    return answer(state.withLock { state in Self.wrote(state.machine.write(owned: data), &state) })
  }

  /// A write's action, with the waiting collector to fail when it broke the limit.
  private static func wrote(
    _ action: StateMachine.WriteAction,
    _ state: inout Guarded
  ) -> (StateMachine.WriteAction, Waiter?) {
    guard case .stopAndFailReader = action else { return (action, nil) }
    return (action, state.takeWaiter())
  }

  /// Performs a write's action outside the lock: answers the producer, resumes a collector that failed.
  private func answer(_ outcome: (StateMachine.WriteAction, Waiter?)) -> WriteResult {
    switch outcome.0 {
    case .proceed: return .proceed
    case .pause: return .pause
    case .stop: return .stop
    case .stopAndFailReader(let error):
      outcome.1?.resume(throwing: error)
      return .stop
    }
  }

  /// The size from which `write(_:)` given a `Data` queues a streamed body's `Data` as it is: smaller pieces are merged,
  /// so that a trickle of tiny reads does not become as many chunks.
  static let ownedChunkThreshold = 4 << 10

  /// Hands what was written since the last flush to a waiting consumer.
  package func flush() {
    let wake: (Waiter, Data)? = state.withLock { state in
      guard let chunk = state.machine.flush(), let waiter = state.takeWaiter() else { return nil }
      return (waiter, chunk)
    }
    if let (waiter, chunk) = wake { waiter.resume(returning: chunk) }
  }

  /// Does what ``flush()`` does when that wakes nobody — no consumer waits, or nothing was written since it began to
  /// wait — and answers `true`; answers `false`, doing nothing, when a flush would wake a waiting consumer (a producer
  /// that expects more bytes at once may flush later instead, and wake it once for all of them).
  package func flushUnlessWaking() -> Bool {
    state.withLock { $0.machine.flushUnlessWaking() }
  }

  /// Ends the body: normally with `nil`, or with the error that broke the transfer; `metrics` are the transfer's final
  /// figures, when the producer measured them.
  package func finish(_ error: (any Error)?, metrics: TransferMetrics? = nil) {
    let wake: (Waiter, Result<Data?, any Error>)? = state.withLock { state in
      if let metrics { state.metrics = metrics }
      guard let delivery = state.machine.finish(error), let waiter = state.takeWaiter() else { return nil }
      return (waiter, delivery)
    }
    if let (waiter, delivery) = wake { waiter.resume(with: delivery) }
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
    return try await wait { $0.next() }
  }

  /// The oldest queued chunk, taken without suspending (and without the cancellation handler and continuation of a
  /// wait): a reader that keeps up finds many chunks queued by one flush. `nil` when none is queued, or when the
  /// reading task is cancelled (the waiting path reports that and stops the transfer).
  private func takeQueued() -> Data? {
    if Task.isCancelled { return nil }
    let taken = state.withLock { state in
      state.machine.takeQueued().map { ($0.chunk, $0.resumeProducer ? state.onDemand : nil) }
    }
    taken?.1?()
    return taken?.0
  }

  /// Runs a read that may suspend (`event`) with the reader's continuation at hand, and performs its action; the
  /// reading task's cancellation cancels the body.
  private func wait(_ event: (inout StateMachine) -> StateMachine.ReadAction) async throws -> Data? {
    try await withTaskCancellationHandler {
      try await withUnsafeThrowingContinuation { (continuation: Waiter) in
        let (action, hook) = state.withLock { state in
          let action = event(&state.machine)
          if case .suspend = action { state.waiter = continuation }
          return (action, state.hook(for: action.producer))
        }
        hook?()
        if case .deliver(let result, _) = action { continuation.resume(with: result) }
      }
    } onCancel: {
      cancel()
    }
  }

  /// The whole body, collected into one buffer.
  package func collect(upTo limit: Int) async throws -> Data {
    if decoding != nil { return try await collectDecoded(upTo: limit) }
    if let ready = state.withLock({ $0.machine.collectFinished(upTo: limit) }) { return try ready.get() }
    return try await wait { $0.collect(upTo: limit) } ?? Data()
  }

  /// The whole decoded body, read chunk by chunk (the decoded length is not known in advance).
  private func collectDecoded(upTo limit: Int) async throws -> Data {
    if let refusal = state.withLock({ $0.machine.claimReader() }) { throw refusal }
    var collector = try BodyCollector(limit: limit, expectedLength: nil)
    while let chunk = try await next() {
      do {
        try collector.append(chunk)
      } catch {
        cancel()
        throw error
      }
    }
    return collector.take()
  }

  /// Stops the transfer from the consumer's side; a waiting read ends with ``TransportError/Code/cancelled``.
  package func cancel() {
    let (failure, waiter, hook) = state.withLock { state -> (TransportError?, Waiter?, Hook?) in
      switch state.machine.cancel() {
      case .none: return (nil, nil, nil)
      case .cancelProducer: return (nil, nil, state.onCancel)
      case .cancelProducerAndFailReader(let error): return (error, state.takeWaiter(), state.onCancel)
      }
    }
    if let failure { waiter?.resume(throwing: failure) }
    hook?()
  }

  /// The transfer's final figures, once the producer ended the body with them.
  package var metrics: TransferMetrics? {
    state.withLock { $0.metrics }
  }

  /// Whether a reader is suspended waiting for the next chunk.
  package var hasWaitingReader: Bool {
    state.withLock { $0.machine.hasWaitingReader }
  }
}
