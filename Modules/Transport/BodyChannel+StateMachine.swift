package import Foundation

extension BodyChannel {
  /// The state of one body between its producer (a transport's thread) and its reader: events in, actions out.
  ///
  /// Pure and synchronous: no continuations, hooks or I/O. ``BodyChannel`` runs it under its lock, keeps the one
  /// suspended reader's continuation beside it, and performs the returned actions once the lock is released:
  /// resuming the reader, answering the producer's write, calling the producer's `onDemand` or `onCancel` hook.
  package struct StateMachine: Sendable {
    /// Where the reader is while the body is arriving.
    package enum Reader: Sendable, Equatable {
      /// It has not read yet: it may still collect the body.
      case idle
      /// It reads chunk by chunk and is not waiting.
      case reading
      /// It waits for the next chunk.
      case waiting
    }

    private enum State: Sendable {
      /// The body is arriving; written bytes wait in the buffer for the reader. `producerPaused`: the producer was
      /// told to stop reading until the reader drains the buffer.
      case streaming(Buffer, reader: Reader, producerPaused: Bool)
      /// The reader waits for the whole body, which the producer appends straight to the collector.
      case collecting(BodyCollector)
      /// The producer ended the body; what it wrote waits for the reader, then `end`.
      case finished(Buffer, end: Result<Void, any Error>, readerStarted: Bool)
      /// The reader collected the body (or its error): later reads get `end` again, or that it was read.
      case delivered(Result<Void, any Error>)
      /// The reader's side stopped the body (cancelled, or past the collect limit): the producer is told to stop,
      /// every read fails with `error`, and a collect after a read is refused as a second read.
      case stopped(any Error, readerStarted: Bool)
      /// Only while an event changes the buffer or the collector in place, so that theirs is the only reference.
      case modifying
    }

    /// What the producer is told besides the answer to its write.
    package enum ProducerSignal: Sendable, Equatable {
      /// Nothing.
      case none
      /// It may read again (its `onDemand` hook).
      case resume
      /// The reader gave up: stop the transfer (its `onCancel` hook).
      case cancel
    }

    /// The answer to a read (``next()`` or ``collect(upTo:)``).
    package enum ReadAction: Sendable {
      /// Answer the reader now: with a chunk (the whole body, when collecting), `nil` at the end, or the error.
      case deliver(Result<Data?, any Error>, ProducerSignal)
      /// The reader waits: keep its continuation until an action resumes it.
      case suspend(ProducerSignal)

      /// What the producer is told.
      package var producer: ProducerSignal {
        switch self {
        case .deliver(_, let signal), .suspend(let signal): signal
        }
      }
    }

    /// The answer to a producer's write.
    package enum WriteAction: Sendable {
      /// Keep reading.
      case proceed
      /// Stop reading until `onDemand` is called.
      case pause
      /// Stop the transfer: the body ended, or the reader gave up.
      case stop
      /// The body broke the collect limit: resume the waiting reader with `error`, and stop the transfer.
      case stopAndFailReader(TransportError)
    }

    /// The answer to the reader's cancellation.
    package enum CancelAction: Sendable {
      /// The body had ended already: nothing to do.
      case none
      /// Stop the producer.
      case cancelProducer
      /// Stop the producer and resume the waiting reader with `error`.
      case cancelProducerAndFailReader(TransportError)
    }

    private var state: State
    /// The body's announced length, which pre-sizes a collected body.
    private let expectedLength: Int?

    /// A body of `expectedLength` bytes, if known, that is about to arrive.
    package init(expectedLength: Int?) {
      self.expectedLength = expectedLength
      let large = (expectedLength ?? 0) >= BodyChannel.bufferedBodyThreshold
      state = .streaming(Buffer(expectedLarge: large), reader: .idle, producerPaused: false)
    }

    /// A body that is all in `data` and has ended.
    package init(complete data: Data) {
      expectedLength = data.count
      var buffer = Buffer(expectedLarge: false)
      buffer.append(owned: data)
      state = .finished(buffer, end: .success(()), readerStarted: false)
    }

    /// Whether a reader waits for the next chunk.
    package var hasWaitingReader: Bool {
      if case .streaming(_, .waiting, _) = state { return true }
      return false
    }

    /// Whether the reader's side stopped the body: a producer that attaches now must stop at once.
    package var isStopped: Bool {
      if case .stopped = state { return true }
      return false
    }

    // MARK: Producer events

    /// The producer wrote received bytes (not handed to the reader until ``flush()``).
    package mutating func write(_ bytes: UnsafeRawBufferPointer) -> WriteAction {
      write {
        $0.append(bytes)
      } collecting: { collector throws(TransportError) in
        try collector.append(bytes)
      }
    }

    /// The producer wrote a received piece that is a `Data` of its own: streamed, it is queued as it is.
    package mutating func write(owned data: Data) -> WriteAction {
      write {
        $0.append(owned: data)
      } collecting: { collector throws(TransportError) in
        try collector.append(data)
      }
    }

    /// A write: into the buffer while streaming, into the collector while collecting; refused once the body ended.
    ///
    /// Here and below, a buffer or collector is changed only after `if case` or `guard case` took it out and the
    /// state was set to `.modifying`: unlike the subject of a `switch`, which an unoptimised build keeps alive to the
    /// end of the `switch`, that leaves it uniquely referenced, so it is changed in place instead of copied.
    private mutating func write(
      streaming: (inout Buffer) -> Void,
      collecting: (inout BodyCollector) throws(TransportError) -> Void
    ) -> WriteAction {
      if case .streaming(var buffer, let reader, let paused) = state {
        state = .modifying
        streaming(&buffer)
        return wrote(buffer, reader: reader, paused: paused)
      }
      guard case .collecting(var collector) = state else {
        Self.checkNotModifying(state)
        return .stop
      }
      state = .modifying
      do throws(TransportError) {
        try collecting(&collector)
      } catch {
        state = .stopped(error, readerStarted: true)
        return .stopAndFailReader(error)
      }
      state = .collecting(collector)
      return .proceed
    }

    /// Traps when an event runs while another one is changing the state (a broken invariant, not a runtime error).
    private static func checkNotModifying(_ state: State) {
      if case .modifying = state { preconditionFailure("BodyChannel.StateMachine re-entered") }
    }

    /// Back-pressure after a write: pause the producer when more than ``BodyChannel/highWater`` bytes wait.
    private mutating func wrote(_ buffer: Buffer, reader: Reader, paused: Bool) -> WriteAction {
      let over = buffer.waitingBytes > BodyChannel.highWater
      state = .streaming(buffer, reader: reader, producerPaused: paused || over)
      return over ? .pause : .proceed
    }

    /// The producer ended a round: what it wrote is queued; answers the chunk to resume a waiting reader with.
    package mutating func flush() -> Data? {
      guard case .streaming(var buffer, let reader, let paused) = state else { return nil }
      state = .modifying
      buffer.queuePending()
      if reader == .waiting, let chunk = buffer.popFirst() {
        state = .streaming(buffer, reader: .reading, producerPaused: paused)
        return chunk
      }
      state = .streaming(buffer, reader: reader, producerPaused: paused)
      return nil
    }

    /// ``flush()`` when it would wake nobody (answers `true`); `false`, changing nothing, when it would wake the
    /// waiting reader.
    package mutating func flushUnlessWaking() -> Bool {
      guard case .streaming(var buffer, let reader, let paused) = state else { return true }
      if reader == .waiting && buffer.waitingBytes > 0 { return false }
      state = .modifying
      buffer.queuePending()
      state = .streaming(buffer, reader: reader, producerPaused: paused)
      return true
    }

    /// The producer ended the body: normally (`nil`) or with the error that broke the transfer. Answers what to
    /// resume a waiting reader with: a last chunk (the end follows on the next read), the end, or the whole body.
    package mutating func finish(_ error: (any Error)?) -> Result<Data?, any Error>? {
      let end: Result<Void, any Error> = error.map { .failure($0) } ?? .success(())
      if case .streaming(var buffer, let reader, _) = state {
        state = .modifying
        buffer.queuePending()
        let chunk = reader == .waiting ? buffer.popFirst() : nil
        state = .finished(buffer, end: end, readerStarted: reader != .idle)
        guard reader == .waiting else { return nil }
        return chunk.map { .success($0) } ?? end.map { nil }
      }
      guard case .collecting(var collector) = state else {
        Self.checkNotModifying(state)
        return nil
      }
      state = .delivered(end)
      return end.map { Optional(collector.take()) }
    }

    // MARK: Reader events

    /// The next queued chunk without waiting, and whether that drained a paused producer's backlog so that it may
    /// read again; `nil` when none is queued (the reader then calls ``next()``, ready to wait).
    package mutating func takeQueued() -> (chunk: Data, resumeProducer: Bool)? {
      if case .streaming(var buffer, let reader, let paused) = state, reader != .waiting {
        state = .modifying
        guard let chunk = buffer.popFirst() else {
          state = .streaming(buffer, reader: reader, producerPaused: paused)
          return nil
        }
        let resume = paused && buffer.queuedBytes < BodyChannel.lowWater
        state = .streaming(buffer, reader: .reading, producerPaused: paused && !resume)
        return (chunk, resume)
      }
      guard case .finished(var buffer, let end, _) = state else { return nil }
      state = .modifying
      let chunk = buffer.popFirst()
      state = .finished(buffer, end: end, readerStarted: true)
      return chunk.map { ($0, false) }
    }

    /// The reader asks for the next chunk and can wait for it.
    package mutating func next() -> ReadAction {
      if case .streaming(var buffer, let reader, let paused) = state, reader != .waiting {
        state = .modifying
        if let chunk = buffer.popFirst() {
          let resume = paused && buffer.queuedBytes < BodyChannel.lowWater
          state = .streaming(buffer, reader: .reading, producerPaused: paused && !resume)
          return .deliver(.success(chunk), resume ? .resume : .none)
        }
        // Nothing left to read: a paused producer may go on.
        state = .streaming(buffer, reader: .waiting, producerPaused: false)
        return .suspend(paused ? .resume : .none)
      }
      if case .finished(var buffer, let end, _) = state {
        state = .modifying
        let chunk = buffer.popFirst()
        state = .finished(buffer, end: end, readerStarted: true)
        return .deliver(chunk.map { .success($0) } ?? end.map { nil }, .none)
      }
      switch state {
      case .streaming, .collecting:  // a second reader
        return .deliver(.failure(Self.readOnce), .none)
      case .delivered(let end):
        return .deliver(end.map { nil }, .none)
      case .stopped(let error, _):
        return .deliver(.failure(error), .none)
      case .finished, .modifying:
        preconditionFailure("BodyChannel.StateMachine re-entered")
      }
    }

    /// The whole body when the producer has finished and nothing was read, without waiting; `nil` otherwise (the
    /// reader then calls ``collect(upTo:)``).
    package mutating func collectFinished(upTo limit: Int) -> Result<Data, any Error>? {
      guard case .finished(var buffer, let end, readerStarted: false) = state else { return nil }
      state = .modifying
      return collectAll(&buffer, end: end, limit: limit)
    }

    /// The reader asks for the whole body, at most `limit` bytes, and can wait for it.
    package mutating func collect(upTo limit: Int) -> ReadAction {
      if case .streaming(var buffer, .idle, let paused) = state {
        state = .modifying
        buffer.queuePending()
        do {
          var collector = try BodyCollector(limit: limit, expectedLength: expectedLength)
          collector.reserve(buffer.queuedBytes)
          for chunk in buffer.removeAll() { try collector.append(chunk) }
          state = .collecting(collector)
          return .suspend(paused ? .resume : .none)
        } catch {
          state = .stopped(error, readerStarted: true)
          return .deliver(.failure(error), .cancel)
        }
      }
      if case .finished(var buffer, let end, readerStarted: false) = state {
        state = .modifying
        return .deliver(collectAll(&buffer, end: end, limit: limit).map { Optional($0) }, .none)
      }
      switch state {
      case .streaming, .finished, .collecting:  // read already, or being read
        return .deliver(.failure(Self.readOnce), .none)
      case .delivered(let end):
        return .deliver(.failure(end.failure ?? Self.readOnce), .none)
      case .stopped(let error, let started):
        return .deliver(.failure(started ? Self.readOnce : error), .none)
      case .modifying:
        preconditionFailure("BodyChannel.StateMachine re-entered")
      }
    }

    /// The finished body in `buffer`, or why not.
    private mutating func collectAll(
      _ buffer: inout Buffer,
      end: Result<Void, any Error>,
      limit: Int
    ) -> Result<Data, any Error> {
      if case .failure(let error) = end {
        state = .delivered(end)
        return .failure(error)
      }
      do {
        let chunks = buffer.removeAll()
        if chunks.count == 1, let only = chunks.first, only.count <= limit {
          state = .delivered(.success(()))
          return .success(only)  // a body of one chunk is handed over as it is, without a copy
        }
        var collector = try BodyCollector(limit: limit, expectedLength: nil)
        collector.reserve(chunks.reduce(0) { $0 + $1.count })
        for chunk in chunks { try collector.append(chunk) }
        state = .delivered(.success(()))
        return .success(collector.take())
      } catch {
        state = .delivered(.failure(error))
        return .failure(error)
      }
    }

    /// The reader starts reading chunk by chunk on its own account (a decoded body, collected from its decoded
    /// chunks); answers why it may not.
    package mutating func claimReader() -> (any Error)? {
      switch state {
      case .streaming(let buffer, .idle, let paused):
        state = .streaming(buffer, reader: .reading, producerPaused: paused)
        return nil
      case .finished(let buffer, let end, readerStarted: false):
        state = .finished(buffer, end: end, readerStarted: true)
        return nil
      case .stopped(let error, let started):
        return started ? Self.readOnce : error
      default:
        return Self.readOnce
      }
    }

    /// The reader gave up: it was cancelled, or dropped the body.
    package mutating func cancel() -> CancelAction {
      switch state {
      case .streaming(_, let reader, _):
        state = .stopped(TransportError.cancelled(), readerStarted: reader != .idle)
        return reader == .waiting ? .cancelProducerAndFailReader(.cancelled()) : .cancelProducer
      case .collecting:
        state = .stopped(TransportError.cancelled(), readerStarted: true)
        return .cancelProducerAndFailReader(.cancelled())
      case .finished, .delivered, .stopped:
        return .none
      case .modifying:
        preconditionFailure("BodyChannel.StateMachine re-entered")
      }
    }

    private static let readOnce = TransportError(
      code: .invalidRequest,
      message: "a response body can be read only once, by one reader"
    )
  }
}

