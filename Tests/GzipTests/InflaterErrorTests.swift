import Foundation
import MalibuGzip
import Testing

@Suite("Inflater errors")
struct InflaterErrorTests {
  static let gzipped = try! Gzip.deflate(Fixtures.oneKiBText, format: .gzip)
  static let zlibbed = try! Gzip.deflate(Fixtures.oneKiBText, format: .zlib)
  static let raw = try! Gzip.deflate(Fixtures.oneKiBText, format: .rawDeflate)

  struct Cut: Sendable, CustomTestStringConvertible {
    let format: Inflater.Format
    let data: Data
    let length: Int
    var testDescription: String { "\(format) cut at \(length) of \(data.count)" }
  }

  static let cuts: [Cut] = {
    func cuts(_ format: Inflater.Format, _ data: Data, _ points: [Int]) -> [Cut] {
      points.map { Cut(format: format, data: data, length: $0) }
    }
    let gzip = gzipped.count
    let zlib = zlibbed.count
    return cuts(.gzip, gzipped, [0, 1, 2, 3, 9, 10, 11, gzip / 2, gzip - 8, gzip - 5, gzip - 1])
      + cuts(.automatic, gzipped, [1, 2, 10, gzip / 2, gzip - 1])
      + cuts(.zlib, zlibbed, [0, 1, 2, 3, zlib / 2, zlib - 4, zlib - 1])
      + cuts(.automatic, zlibbed, [0, 1, 2, zlib - 1])
      + cuts(.rawDeflate, raw, [0, 1, raw.count / 2, raw.count - 1])
  }()

  @Test("a stream cut anywhere is truncated", arguments: cuts, [Chunking.whole, .oneByte])
  func truncated(_ cut: Cut, chunking: Chunking) {
    let code = gzipErrorCode {
      _ = try inflateChunked(cut.data.prefix(cut.length), format: cut.format, chunking: chunking)
    }
    #expect(code == .truncated)
  }

  @Test(
    "empty input is truncated, whatever the format",
    arguments: [Inflater.Format.automatic, .gzip, .zlib, .rawDeflate]
  )
  func emptyIsTruncated(_ format: Inflater.Format) throws {
    let inflater = Inflater(format: format)
    #expect(try inflater.inflate(Data()).isEmpty)
    #expect(gzipErrorCode { try inflater.finish() } == .truncated)
  }

  struct Garbage: Sendable, CustomTestStringConvertible {
    let name: String
    let format: Inflater.Format
    let data: Data
    var testDescription: String { "\(name) as \(format)" }
  }

  static let notCompressed: [Garbage] = {
    var random = Fixtures.randomBytes(4096, seed: 1)
    random[0] = 0x00
    let texts = [
      "Hello, world! This is plain text, not compressed at all.\n", "<html><body>hi</body></html>", "404 Not Found",
    ]
    var cases: [Garbage] = []
    for format in [Inflater.Format.gzip, .zlib] {
      cases.append(Garbage(name: "random bytes", format: format, data: random))
    }
    for format in [Inflater.Format.gzip, .zlib, .automatic] {
      cases += texts.map { Garbage(name: $0, format: format, data: Data($0.utf8)) }
    }
    cases.append(
      Garbage(name: "gzip magic, unknown method", format: .gzip, data: Data([0x1f, 0x8b, 7, 0, 0, 0, 0, 0, 0, 3]))
    )
    cases.append(
      Garbage(name: "zlib with preset dictionary", format: .automatic, data: Data([0x78, 0xbb, 0, 0, 0, 1, 3]))
    )
    cases.append(Garbage(name: "reserved block type", format: .rawDeflate, data: Data([0x07, 0x00])))
    return cases
  }()

