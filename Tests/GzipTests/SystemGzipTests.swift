import Foundation
import MalibuGzip
import Testing

@Suite("Cross-checks with /bin/gzip")
struct SystemGzipTests {
  static let inputs: [Sample] = [.empty, .oneByte, .oneKiB, .textMiB, .randomMiB]

  @Test(
    "inflate what gzip -c wrote (with a file name in the header)",
    arguments: inputs,
    [Chunking.whole, .sevenBytes]
  )
  func inflateSystemOutput(_ sample: Sample, chunking: Chunking) throws {
    let packed = try SystemGzip.run(["-c"], inputs: [sample.data])
    #expect(packed.prefix(2) == Data([0x1f, 0x8b]))
    #expect(try inflateChunked(packed, format: .gzip, chunking: chunking) == sample.data)
    #expect(try inflateChunked(packed, format: .automatic, chunking: chunking) == sample.data)
  }

  @Test("inflate gzip -c output fed one byte at a time", arguments: ["-1", "-9", "-n"])
  func inflateSystemOutputByteByByte(_ option: String) throws {
    let plain = Fixtures.oneKiBText + Fixtures.randomBytes(500, seed: 9)
    let packed = try SystemGzip.run(["-c", option], inputs: [plain])
    #expect(try inflateChunked(packed, chunking: .oneByte) == plain)
  }

  @Test("gzip -dc reads what we deflate", arguments: inputs, [Chunking.whole, .oneByte])
  func systemInflatesOurOutput(_ sample: Sample, chunking: Chunking) throws {
    let packed = try deflateChunked(sample.data, format: .gzip, chunking: chunking)
    #expect(try SystemGzip.run(["-dc"], inputs: [packed]) == sample.data)
  }

  @Test("several files in one gzip -c call make a multi-member stream", arguments: [Chunking.whole, .oneByte])
  func systemMultiMember(_ chunking: Chunking) throws {
    let parts = [Fixtures.oneKiBText, Data(), Data("second member\n".utf8), Fixtures.randomBytes(70_000, seed: 5)]
    let packed = try SystemGzip.run(["-c"], inputs: parts)
    #expect(try inflateChunked(packed, chunking: chunking) == parts.reduce(Data(), +))
  }

  @Test("gzip -dc reads our multi-member stream")
  func systemReadsOurMultiMember() throws {
    let parts = [Data("one ".utf8), Data(), Data("three".utf8)]
    let packed = try parts.map { try Gzip.deflate($0) }.reduce(Data(), +)
    #expect(try SystemGzip.run(["-dc"], inputs: [packed]) == Data("one three".utf8))
  }
}