extension Result {
  /// The error, when this is a failure.
  fileprivate var failure: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }
}

extension BodyChannel {
  /// The bytes written and not yet read: a small body's bytes since the last flush in a growing `Data`, a large
  /// body's in recycled buffers (``ChunkQueue``), and the chunks queued for the reader.
  struct Buffer: Sendable {
    /// A small body's bytes since the last flush (a large one's go into `queue`'s buffers).
    private var pending = Data()
    /// The chunks waiting for the reader, and the recycled buffer a large body fills.
    private var queue = ChunkQueue()
    /// The bytes written so far.
    private var written = 0
    /// Whether the expected length alone makes the body large (see ``BodyChannel/bufferedBodyThreshold``).
    private let expectedLarge: Bool

    init(expectedLarge: Bool) {
      self.expectedLarge = expectedLarge
    }

    /// The bytes queued for the reader.
    var queuedBytes: Int { queue.queuedBytes }

    /// Every byte not yet read, queued or not.
    var waitingBytes: Int { queue.queuedBytes + queue.unqueuedBytes + pending.count }

    /// Appends bytes. A small body grows a `Data`, cut at ``BodyChannel/chunkSize``; once the body is large, bytes
    /// fill recycled buffers to the end, across flushes (see ``ChunkQueue``).
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
      var rest = bytes
      written += bytes.count
      if expectedLarge || written >= BodyChannel.bufferedBodyThreshold {
        // What a small start left in `pending` goes first, so the order holds.
        if !pending.isEmpty {
          queue.append(pending)
          pending = Data()
        }
        rest = UnsafeRawBufferPointer(rebasing: rest[queue.write(rest)...])
      }
      // A small body, or no memory left for a buffer.
      while !rest.isEmpty {
        let piece = min(rest.count, BodyChannel.chunkSize - pending.count)
        pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: rest[..<piece]))
        rest = UnsafeRawBufferPointer(rebasing: rest[piece...])
        if pending.count >= BodyChannel.chunkSize { queuePending() }
      }
    }

    /// Queues `data` as it is, after everything written before it.
    mutating func append(owned data: Data) {
      written += data.count
      queuePending()
      queue.append(data)
    }

    /// Queues the bytes written since the last flush: the unqueued part of the buffer being filled, then the
    /// pending `Data`.
    mutating func queuePending() {
      queue.flush()
      if !pending.isEmpty {
        queue.append(pending)
        pending = Data()
      }
    }

    /// Takes the oldest queued chunk, or `nil` when none is queued.
    mutating func popFirst() -> Data? {
      queue.popFirst()
    }

    /// Takes every queued chunk, oldest first.
    mutating func removeAll() -> ArraySlice<Data> {
      queue.removeAll()
    }
  }
}
