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

  @Test func aLargePreSizedBodyIsFaultedInOnlyAWindowAheadAndMayOutgrowItsLength() throws {
    let mib = 1 << 20
    var collector = try BodyCollector(limit: 64 * mib, expectedLength: 24 * mib)
    var expected = Data()
    for index in 0..<30 {  // 6 MiB more than the Content-Length said
      let chunk = Data((0..<mib).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) })
      try collector.append(chunk)
      expected += chunk
      #if os(Linux)
      if index < 24 {  // never more than a window (8 MiB) ahead of what arrived
        #expect(collector.prefaulted >= expected.count && collector.prefaulted <= expected.count + 8 * mib)
      }
      #endif
    }
    #expect(collector.take() == expected)
  }

  @Test func aCopyOfACollectorIsIndependent() throws {
    var first = try BodyCollector(limit: 100, expectedLength: nil)
    try first.append(Data([1, 2]))
    var second = first
    try second.append(Data([3]))
    try first.append(Data([4]))
    #expect(first.take() == Data([1, 2, 4]))
    #expect(second.take() == Data([1, 2, 3]))
  }
}
