import Foundation
import MalibuGzip
import Testing

/// What a GzipError says when the input is not compressed data, or is corrupt: the real format's name.
@Suite("Gzip error messages")
struct FormatErrorMessageTests {
  static let text = Data("Hello, plain text that was never compressed".utf8)

  @Test(
    arguments: [
      (
        Inflater.Format.automatic,
        "the data is not compressed: it starts with 48 65 6c 6c (\"Hell\"), neither the gzip magic (1f 8b) nor a zlib "
          + "header (such as 78 9c), and it is not raw deflate data either (zlib: invalid stored block lengths)"
      ),
      (
        .gzip,
        "the data is not gzip, and not compressed data: a gzip stream starts with 1f 8b, it starts with "
          + "48 65 6c 6c (\"Hell\") (zlib: incorrect header check)"
      ),
      (
        .zlib,
        "the data is not zlib, and not compressed data: a zlib stream starts with a header such as 78 9c, it "
          + "starts with 48 65 6c 6c (\"Hell\") (zlib: incorrect header check)"
      ),
      (
        .rawDeflate,
        "the data is not raw deflate, and not compressed data: it starts with 48 65 6c 6c (\"Hell\") (zlib: invalid "
          + "stored block lengths)"
      ),
    ] as [(Inflater.Format, String)]
  )
  func plainTextNamesTheFormat(format: Inflater.Format, message: String) throws {
    for chunk in [Self.text.count, 1] {
      let inflater = Inflater(format: format)
      let error = #expect(throws: GzipError.self) {
        var offset = 0
        while offset < Self.text.count {
          let piece = Self.text[offset..<min(offset + chunk, Self.text.count)]
          try piece.withUnsafeBytes { try inflater.inflate($0) { _ in } }
          offset += piece.count
        }
        try inflater.finish()
      }
      #expect(error?.code == .corrupt)
      if chunk == 1 {
        // Fed byte by byte, a gzip or zlib header is refused at its second byte: only those two are quoted.
        let twoBytes = message.replacingOccurrences(of: "48 65 6c 6c (\"Hell\")", with: "48 65 (\"He\")")
        #expect(error?.message == message || error?.message == twoBytes, "\(error?.message ?? "")")
      } else {
        #expect(error?.message == message)
      }
      #expect(error?.message.contains("rawDeflate") == false)
    }
    // A new inflater of the same format reads real compressed data.
    let compressed = try Gzip.deflate(Self.text, format: deflaterFormat(format))
    #expect(try Gzip.inflate(compressed, format: format) == Self.text)
  }

  @Test func corruptDataAfterAGoodHeaderNamesTheFormat() throws {
    var damaged = try Gzip.deflate(Data(repeating: 0x61, count: 4096) + Self.text, format: .gzip)
    damaged[12] ^= 0xff
    let error = #expect(throws: GzipError.self) { try Gzip.inflate(damaged, format: .automatic) }
    #expect(error?.message.hasPrefix("the gzip data is corrupt (zlib: ") == true, "\(error?.message ?? "")")
  }

  @Test func aTruncatedRawStreamSaysRawDeflate() throws {
    let compressed = try Gzip.deflate(Self.text, format: .rawDeflate)
    let error = #expect(throws: GzipError.self) {
      try Gzip.inflate(compressed.prefix(compressed.count / 2), format: .rawDeflate)
    }
    #expect(error?.message.hasPrefix("the raw deflate stream ended early") == true, "\(error?.message ?? "")")
  }

  private func deflaterFormat(_ format: Inflater.Format) -> Deflater.Format {
    switch format {
    case .zlib: return .zlib
    case .rawDeflate: return .rawDeflate
    default: return .gzip
    }
  }
}
