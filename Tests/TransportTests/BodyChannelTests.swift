import Foundation
@_spi(Malibu) import MalibuCore
import MalibuTransport
import Testing

@Suite("BodyChannel and ResponseBody")
struct BodyChannelTests {
  private func write(_ channel: BodyChannel, _ text: String) -> BodyChannel.WriteResult {
    Data(text.utf8).withUnsafeBytes { channel.write($0) }
  }

  /// A channel of unknown length, and whether its consumer has stopped the transfer (its cancel hook ran).
  private func channelReportingCancel() -> (BodyChannel, Locked<Bool>) {
    let channel = BodyChannel(expectedLength: nil)
    let cancelled = Locked(false)
    channel.setHandlers(onDemand: {}, onCancel: { cancelled.withLock { $0 = true } })
    return (channel, cancelled)
  }

  @Test func streamsChunksInOrderAndBatchesPerFlush() async throws {
    let channel = BodyChannel(expectedLength: nil)
    #expect(write(channel, "a") == .proceed)
    #expect(write(channel, "b") == .proceed)
    channel.flush()
    #expect(write(channel, "c") == .proceed)
    channel.finish(nil)
    let body = ResponseBody(channel: channel)
    var chunks: [String] = []
    for try await chunk in body { chunks.append(String(decoding: chunk, as: UTF8.self)) }
    #expect(chunks == ["ab", "c"])
  }

  @Test func aLargeRoundIsCutIntoChunksOfAtMostChunkSize() async throws {
    let channel = BodyChannel(expectedLength: nil)
    let piece = Data(repeating: 7, count: 256 << 10)
    var written = 0
    while written + piece.count <= BodyChannel.highWater {
      #expect(piece.withUnsafeBytes { channel.write($0) } == .proceed)
      written += piece.count
    }
    channel.flush()
    channel.finish(nil)
    var sizes: [Int] = []
    for try await chunk in ResponseBody(channel: channel) { sizes.append(chunk.count) }
    #expect(sizes.reduce(0, +) == written)
    #expect(sizes.allSatisfy { $0 <= BodyChannel.chunkSize })
    #expect(sizes.count == written / BodyChannel.chunkSize)
  }

  @Test func aLargeBodyInSmallFlushedRoundsFillsWholeBuffers() async throws {
    // A reader that keeps up makes every round small; each round's bytes must still go into the buffer being
    // filled (handed over as a slice of it), not into a buffer or an allocation of their own.
    let channel = BodyChannel(expectedLength: nil)
    var iterator = ResponseBody(channel: channel).makeAsyncIterator()
    let piece = 16 << 10
    let total = 8 * BodyChannel.chunkSize
    var received = Data()
    var starts: [Int] = []
    var previousEnd = 0
    for round in 0..<(total / piece) {
      let bytes = Data(repeating: UInt8(truncatingIfNeeded: round), count: piece)
      #expect(bytes.withUnsafeBytes { channel.write($0) } == .proceed)
      channel.flush()
      let chunk = try #require(try await iterator.next())
      let start = chunk.withUnsafeBytes { Int(bitPattern: $0.baseAddress) }
      if start != previousEnd { starts.append(start) }
      previousEnd = start + chunk.count
      received.append(chunk)
    }
    channel.finish(nil)
    #expect(try await iterator.next() == nil)
    let expected = (0..<(total / piece)).reduce(into: Data()) { data, round in
      data.append(Data(repeating: UInt8(truncatingIfNeeded: round), count: piece))
    }
    #expect(received == expected)
    // The first 64 KiB go into a growing `Data` (the body could still be small); then one buffer per chunkSize.
    #expect(starts.count <= total / BodyChannel.chunkSize + 4 + 1)
  }

