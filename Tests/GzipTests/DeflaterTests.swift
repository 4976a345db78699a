import Foundation
import MalibuGzip
import Testing

@Suite("Deflater")
struct DeflaterTests {
  @Test("the gzip header is fixed: magic, deflate, no name, no time")
  func gzipHeader() throws {
    let packed = try Gzip.deflate(Data("hello".utf8))
    #expect(Array(packed.prefix(8)) == [0x1f, 0x8b, 8, 0, 0, 0, 0, 0])
    #expect(try Gzip.deflate(Data("hello".utf8)) == packed)
  }

  @Test("an empty body gives a valid empty stream", arguments: RoundTripCase.formats)
  func emptyStream(_ format: Deflater.Format) throws {
    let deflater = Deflater(format: format)
    let packed = try deflater.finish()
    #expect(!packed.isEmpty)
    #expect(deflater.totalIn == 0)
    #expect(try Gzip.inflate(packed).isEmpty)
  }

  @Test("after finish or a sink error every call throws closed")
  func closed() throws {
    let deflater = Deflater(format: .zlib)
    _ = try deflater.deflate(Data("abc".utf8))
    _ = try deflater.finish()
    #expect(gzipErrorCode { _ = try deflater.deflate(Data("more".utf8)) } == .closed)
    #expect(gzipErrorCode { _ = try deflater.deflate(Data()) } == .closed)
    #expect(gzipErrorCode { _ = try deflater.flush() } == .closed)
    #expect(gzipErrorCode { _ = try deflater.finish() } == .closed)

    struct SinkError: Error {}
    let failing = Deflater(format: .gzip)
    #expect(throws: SinkError.self) {
      try Fixtures.randomMiB.withUnsafeBytes { bytes in try failing.deflate(bytes) { _ in throw SinkError() } }
    }
    #expect(gzipErrorCode { _ = try failing.finish() } == .closed)
  }

  @Test("flush twice in a row is harmless")
  func doubleFlush() throws {
    let deflater = Deflater(format: .rawDeflate)
    var packed = try deflater.deflate(Data("x".utf8))
    packed.append(try deflater.flush())
    packed.append(try deflater.flush())
    packed.append(try deflater.finish())
    #expect(try Gzip.inflate(packed, format: .rawDeflate) == Data("x".utf8))
  }
}
