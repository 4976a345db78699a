import Foundation
import MalibuTransport
import Testing

/// The one collector behind every `upTo:` limit.
@Suite("BodyCollector")
struct BodyCollectorTests {
  @Test func collectsUpToTheLimitAndRefusesTheBytesPastIt() throws {
    var collector = try BodyCollector(limit: 10, expectedLength: 4)
    let bytes: [UInt8] = [1, 2, 3, 4, 5, 6]
    try bytes.withUnsafeBytes { try collector.append($0) }
    let error = #expect(throws: TransportError.self) { try bytes.withUnsafeBytes { try collector.append($0) } }
    #expect(error?.code == .bodyTooLarge)
    #expect(error?.message.hasPrefix("the response body is larger than the limit of 10 bytes: raise") == true)
    #expect(collector.count == 6)  // nothing of the refused bytes was kept
    try collector.append(Data([7, 8, 9, 10]))  // exactly the limit
    #expect(collector.take() == Data([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]))
    #expect(collector.take().isEmpty)
  }

  @Test func anAnnouncedLengthPastTheLimitIsRefusedAtOnce() {
    let error = #expect(throws: TransportError.self) { try BodyCollector(limit: 100, expectedLength: 1000) }
    #expect(error?.code == .bodyTooLarge)
    #expect(error?.message.hasPrefix("the response body (1000 bytes, by its Content-Length) is larger") == true)
    #expect(throws: Never.self) { try BodyCollector(limit: 100, expectedLength: 100) }
  }

  @Test func aBodyThatOutgrowsItsAnnouncedLengthIsStillCollectedWithinTheLimit() throws {
    var collector = try BodyCollector(limit: 64 << 10, expectedLength: 1 << 10)
    var expected = Data()
    for index in 0..<8 {
      let piece = Data((0..<(4 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) })
      try collector.append(piece)
      expected += piece
    }
    #expect(collector.take() == expected)
  }

  @Test func aFirstChunkIsKeptAsItIsWhenNothingWasReserved() throws {
    var collector = try BodyCollector(limit: 1 << 20, expectedLength: nil)
    let chunk = Data(repeating: 3, count: 4096)
    try collector.append(chunk)
    let body = collector.take()
    let same = body.withUnsafeBytes { mine in chunk.withUnsafeBytes { $0.baseAddress == mine.baseAddress } }
    #expect(same)
  }
}