  @Test func aQueueThatNeverRunsEmptyLetsGoOfTheChunksItHandedOut() async throws {
    // The producer stays two chunks ahead of the reader for 64 MiB. Each chunk is one whole buffer; a buffer comes
    // back for reuse only once the reader's chunk and the queue's reference to it are gone, so a queue that kept the
    // chunks it handed out would need a new buffer (a new address) for every chunk.
    let channel = BodyChannel(expectedLength: nil)
    var iterator = ResponseBody(channel: channel).makeAsyncIterator()
    let piece = Data(repeating: 5, count: BodyChannel.chunkSize)
    for _ in 0..<2 { #expect(piece.withUnsafeBytes { channel.write($0) } == .proceed) }
    channel.flush()
    var addresses: Set<Int> = []
    var received = 0
    for _ in 0..<64 {
      #expect(piece.withUnsafeBytes { channel.write($0) } == .proceed)
      channel.flush()
      let chunk = try #require(try await iterator.next())
      addresses.insert(chunk.withUnsafeBytes { Int(bitPattern: $0.baseAddress) })
      received += chunk.count
    }
    channel.finish(nil)
    while let chunk = try await iterator.next() { received += chunk.count }
    #expect(received == 66 * BodyChannel.chunkSize)
    #expect(addresses.count <= BodyChannel.highWater / BodyChannel.chunkSize + 4)
  }

  @Test func largeAndSmallWritesKeepTheirOrderWhenCollected() async throws {
    let channel = BodyChannel(expectedLength: nil)
    let large = Data((0..<(300 << 10)).map { UInt8(truncatingIfNeeded: $0) })
    _ = write(channel, "head ")
    channel.flush()
    #expect(large.withUnsafeBytes { channel.write($0) } == .proceed)  // into a recycled buffer, not yet flushed
    let collected = Task { try await ResponseBody(channel: channel).collect(upTo: 1 << 20) }
    try await Task.sleep(for: .milliseconds(20))
    _ = write(channel, " tail")
    channel.finish(nil)
    #expect(try await collected.value == Data("head ".utf8) + large + Data(" tail".utf8))
  }

  @Test func aStreamedBodysOwnDataIsHandedOverWithoutACopyAndInOrder() async throws {
    // URLSession hands each read over as a `Data` of its own: a streaming reader gets that `Data` itself (same bytes
    // in memory), after whatever was written before it and before what is written after it.
    let channel = BodyChannel(expectedLength: nil)
    let owned = Data((0..<(16 << 10)).map { UInt8(truncatingIfNeeded: $0) })
    let ownedAddress = owned.withUnsafeBytes { Int(bitPattern: $0.baseAddress) }
    _ = write(channel, "head ")
    #expect(channel.write(owned) == .proceed)
    #expect(channel.write(Data("tiny".utf8)) == .proceed)  // below the threshold: copied, merged
    _ = write(channel, " tail")
    channel.flush()
    channel.finish(nil)
    var chunks: [Data] = []
    for try await chunk in ResponseBody(channel: channel) { chunks.append(chunk) }
    #expect(chunks.count == 3)
    #expect(chunks.reduce(Data(), +) == Data("head ".utf8) + owned + Data("tiny tail".utf8))
    #expect(chunks[1].withUnsafeBytes { Int(bitPattern: $0.baseAddress) } == ownedAddress)
  }

  @Test func ownedDataIsCopiedWhenCollectedAndStillHeldToTheLimit() async throws {
    let (channel, _) = channelReportingCancel()
    let body = ResponseBody(channel: channel)
    let reader = Task { try await body.collect(upTo: 20 << 10) }
    try await Task.sleep(for: .milliseconds(20))
    let piece = Data(repeating: 3, count: 8 << 10)
    #expect(channel.write(piece) == .proceed)
    #expect(channel.write(piece) == .proceed)
    #expect(channel.write(piece) == .stop)  // 24 KiB > 20 KiB
    await #expect {
      try await reader.value
    } throws: { error in
      (error as? TransportError)?.code == .bodyTooLarge
    }
    #expect(channel.write(piece) == .stop)

    let fine = BodyChannel(expectedLength: nil)
    let collecting = Task { try await ResponseBody(channel: fine).collect(upTo: 1 << 20) }
    try await Task.sleep(for: .milliseconds(20))
    #expect(fine.write(piece) == .proceed)
    #expect(fine.write(Data(repeating: 4, count: 8 << 10)) == .proceed)
    fine.finish(nil)
    #expect(try await collecting.value == piece + Data(repeating: 4, count: 8 << 10))
  }

