import Foundation
import MalibuGzip
import Testing

struct RoundTripCase: Sendable, CustomTestStringConvertible {
  let format: Deflater.Format
  let sample: Sample

  var inflateFormat: Inflater.Format {
    switch format {
    case .gzip: return .gzip
    case .zlib: return .zlib
    default: return .rawDeflate
    }
  }

  var testDescription: String { "\(format) \(sample)" }

  static let formats: [Deflater.Format] = [.gzip, .zlib, .rawDeflate]
  static let all = formats.flatMap { format in Sample.allCases.map { RoundTripCase(format: format, sample: $0) } }
}

@Suite("Round trips")
struct RoundTripTests {
  @Test("deflate then inflate, both fed in chunks", arguments: RoundTripCase.all, Chunking.allCases)
  func roundTrip(_ testCase: RoundTripCase, chunking: Chunking) throws {
    let plain = testCase.sample.data
    let packed = try deflateChunked(plain, format: testCase.format, chunking: chunking)
    #expect(!packed.isEmpty)
    let unpacked = try inflateChunked(packed, format: testCase.inflateFormat, chunking: chunking)
    #expect(unpacked == plain)
  }

  @Test("chunked deflate output equals one-shot output", arguments: RoundTripCase.formats, Chunking.allCases)
  func chunkingDoesNotChangeDeflateOutput(_ format: Deflater.Format, chunking: Chunking) throws {
    let plain = Fixtures.oneKiBText + Fixtures.randomBytes(3000, seed: 3)
    #expect(try deflateChunked(plain, format: format, chunking: chunking) == Gzip.deflate(plain, format: format))
  }

  @Test("one-shot helpers", arguments: RoundTripCase.all)
  func oneShot(_ testCase: RoundTripCase) throws {
    let plain = testCase.sample.data
    let packed = try Gzip.deflate(plain, format: testCase.format)
    #expect(try Gzip.inflate(packed, format: testCase.inflateFormat) == plain)
    #expect(try Gzip.inflate(packed) == plain)
  }

  @Test("Data conveniences of Inflater and Deflater, fed as [UInt8] and Data")
  func dataConveniences() throws {
    let plain = Fixtures.textMiB.prefix(200_000)
    let deflater = Deflater(format: .gzip)
    var packed = Data()
    packed.append(try deflater.deflate(Array(plain.prefix(100_000))))
    packed.append(try deflater.deflate(plain.dropFirst(100_000)))
    packed.append(try deflater.finish())
    #expect(deflater.totalIn == plain.count)
    #expect(deflater.totalOut == packed.count)

    let inflater = Inflater()
    var unpacked = try inflater.inflate(Array(packed.prefix(10)))
    unpacked.append(try inflater.inflate(packed.dropFirst(10)))
    try inflater.finish()
    #expect(unpacked == plain)
    #expect(inflater.totalIn == packed.count)
    #expect(inflater.totalOut == plain.count)
  }

  @Test(
    "every compression level round-trips",
    arguments: [CompressionLevel.none, .fastest, .default, .best, CompressionLevel(5)]
  )
  func levels(_ level: CompressionLevel) throws {
    let plain = Fixtures.textMiB.prefix(300_000)
    let packed = try Gzip.deflate(plain, level: level)
    #expect(try Gzip.inflate(packed, format: .gzip) == plain)
    if level == .none {
      #expect(packed.count > plain.count)
    } else {
      #expect(packed.count < plain.count / 3)
    }
  }

  @Test("levels are clamped to 0...9 and ordered by effort")
  func levelValues() throws {
    #expect(CompressionLevel(42) == .best)
    #expect(CompressionLevel(-3) == .none)
    #expect(CompressionLevel.default.value == -1)
    #expect(CompressionLevel.default.description == "default")
    let plain = Fixtures.textMiB
    #expect(try Gzip.deflate(plain, level: .best).count < Gzip.deflate(plain, level: .fastest).count)
  }

  @Test("flush hands out everything fed so far, decodable before the stream ends", arguments: RoundTripCase.formats)
  func flush(_ format: Deflater.Format) throws {
    let deflater = Deflater(format: format)
    let inflater = Inflater(format: .automatic)
    let first = Fixtures.oneKiBText
    var packed = try deflater.deflate(first)
    packed.append(try deflater.flush())
    #expect(try inflater.inflate(packed) == first)

    let second = Data("and the rest".utf8)
    var rest = try deflater.deflate(second)
    rest.append(try deflater.finish())
    #expect(try inflater.inflate(rest) == second)
    try inflater.finish()
  }
}
