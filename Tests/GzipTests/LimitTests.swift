import Foundation
import MalibuGzip
import Testing

@Suite("Output limit")
struct LimitTests {
  static let bomb = try! Gzip.deflate(Data(count: 50 << 20), format: .gzip, level: .best)

  @Test("a 50 MiB bomb stops at the limit, promptly", arguments: [Chunking.whole, .sixtyFourKiB, .sevenBytes])
  func bomb(_ chunking: Chunking) throws {
    #expect(Self.bomb.count < 100_000)
    let limit = 1 << 20
    let inflater = Inflater(format: .automatic, limit: limit)
    var produced = 0
    let code = gzipErrorCode {
      try forEachChunk(of: Self.bomb, size: chunking.size(for: Self.bomb.count)) { chunk in
        try inflater.inflate(chunk) { produced += $0.count }
      }
      try inflater.finish()
    }
    #expect(code == .limitExceeded)
    #expect(produced <= limit)
    #expect(produced > limit - 65_536)
    #expect(inflater.totalOut == produced)
    // The rest of the bomb was not inflated: only the input for about 1 MiB of output was consumed.
    #expect(inflater.totalIn < Self.bomb.count / 10)
  }

  @Test("output exactly at the limit is accepted, one byte over is not", arguments: Chunking.allCases)
  func boundary(_ chunking: Chunking) throws {
    let plain = Fixtures.textMiB.prefix(200_000)
    let packed = try Gzip.deflate(plain, format: .zlib)
    #expect(try inflateChunked(packed, limit: plain.count, chunking: chunking) == plain)

    var output = Data()
    let inflater = Inflater(limit: plain.count - 1)
    let code = gzipErrorCode {
      try forEachChunk(of: packed, size: chunking.size(for: packed.count)) { chunk in
        try inflater.inflate(chunk) { output.append(raw: $0) }
      }
      try inflater.finish()
    }
    #expect(code == .limitExceeded)
    #expect(output == plain.prefix(plain.count - 1))
  }

  @Test("the limit counts every member of a multi-member stream")
  func multiMember() throws {
    let part = Data(repeating: 0x61, count: 1000)
    let packed = try Gzip.deflate(part) + Gzip.deflate(part) + Gzip.deflate(part)
    #expect(try Gzip.inflate(packed, limit: 3000).count == 3000)
    #expect(gzipErrorCode { _ = try Gzip.inflate(packed, limit: 2999) } == .limitExceeded)
  }

  @Test("a zero limit accepts only empty output; a negative one counts as zero", arguments: [0, -5])
  func zeroLimit(_ limit: Int) throws {
    #expect(try Gzip.inflate(Gzip.deflate(Data()), limit: limit).isEmpty)
    #expect(gzipErrorCode { _ = try Gzip.inflate(Gzip.deflate(Data("a".utf8)), limit: limit) } == .limitExceeded)
  }
}