  @Test func ownedDataOutsideTheChunkBoundsIsCopiedAndCutToChunkSize() async throws {
    let channel = BodyChannel(expectedLength: nil)
    let huge = Data(repeating: 9, count: BodyChannel.chunkSize + 1)
    #expect(channel.write(huge) == .proceed)
    channel.flush()
    channel.finish(nil)
    var sizes: [Int] = []
    for try await chunk in ResponseBody(channel: channel) { sizes.append(chunk.count) }
    #expect(sizes.reduce(0, +) == huge.count)
    #expect(sizes.allSatisfy { $0 <= BodyChannel.chunkSize })
  }

  @Test func cancellingWithAChunkBeingFilledEndsCleanly() async throws {
    let channel = BodyChannel(expectedLength: nil)
    let large = Data(repeating: 1, count: 200 << 10)
    #expect(large.withUnsafeBytes { channel.write($0) } == .proceed)
    channel.cancel()
    #expect(large.withUnsafeBytes { channel.write($0) } == .stop)
    await #expect(throws: TransportError.self) { try await ResponseBody(channel: channel).collect(upTo: 1 << 20) }
  }

  @Test func waitingReaderIsWokenByFlush() async throws {
    let channel = BodyChannel(expectedLength: nil)
    let body = ResponseBody(channel: channel)
    let reader = Task { try await body.collect(upTo: 100) }
    try await Task.sleep(for: .milliseconds(20))
    _ = write(channel, "hello ")
    channel.flush()
    _ = write(channel, "world")
    channel.finish(nil)
    #expect(try await reader.value == Data("hello world".utf8))
  }

