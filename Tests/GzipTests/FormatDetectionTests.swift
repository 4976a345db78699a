import Foundation
import MalibuGzip
import Testing

@Suite("Format detection and multi-member gzip")
struct FormatDetectionTests {
  @Test(
    "automatic detects each format, even when the header arrives byte by byte",
    arguments: [(Deflater.Format.gzip, Inflater.Format.gzip), (.zlib, .zlib), (.rawDeflate, .rawDeflate)],
    [Chunking.whole, .oneByte, .sevenBytes]
  )
  func automatic(_ formats: (Deflater.Format, Inflater.Format), chunking: Chunking) throws {
    let plain = Fixtures.oneKiBText
    let packed = try Gzip.deflate(plain, format: formats.0)
    let inflater = Inflater(format: .automatic)
    #expect(inflater.detectedFormat == nil)
    var output = Data()
    try forEachChunk(of: packed, size: chunking.size(for: packed.count)) { chunk in
      try inflater.inflate(chunk) { output.append(raw: $0) }
    }
    try inflater.finish()
    #expect(inflater.detectedFormat == formats.1)
    #expect(output == plain)
  }

  @Test(
    "zlib headers are recognised by their checksum, everything else is raw deflate",
    arguments: [
      ([0x1f, 0x8b], Inflater.Format.gzip),
      ([0x78, 0x9c], .zlib),
      ([0x78, 0x01], .zlib),
      ([0x78, 0xda], .zlib),
      ([0x48, 0x89], .zlib),
      ([0x78, 0x9d], .rawDeflate),
      ([0x88, 0x98], .rawDeflate),
      ([0x1f, 0x8c], .rawDeflate),
      ([0xed, 0xbd], .rawDeflate),
    ] as [([UInt8], Inflater.Format)]
  )
  func sniffing(_ header: [UInt8], expected: Inflater.Format) throws {
    let inflater = Inflater()
    _ = try? inflater.inflate(header + [0x00, 0x00])
    #expect(inflater.detectedFormat == expected)
  }

  @Test("an explicit format does not accept another one", arguments: [Inflater.Format.gzip, .zlib])
  func wrongExplicitFormat(_ format: Inflater.Format) throws {
    let packed = try Gzip.deflate(Fixtures.oneKiBText, format: format == .gzip ? .zlib : .gzip)
    #expect(gzipErrorCode { _ = try Gzip.inflate(packed, format: format) } == .corrupt)
  }

  @Test("all members of a multi-member gzip stream are decoded", arguments: Chunking.allCases)
  func multiMember(_ chunking: Chunking) throws {
    let parts = [Fixtures.oneKiBText, Data(), Data("x".utf8), Fixtures.randomBytes(100_000, seed: 11)]
    let packed = try parts.map { try Gzip.deflate($0) }.reduce(Data(), +)
    for format in [Inflater.Format.gzip, .automatic] {
      #expect(try inflateChunked(packed, format: format, chunking: chunking) == parts.reduce(Data(), +))
    }
  }

  @Test("a member boundary inside a chunk and split across chunks")
  func memberBoundaries() throws {
    let first = try Gzip.deflate(Data("first".utf8))
    let second = try Gzip.deflate(Data("second".utf8))
    let packed = first + second
    for cut in (first.count - 2)...(first.count + 3) {
      let inflater = Inflater(format: .gzip)
      var output = try inflater.inflate(packed.prefix(cut))
      output.append(try inflater.inflate(packed.dropFirst(cut)))
      try inflater.finish()
      #expect(output == Data("firstsecond".utf8), "cut at \(cut)")
    }
  }
}
