import Foundation
import MalibuTransport
import Testing

/// The body channel's state machine, driven event by event without a transport or a task.
@Suite("BodyChannel.StateMachine")
struct BodyChannelStateMachineTests {
  typealias Machine = BodyChannel.StateMachine

  struct Boom: Error, Equatable {}

  private static func write(_ machine: inout Machine, _ text: String) -> Machine.WriteAction {
    Data(text.utf8).withUnsafeBytes { machine.write($0) }
  }

  private static func write(_ machine: inout Machine, count: Int) -> Machine.WriteAction {
    Data(repeating: 7, count: count).withUnsafeBytes { machine.write($0) }
  }

  private static func text(_ data: Data?) -> String? {
    data.map { String(decoding: $0, as: UTF8.self) }
  }

  /// The text a read action delivers, `nil` at the end; records an issue when it suspends or fails.
  private static func delivered(_ action: Machine.ReadAction, signal: Machine.ProducerSignal = .none) -> String? {
    guard case .deliver(.success(let data), let producer) = action else {
      Issue.record("expected a chunk or the end, got \(action)")
      return "<not delivered>"
    }
    #expect(producer == signal)
    return text(data)
  }

  /// The error a read action fails with; records an issue otherwise.
  private static func failure(_ action: Machine.ReadAction, signal: Machine.ProducerSignal = .none) -> (any Error)? {
    guard case .deliver(.failure(let error), let producer) = action else {
      Issue.record("expected a failure, got \(action)")
      return nil
    }
    #expect(producer == signal)
    return error
  }

  private static func code(_ error: (any Error)?) -> TransportError.Code? {
    (error as? TransportError)?.code
  }

  private static func isWrite(_ action: Machine.WriteAction, _ expected: BodyChannel.WriteResult) -> Bool {
    switch (action, expected) {
    case (.proceed, .proceed), (.pause, .pause), (.stop, .stop): true
    default: false
    }
  }

  // MARK: Streaming

  @Test func aWaitingReaderGetsTheRoundAtFlushAndTheEndAtFinish() {
    var machine = Machine(expectedLength: nil)
    guard case .suspend(.none) = machine.next() else {
      Issue.record("an empty channel makes the reader wait")
      return
    }
    #expect(machine.hasWaitingReader)
    #expect(Self.isWrite(Self.write(&machine, "a"), .proceed))
    #expect(Self.isWrite(Self.write(&machine, "b"), .proceed))
    let flushed = machine.flush()
    #expect(Self.text(flushed) == "ab")
    #expect(!machine.hasWaitingReader)
    let flushed2 = machine.flush()
    #expect(flushed2 == nil)  // nobody waits any more
    guard case .suspend = machine.next() else {
      Issue.record("the reader waits again")
      return
    }
    guard case .success(nil)? = machine.finish(nil) else {
      Issue.record("the waiting reader gets the end")
      return
    }
    let read = machine.next()
    #expect(Self.delivered(read) == nil)
  }

  @Test func finishWithBufferedChunksHandsThemOutBeforeTheEnd() {
    var machine = Machine(expectedLength: nil)
    _ = Self.write(&machine, "ab")
    _ = machine.flush()
    _ = Self.write(&machine, "c")  // not flushed: finishing queues it
    let finished = machine.finish(nil)
    #expect(finished == nil)  // no reader waits
    let taken = machine.takeQueued()
    #expect(Self.text(taken?.chunk) == "ab")
    let read = machine.next()
    #expect(Self.delivered(read) == "c")
    let taken2 = machine.takeQueued()
    #expect(taken2 == nil)
    let read2 = machine.next()
    #expect(Self.delivered(read2) == nil)
    let read3 = machine.next()
    #expect(Self.delivered(read3) == nil)  // the end, again
  }

  @Test func aReaderWaitingAtTheEndGetsTheLastChunkThenTheEnd() {
    var machine = Machine(expectedLength: nil)
    _ = machine.next()
    _ = Self.write(&machine, "tail")
    guard case .success(let chunk)? = machine.finish(nil) else {
      Issue.record("the waiting reader gets the last chunk")
      return
    }
    #expect(Self.text(chunk) == "tail")
    let read = machine.next()
    #expect(Self.delivered(read) == nil)
  }