  @Test func collectFailsPastTheLimitAndStopsTheProducer() async throws {
    let (channel, _) = channelReportingCancel()
    let body = ResponseBody(channel: channel)
    let reader = Task { try await body.collect(upTo: 5) }
    try await Task.sleep(for: .milliseconds(20))
    #expect(write(channel, "0123456789") == .stop)
    await #expect {
      try await reader.value
    } throws: { error in
      (error as? TransportError)?.code == .bodyTooLarge
    }
  }

  @Test func collectFailsWhenAlreadyBufferedPastTheLimit() async throws {
    let (channel, cancelled) = channelReportingCancel()
    _ = write(channel, "0123456789")
    channel.flush()
    await #expect(throws: TransportError.self) { try await ResponseBody(channel: channel).collect(upTo: 4) }
    #expect(cancelled.withLock { $0 })
  }

  /// A `Data` of the body's own (URLSession's reads) is queued without a copy and counts against the window the same.
  @Test(arguments: [false, true])
  func backPressurePausesAndDemandResumes(owned: Bool) async throws {
    let channel = BodyChannel(expectedLength: nil)
    let demands = Locked(0)
    channel.setHandlers(onDemand: { demands.withLock { $0 += 1 } }, onCancel: {})
    let chunk = Data(count: 256 << 10)
    var result = BodyChannel.WriteResult.proceed
    var written = 0
    while result == .proceed {
      result = owned ? channel.write(chunk) : chunk.withUnsafeBytes { channel.write($0) }
      channel.flush()
      written += chunk.count
    }
    #expect(result == .pause)
    #expect(written > BodyChannel.highWater)
    #expect(written <= BodyChannel.highWater + chunk.count)
    let body = ResponseBody(channel: channel)
    var iterator = body.makeAsyncIterator()
    var read = 0
    while demands.withLock({ $0 }) == 0, let next = try await iterator.next() { read += next.count }
    #expect(demands.withLock { $0 } == 1)
    #expect(written - read < BodyChannel.lowWater)
    channel.cancel()
    #expect(channel.write(chunk) == .stop)
  }

  @Test func droppingTheBodyCancelsTheTransfer() {
    let (channel, cancelled) = channelReportingCancel()
    do {
      _ = ResponseBody(channel: channel)
    }
    #expect(cancelled.withLock { $0 })
    #expect(write(channel, "late") == .stop)
  }

  @Test func cancellingTheReadingTaskCancelsTheTransfer() async throws {
    let (channel, cancelled) = channelReportingCancel()
    let body = ResponseBody(channel: channel)
    let reader = Task { try await body.collect(upTo: 1 << 20) }
    try await Task.sleep(for: .milliseconds(20))
    reader.cancel()
    await #expect {
      try await reader.value
    } throws: { error in
      (error as? TransportError)?.code == .cancelled
    }
    #expect(cancelled.withLock { $0 })
  }

  @Test func aCancelledReaderGetsNoQueuedChunkAndStopsTheTransfer() async throws {
    // Chunks waiting in the queue are taken without suspending; a cancelled reading task must still get the
    // cancellation, not the chunk, and the producer must hear of it.
    let (channel, cancelled) = channelReportingCancel()
    #expect(channel.write(Data(repeating: 1, count: 8 << 10)) == .proceed)
    channel.flush()
    let gate = Locked<CheckedContinuation<Void, Never>?>(nil)
    let reader = Task {
      await withCheckedContinuation { continuation in gate.withLock { $0 = continuation } }
      var iterator = ResponseBody(channel: channel).makeAsyncIterator()
      return try await iterator.next()
    }
    while gate.withLock({ $0 == nil }) { await Task.yield() }
    reader.cancel()
    gate.withLock { $0?.resume() }
    await #expect {
      try await reader.value
    } throws: { error in
      (error as? TransportError)?.code == .cancelled
    }
    #expect(cancelled.withLock { $0 })
    #expect(channel.write(Data(repeating: 1, count: 8 << 10)) == .stop)
  }

  @Test(arguments: [false, true])
  func flushUnlessWakingLeavesAWaitingReaderForTheNextFlush(owned: Bool) async throws {
    let channel = BodyChannel(expectedLength: nil)
    // Nobody waits: the bytes are queued, and a reader finds them without another flush.
    #expect(write(channel, "first") == .proceed)
    #expect(channel.flushUnlessWaking())
    var iterator = ResponseBody(channel: channel).makeAsyncIterator()
    #expect(try await iterator.next() == Data("first".utf8))

    // A reader waits: flushing would wake it, so nothing is done until a real flush.
    let received = Locked<Data?>(nil)
    let reader = Task {
      var iterator = ResponseBody(channel: channel).makeAsyncIterator()
      let chunk = try await iterator.next()
      received.withLock { $0 = chunk }
      return chunk
    }
    while !channel.hasWaitingReader { await Task.yield() }
    // Nothing written since the reader began to wait: there is nobody to wake, so the call is a flush.
    #expect(channel.flushUnlessWaking())
    let piece = Data(repeating: 5, count: owned ? 16 << 10 : 100)
    #expect((owned ? channel.write(piece) : piece.withUnsafeBytes { channel.write($0) }) == .proceed)
    #expect(!channel.flushUnlessWaking())
    #expect(!channel.flushUnlessWaking())
    try await Task.sleep(for: .milliseconds(20))
    #expect(received.withLock { $0 } == nil)
    channel.flush()
    #expect(try await reader.value == piece)
  }

  @Test func producerErrorReachesTheReader() async {
    struct Broken: Error {}
    let channel = BodyChannel(expectedLength: nil)
    _ = write(channel, "partial")
    channel.finish(Broken())
    await #expect(throws: Broken.self) { try await ResponseBody(channel: channel).collect(upTo: 100) }
  }

  @Test func aBodyIsCollectedOnce() async throws {
    let body = ResponseBody(data: Data("once".utf8))
    #expect(try await body.collect(upTo: 10) == Data("once".utf8))
    await #expect(throws: TransportError.self) { try await body.collect(upTo: 10) }
  }

  @Test func bodyFromAnAsyncSequence() async throws {
    let chunks = AsyncStream<Data> { continuation in
      for index in 0..<100 { continuation.yield(Data("\(index),".utf8)) }
      continuation.finish()
    }
    let body = ResponseBody(chunks: chunks)
    let expected = (0..<100).map { "\($0)," }.joined()
    #expect(String(decoding: try await body.collect(upTo: 1 << 20), as: UTF8.self) == expected)
  }

  @Test func emptyBody() async throws {
    #expect(try await ResponseBody.empty.collect(upTo: 0).isEmpty)
    #expect(ResponseBody(data: Data("abc".utf8)).expectedLength == 3)
  }
}