  @Test("input that is not compressed data is corrupt", arguments: notCompressed, [Chunking.whole, .oneByte])
  func corrupt(_ garbage: Garbage, chunking: Chunking) {
    #expect(
      gzipErrorCode { _ = try inflateChunked(garbage.data, format: garbage.format, chunking: chunking) } == .corrupt
    )
  }

  @Test("random bytes never crash automatic detection", arguments: 0..<20)
  func randomAutomatic(_ seed: Int) {
    let code = gzipErrorCode { _ = try inflateChunked(Fixtures.randomBytes(2048, seed: UInt64(seed) + 100)) }
    #expect(code == .corrupt || code == .truncated || code == .trailingData)
  }

  @Test(
    "a damaged checksum or length is corrupt",
    arguments: [
      ("gzip CRC-32", Inflater.Format.gzip, gzipped, gzipped.count - 8),
      ("gzip CRC-32 last byte", .gzip, gzipped, gzipped.count - 5),
      ("gzip length", .gzip, gzipped, gzipped.count - 1),
      ("gzip method byte", .automatic, gzipped, 2),
      ("zlib Adler-32", .zlib, zlibbed, zlibbed.count - 1),
      ("zlib header check", .zlib, zlibbed, 1),
      ("gzip body", .gzip, gzipped, gzipped.count / 2),
    ] as [(String, Inflater.Format, Data, Int)]
  )
  func damaged(_ name: String, format: Inflater.Format, data: Data, offset: Int) {
    var damaged = data
    damaged[offset] ^= 0x01
    #expect(gzipErrorCode { _ = try inflateChunked(damaged, format: format) } == .corrupt, "\(name)")
  }

  @Test(
    "bytes after the end of the stream are trailing data",
    arguments: [
      ("gzip + text", Inflater.Format.gzip, gzipped + Data("garbage".utf8)),
      ("gzip + zeros", .gzip, gzipped + Data(count: 4)),
      ("gzip + 1f 00", .automatic, gzipped + Data([0x1f, 0x00])),
      ("zlib + x", .zlib, zlibbed + Data("x".utf8)),
      ("zlib + x, automatic", .automatic, zlibbed + Data("x".utf8)),
      ("raw + xyz", .rawDeflate, raw + Data("xyz".utf8)),
      ("zlib + gzip", .zlib, zlibbed + gzipped),
    ] as [(String, Inflater.Format, Data)],
    [Chunking.whole, .oneByte]
  )
  func trailingData(_ testCase: (name: String, format: Inflater.Format, data: Data), chunking: Chunking) {
    let code = gzipErrorCode { _ = try inflateChunked(testCase.data, format: testCase.format, chunking: chunking) }
    #expect(code == .trailingData, "\(testCase.name)")
  }

  @Test("a lone magic byte after a member is a truncated next member")
  func loneMagicByte() {
    #expect(gzipErrorCode { _ = try inflateChunked(Self.gzipped + Data([0x1f])) } == .truncated)
  }

  @Test("after an error or finish every call throws closed, without crashing")
  func closedAfterError() throws {
    let inflater = Inflater(format: .gzip)
    #expect(gzipErrorCode { _ = try inflater.inflate(Data("not gzip".utf8)) } == .corrupt)
    do {
      _ = try inflater.inflate(Self.gzipped)
      Issue.record("expected an error")
    } catch let error as GzipError {
      #expect(error.code == .closed)
      #expect((error.underlyingError as? GzipError)?.code == .corrupt)
    }
    #expect(gzipErrorCode { try inflater.finish() } == .closed)

    let finished = Inflater()
    _ = try finished.inflate(Self.gzipped)
    try finished.finish()
    #expect(gzipErrorCode { try finished.finish() } == .closed)
    #expect(gzipErrorCode { _ = try finished.inflate(Self.gzipped) } == .closed)
  }

  struct SinkError: Error {}

  @Test("an error thrown by the sink is rethrown unchanged and closes the inflater")
  func sinkError() throws {
    let inflater = Inflater()
    #expect(throws: SinkError.self) {
      try Self.gzipped.withUnsafeBytes { bytes in try inflater.inflate(bytes) { _ in throw SinkError() } }
    }
    #expect(gzipErrorCode { _ = try inflater.inflate(Self.gzipped) } == .closed)
  }

  @Test("the message carries zlib's explanation and the description the code")
  func message() {
    do {
      _ = try Gzip.inflate(Data("definitely not gzip".utf8), format: .gzip)
      Issue.record("expected an error")
    } catch let error as GzipError {
      #expect(error.code == .corrupt)
      #expect(error.message.contains("incorrect header check"))
      #expect(error.description.hasPrefix("GzipError.corrupt: "))
    } catch {
      Issue.record("unexpected error \(error)")
    }
  }
}