  @Test func anErrorAfterAPartialBodyReachesTheReaderAfterTheBytes() {
    var machine = Machine(expectedLength: 100)
    _ = Self.write(&machine, "abc")
    _ = machine.flush()
    let read = machine.next()
    #expect(Self.delivered(read) == "abc")
    _ = machine.next()  // waits
    guard case .failure(let error)? = machine.finish(Boom()) else {
      Issue.record("the waiting reader gets the error")
      return
    }
    #expect(error is Boom)
    let read2 = machine.next()
    #expect(Self.failure(read2) is Boom)  // and every later read
    #expect(Self.isWrite(Self.write(&machine, "late"), .stop))
    let finished = machine.finish(nil)
    #expect(finished == nil)
    guard case .none = machine.cancel() else {
      Issue.record("a body that ended is not cancelled")
      return
    }
  }

  @Test func anErrorWithChunksQueuedComesAfterThem() {
    var machine = Machine(expectedLength: nil)
    _ = Self.write(&machine, "abc")
    let finished = machine.finish(Boom())
    #expect(finished == nil)
    let read = machine.next()
    #expect(Self.delivered(read) == "abc")
    let read2 = machine.next()
    #expect(Self.failure(read2) is Boom)
  }

  @Test func flushUnlessWakingLeavesAWaitingReaderForTheNextFlush() {
    var machine = Machine(expectedLength: nil)
    _ = Self.write(&machine, "a")
    let flushedQuietly = machine.flushUnlessWaking()
    #expect(flushedQuietly)  // nobody waits: flushed
    let read = machine.next()
    #expect(Self.delivered(read) == "a")
    _ = machine.next()
    let flushedQuietly2 = machine.flushUnlessWaking()
    #expect(flushedQuietly2)  // waiting, but nothing new
    _ = Self.write(&machine, "b")
    let flushedQuietly3 = machine.flushUnlessWaking()
    #expect(!flushedQuietly3)
    #expect(machine.hasWaitingReader)
    let flushed = machine.flush()
    #expect(Self.text(flushed) == "b")
  }

  @Test func aSecondReaderWhileOneWaitsIsRefused() {
    var machine = Machine(expectedLength: nil)
    _ = machine.next()
    let read = machine.next()
    #expect(Self.code(Self.failure(read)) == .invalidRequest)
    let taken = machine.takeQueued()
    #expect(taken == nil)
    #expect(machine.hasWaitingReader)  // the first one still waits
  }

  // MARK: Back-pressure

  @Test func pastHighWaterTheProducerPausesAndResumesOnceBelowLowWater() {
    var machine = Machine(expectedLength: nil)
    let chunk = BodyChannel.chunkSize
    var answers: [Bool] = []
    for _ in 0..<(BodyChannel.highWater / chunk + 1) {
      answers.append(Self.isWrite(Self.write(&machine, count: chunk), .pause))
    }
    #expect(answers == Array(repeating: false, count: BodyChannel.highWater / chunk) + [true])
    // Paused: a further write is told to pause again.
    #expect(Self.isWrite(Self.write(&machine, count: 1), .pause))
    _ = machine.flush()
    var resumes: [Bool] = []
    var sizes: [Int] = []
    while let taken = machine.takeQueued() {
      resumes.append(taken.resumeProducer)
      sizes.append(taken.chunk.count)
    }
    #expect(sizes.reduce(0, +) == BodyChannel.highWater + chunk + 1)
    // One resume, at the first take that leaves less than lowWater queued; none after.
    let queuedAfter = sizes.indices.map { sizes[($0 + 1)...].reduce(0, +) }
    #expect(resumes.filter { $0 }.count == 1)
    #expect(resumes.firstIndex(of: true) == queuedAfter.firstIndex { $0 < BodyChannel.lowWater })
  }

  @Test func aWaitingReaderGetsOneChunkOfAPausingRoundAndItsTakesResumeTheProducer() {
    var machine = Machine(expectedLength: nil)
    let read = machine.next()
    guard case .suspend(.none) = read else {
      Issue.record("the reader waits; the producer was not paused")
      return
    }
    // One round past high water while the reader waits: paused, and the flush wakes it with one chunk.
    #expect(Self.isWrite(Self.write(&machine, count: BodyChannel.highWater + 1), .pause))
    let flushed = machine.flush()
    #expect(flushed?.count == BodyChannel.chunkSize)
    var resumed = 0
    while let taken = machine.takeQueued() { resumed += taken.resumeProducer ? 1 : 0 }
    #expect(resumed == 1)
    // Drained, not paused: waiting now asks nothing of the producer.
    let waited = machine.next()
    guard case .suspend(.none) = waited else {
      Issue.record("a drained, running producer is not resumed again")
      return
    }
  }

  @Test func aSecondCollectAfterTheLimitStoppedTheBodyIsASecondRead() {
    var machine = Machine(expectedLength: nil)
    _ = Self.write(&machine, count: 20)
    _ = machine.flush()
    let collect = machine.collect(upTo: 10)
    #expect(Self.code(Self.failure(collect, signal: .cancel)) == .bodyTooLarge)
    let again = machine.collect(upTo: 100)
    #expect(Self.code(Self.failure(again)) == .invalidRequest)
    let claim = machine.claimReader()
    #expect(Self.code(claim) == .invalidRequest)
    // A body cancelled before any read reports the cancellation instead.
    var untouched = Machine(expectedLength: nil)
    _ = untouched.cancel()
    let late = untouched.collect(upTo: 100)
    #expect(Self.code(Self.failure(late)) == .cancelled)
  }

  @Test func collectingResumesAPausedProducerAndNeverPausesIt() {
    var machine = Machine(expectedLength: nil)
    #expect(Self.isWrite(Self.write(&machine, count: BodyChannel.highWater + 1), .pause))
    guard case .suspend(.resume) = machine.collect(upTo: 64 << 20) else {
      Issue.record("collecting resumes a paused producer")
      return
    }
    #expect(Self.isWrite(Self.write(&machine, count: BodyChannel.highWater + 1), .proceed))
    guard case .success(let body)? = machine.finish(nil) else {
      Issue.record("the collector gets the body")
      return
    }
    #expect(body?.count == 2 * (BodyChannel.highWater + 1))
  }

  // MARK: Collecting and its limit

  @Test func collectTakesWhatWasWrittenAndWhatFollows() {
    var machine = Machine(expectedLength: 6)
    _ = Self.write(&machine, "abc")
    _ = machine.flush()
    guard case .suspend(.none) = machine.collect(upTo: 10) else {
      Issue.record("the collector waits for the end")
      return
    }
    #expect(!machine.hasWaitingReader)  // a collector is not a chunk reader
    _ = Self.write(&machine, "def")
    let flushed = machine.flush()
    #expect(flushed == nil)
    guard case .success(let body)? = machine.finish(nil) else {
      Issue.record("the collector gets the body")
      return
    }
    #expect(Self.text(body) == "abcdef")
    let collect = machine.collect(upTo: 10)
    #expect(Self.code(Self.failure(collect)) == .invalidRequest)  // read once
    let read = machine.next()
    #expect(Self.delivered(read) == nil)
  }

  @Test func aFinishedBodyIsCollectedWithoutWaiting() throws {
    var machine = Machine(complete: Data("whole".utf8))
    let collected = machine.collectFinished(upTo: 5)
    let body = try #require(collected)
    #expect(try Self.text(body.get()) == "whole")
    let collected2 = machine.collectFinished(upTo: 5)
    #expect(collected2 == nil)
    let collect = machine.collect(upTo: 5)
    #expect(Self.code(Self.failure(collect)) == .invalidRequest)
  }

  @Test func aFinishedBodyOfOneChunkIsHandedOverWithoutACopy() throws {
    let whole = Data(repeating: 5, count: 8 << 10)
    var machine = Machine(complete: whole)
    let finished = machine.collectFinished(upTo: whole.count)
    let collected = try #require(finished).get()
    let same = collected.withUnsafeBytes { mine in whole.withUnsafeBytes { $0.baseAddress == mine.baseAddress } }
    #expect(same)
  }

  @Test func aFinishedBodyOfManyChunksIsCollectedInOrder() throws {
    var machine = Machine(expectedLength: nil)
    for piece in ["a", "b", "c"] {
      _ = Self.write(&machine, piece)
      _ = machine.flush()
    }
    _ = machine.finish(nil)
    let collect = machine.collect(upTo: 3)
    #expect(Self.delivered(collect) == "abc")
  }

  @Test func theLimitReachedWhileCollectingFailsTheCollectorAndStopsTheProducer() {
    var machine = Machine(expectedLength: nil)
    _ = machine.collect(upTo: 10)
    #expect(Self.isWrite(Self.write(&machine, "123456"), .proceed))
    guard case .stopAndFailReader(let error) = Self.write(&machine, "789012") else {
      Issue.record("the write past the limit fails the collector")
      return
    }
    #expect(error.code == .bodyTooLarge)
    #expect(error.message.hasPrefix("the response body is larger than the limit of 10 bytes"))
    #expect(machine.isStopped)
    #expect(Self.isWrite(Self.write(&machine, "x"), .stop))
    let finished = machine.finish(nil)
    #expect(finished == nil)
    guard case .none = machine.cancel() else {
      Issue.record("a stopped body is not cancelled again")
      return
    }
    let read = machine.next()
    #expect(Self.code(Self.failure(read)) == .bodyTooLarge)
  }

  @Test(
    arguments: [
      // Announced by Content-Length beyond the limit: refused before a byte is read.
      (expected: 100, written: 0, finished: false, announced: true),
      // More already queued than the limit.
      (expected: nil, written: 20, finished: false, announced: false),
      // A finished body past the limit.
      (expected: nil, written: 20, finished: true, announced: false),
    ] as [(expected: Int?, written: Int, finished: Bool, announced: Bool)]
  )
  func aBodyPastTheLimitWhenCollectingStartsIsRefused(
    expected: Int?,
    written: Int,
    finished: Bool,
    announced: Bool
  ) {
    var machine = Machine(expectedLength: expected)
    if written > 0 { _ = Self.write(&machine, count: written) }
    _ = machine.flush()
    if finished { _ = machine.finish(nil) }
    let error = Self.failure(machine.collect(upTo: 10), signal: finished ? .none : .cancel)
    #expect(Self.code(error) == .bodyTooLarge)
    #expect(((error as? TransportError)?.message.contains("by its Content-Length") ?? false) == announced)
    #expect(Self.isWrite(Self.write(&machine, "x"), .stop))
  }

  @Test func aDecodingReaderClaimsTheBodyOnce() {
    var machine = Machine(expectedLength: nil)
    let claim = machine.claimReader()
    #expect(claim == nil)
    let claim2 = machine.claimReader()
    #expect(Self.code(claim2) == .invalidRequest)
    let collect = machine.collect(upTo: 10)
    #expect(Self.code(Self.failure(collect)) == .invalidRequest)
    _ = Self.write(&machine, "ok")
    _ = machine.flush()
    let read = machine.next()
    #expect(Self.delivered(read) == "ok")
  }

  @Test func collectAfterReadingAndReadingWhileCollectingAreRefused() {
    var reading = Machine(expectedLength: nil)
    _ = Self.write(&reading, "a")
    _ = reading.flush()
    _ = reading.next()
    let collect = reading.collect(upTo: 10)
    #expect(Self.code(Self.failure(collect)) == .invalidRequest)

    var collecting = Machine(expectedLength: nil)
    _ = collecting.collect(upTo: 10)
    let read = collecting.next()
    #expect(Self.code(Self.failure(read)) == .invalidRequest)
    let collect2 = collecting.collect(upTo: 10)
    #expect(Self.code(Self.failure(collect2)) == .invalidRequest)
    let taken = collecting.takeQueued()
    #expect(taken == nil)
  }

  // MARK: Cancellation in every state

  enum Reached: String, CaseIterable, Sendable {
    case idle, reading, waiting, paused, collecting, finishedWithChunks, finishedDrained, collected, stopped
  }

  private static func machine(in reached: Reached) -> Machine {
    var machine = Machine(expectedLength: nil)
    switch reached {
    case .idle:
      _ = write(&machine, "a")
    case .reading:
      _ = write(&machine, "a")
      _ = machine.flush()
      _ = machine.next()
    case .waiting:
      _ = machine.next()
    case .paused:
      _ = write(&machine, count: BodyChannel.highWater + 1)
    case .collecting:
      _ = machine.collect(upTo: 10)
    case .finishedWithChunks:
      _ = write(&machine, "a")
      _ = machine.finish(nil)
    case .finishedDrained:
      _ = machine.finish(nil)
      _ = machine.next()
    case .collected:
      _ = machine.collect(upTo: 10)
      _ = machine.finish(nil)
    case .stopped:
      _ = machine.cancel()
    }
    return machine
  }

  @Test(arguments: Reached.allCases)
  func cancelInEveryState(reached: Reached) {
    var machine = Self.machine(in: reached)
    let action = machine.cancel()
    switch reached {
    case .idle, .reading, .paused:
      guard case .cancelProducer = action else {
        Issue.record("\(reached): the producer is cancelled, nobody waits; got \(action)")
        return
      }
    case .waiting, .collecting:
      guard case .cancelProducerAndFailReader(let error) = action, error.code == .cancelled else {
        Issue.record("\(reached): the waiting reader fails with cancelled; got \(action)")
        return
      }
    case .finishedWithChunks, .finishedDrained, .collected, .stopped:
      guard case .none = action else {
        Issue.record("\(reached): a body that ended or stopped has nothing to cancel; got \(action)")
        return
      }
    }
    // Whatever follows is safe: the producer is told to stop, and the end or the cancellation stays.
    #expect(Self.isWrite(Self.write(&machine, "x"), .stop))
    let flushed = machine.flush()
    #expect(flushed == nil)
    let flushedQuietly = machine.flushUnlessWaking()
    #expect(flushedQuietly)
    let finished = machine.finish(Boom())
    #expect(finished == nil)
    guard case .none = machine.cancel() else {
      Issue.record("\(reached): a second cancel does nothing")
      return
    }
    #expect(!machine.hasWaitingReader)
    switch reached {
    case .idle, .reading, .waiting, .paused, .collecting, .stopped:
      #expect(machine.isStopped)
      let read = machine.next()
      #expect(Self.code(Self.failure(read)) == .cancelled)
    case .finishedWithChunks:
      #expect(!machine.isStopped)
      let read2 = machine.next()
      #expect(Self.delivered(read2) == "a")
      let read3 = machine.next()
      #expect(Self.delivered(read3) == nil)
    case .finishedDrained, .collected:
      #expect(!machine.isStopped)
      let read4 = machine.next()
      #expect(Self.delivered(read4) == nil)
    }
  }

  @Test func ownedDataIsQueuedAsItIsAndCollectedToo() {
    var streaming = Machine(expectedLength: nil)
    let piece = Data(repeating: 1, count: 8 << 10)
    let written = streaming.write(owned: piece)
    #expect(Self.isWrite(written, .proceed))
    let taken = streaming.takeQueued()
    #expect(taken?.chunk == piece)  // queued at once, without a flush

    var collecting = Machine(expectedLength: nil)
    _ = collecting.collect(upTo: 10 << 10)
    let written2 = collecting.write(owned: piece)
    #expect(Self.isWrite(written2, .proceed))
    guard case .stopAndFailReader(let error) = collecting.write(owned: piece) else {
      Issue.record("owned data past the limit fails the collector")
      return
    }
    #expect(error.code == .bodyTooLarge)
  }
}
