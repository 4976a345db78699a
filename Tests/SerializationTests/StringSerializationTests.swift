import Foundation
import MalibuCore
import MalibuSerialization
import Testing

/// A body in some charset and the text it must decode to.
struct CharsetSample: Sendable, CustomTestStringConvertible {
  var contentType: String
  var bytes: [UInt8]
  var text: String

  init(_ contentType: String, _ bytes: [UInt8], _ text: String) {
    self.contentType = contentType
    self.bytes = bytes
    self.text = text
  }

  var testDescription: String { contentType }
}

/// A body that is not valid in its charset, and a fragment the error message must contain.
struct InvalidSample: Sendable, CustomTestStringConvertible {
  var contentType: String
  var bytes: [UInt8]
  var messageFragment: String

  init(_ contentType: String, _ bytes: [UInt8], _ messageFragment: String) {
    self.contentType = contentType
    self.bytes = bytes
    self.messageFragment = messageFragment
  }

  var testDescription: String { "\(contentType) \(bytes.map { String($0, radix: 16) })" }
}

struct StringSerializationTests {
  static let samples: [CharsetSample] = [
    CharsetSample("text/plain; charset=utf-8", Array("héllo ✓ 😀".utf8), "héllo ✓ 😀"),
    CharsetSample("text/plain; charset=UTF8", Array("naïve".utf8), "naïve"),
    CharsetSample("text/plain; charset=\"UTF-8\"", Array("quoted ü".utf8), "quoted ü"),
    CharsetSample("text/plain;charset=utf-8", [0xEF, 0xBB, 0xBF, 0x68, 0x69], "hi"),
    CharsetSample("text/plain; charset=us-ascii", Array("plain text".utf8), "plain text"),
    CharsetSample("text/plain; charset=ASCII", Array("ASCII".utf8), "ASCII"),
    CharsetSample("text/html; charset=iso-8859-1", [0x63, 0x61, 0x66, 0xE9], "café"),
    CharsetSample("text/html; charset=Latin1", [0xA3, 0x31, 0x20, 0xFF], "£1 ÿ"),
    CharsetSample("text/html; charset=ISO-8859-2", [0xA3, 0xF3, 0x64, 0xBC], "Łódź"),
    CharsetSample("text/html; charset=windows-1250", [0xA3, 0xF3, 0x64, 0x9F], "Łódź"),
    CharsetSample("text/html; charset=Windows-1251", [0xCF, 0xF0, 0xE8, 0xE2, 0xE5, 0xF2], "Привет"),
    CharsetSample("text/html; charset=windows-1252", [0x80, 0x35, 0x20, 0x93, 0x71, 0x94], "€5 \u{201C}q\u{201D}"),
    CharsetSample("text/html; charset=windows-1253", [0xC3, 0xE5, 0xE9, 0xDC], "Γειά"),
    CharsetSample("text/html; charset=windows-1254", [0xDD, 0x73, 0x74, 0x20, 0xF0], "İst ğ"),
    CharsetSample("text/plain; charset=utf-16", [0xFF, 0xFE, 0x68, 0x00, 0x69, 0x00], "hi"),
    CharsetSample("text/plain; charset=utf-16", [0xFE, 0xFF, 0x00, 0x68, 0x00, 0x69], "hi"),
    CharsetSample("text/plain; charset=UTF-16", [0x00, 0x68, 0x00, 0x69], "hi"),
    CharsetSample("text/plain; charset=utf-16le", [0x68, 0x00, 0x3D, 0xD8, 0x00, 0xDE], "h😀"),
    CharsetSample("text/plain; charset=utf-16le", [0xFF, 0xFE, 0x68, 0x00], "h"),
    CharsetSample("text/plain; charset=UTF-16BE", [0x00, 0x68, 0xD8, 0x3D, 0xDE, 0x00], "h😀"),
    CharsetSample("text/plain; charset=utf-32", [0xFF, 0xFE, 0x00, 0x00, 0x68, 0x00, 0x00, 0x00], "h"),
    CharsetSample("text/plain; charset=utf-32", [0x00, 0x00, 0x00, 0x68, 0x00, 0x01, 0xF6, 0x00], "h😀"),
    CharsetSample("text/plain; charset=utf-32le", [0x68, 0x00, 0x00, 0x00, 0x00, 0xF6, 0x01, 0x00], "h😀"),
    CharsetSample("text/plain; charset=UTF-32BE", [0x00, 0x00, 0x00, 0x68, 0x00, 0x01, 0xF6, 0x00], "h😀"),
    CharsetSample("text/plain; charset=shift_jis", [0x93, 0xFA, 0x96, 0x7B, 0x20, 0xB1], "日本 ｱ"),
    CharsetSample("text/plain; charset=\"Shift_JIS\"", [0x61, 0x82, 0xA0], "aあ"),
    CharsetSample("text/plain; charset=euc-jp", [0xC6, 0xFC, 0xCB, 0xDC, 0x20, 0x8E, 0xB1], "日本 ｱ"),
    CharsetSample("text/plain; charset=EUC-JP", [0x61, 0xA4, 0xA2, 0xA1, 0xA1, 0xA8, 0xA1], "aあ\u{3000}─"),
    CharsetSample(
      "text/plain; charset=iso-2022-jp",
      [0x1B, 0x24, 0x42, 0x46, 0x7C, 0x4B, 0x5C, 0x1B, 0x28, 0x42],
      "日本"
    ),
  ]

  @Test("Each supported charset decodes its bytes", arguments: samples)
  func charsets(sample: CharsetSample) throws {
    let response = makeResponse(sample.bytes, contentType: sample.contentType)
    #expect(try response.toString() == sample.text)
  }

  @Test("Without a charset the body is UTF-8", arguments: [nil, "text/plain", "application/json", "text/html; q=1"])
  func defaultIsUTF8(contentType: String?) throws {
    let response = makeResponse(Array("Grüße, 世界 🌊".utf8), contentType: contentType)
    #expect(try response.toString() == "Grüße, 世界 🌊")
  }

  static let invalidSamples: [InvalidSample] = [
    InvalidSample("text/plain", [0xFF, 0xFE, 0x41], "offset 0"),
    InvalidSample("text/plain; charset=utf-8", [0x41, 0x42, 0xFF, 0xFE], "offset 2"),
    InvalidSample("text/plain; charset=utf-8", [0x41, 0xC0, 0x80], "offset 1"),
    InvalidSample("text/plain; charset=utf-8", [0xED, 0xA0, 0x80], "offset 0"),
    InvalidSample("text/plain; charset=utf-8", [0x41, 0xE2, 0x82], "offset 1"),
    InvalidSample("text/plain; charset=utf-8", [0xF4, 0x90, 0x80, 0x80], "offset 0"),
    InvalidSample("text/plain; charset=us-ascii", [0x63, 0x61, 0x66, 0xE9], "offset 3"),
    InvalidSample("text/plain; charset=utf-16le", [0x68, 0x00, 0x69], "multiple of 2"),
    InvalidSample("text/plain; charset=utf-16", [0xFF, 0xFE, 0x41], "multiple of 2"),
    InvalidSample("text/plain; charset=utf-16le", [0x00, 0xD8, 0x41, 0x00], "UTF-16"),
    InvalidSample("text/plain; charset=utf-16be", [0xDC, 0x00], "UTF-16"),
    InvalidSample("text/plain; charset=utf-32le", [0x68, 0x00, 0x00], "multiple of 4"),
    InvalidSample("text/plain; charset=utf-32be", [0x00, 0x11, 0x00, 0x00], "UTF-32"),
    InvalidSample("text/plain; charset=shift_jis", [0x81, 0x20], "not valid"),
    InvalidSample("text/plain; charset=shift_jis", [0x93], "not valid"),
    InvalidSample(
      "text/plain; charset=euc-jp",
      [0x61, 0x8F, 0xB0, 0xA1],
      "JIS X 0212 character, which is not supported at offset 1"
    ),
    InvalidSample("text/plain; charset=euc-jp", [0x61, 0xC6], "incomplete character at offset 1"),
    InvalidSample("text/plain; charset=euc-jp", [0x8E, 0xE0], "half-width katakana at offset 0"),
    InvalidSample("text/plain; charset=euc-jp", [0xFF], "starts no character at offset 0"),
    InvalidSample("text/plain; charset=euc-jp", [0xF5, 0xA1], "starts no character at offset 0"),
    InvalidSample("text/plain; charset=euc-jp", [0xA9, 0xA1], "outside JIS X 0208"),
    InvalidSample("text/plain; charset=iso-2022-jp", [0x1B, 0x24, 0x42, 0x46], "not valid"),
    InvalidSample("text/plain; charset=iso-2022-jp", [0x41, 0xC6], "not valid"),
    InvalidSample("text/plain; charset=windows-1252", [0x41, 0x81], "not valid"),
    InvalidSample("text/plain; charset=windows-1253", [0xFF], "not valid"),
  ]

  @Test("Bytes that are invalid in the charset are an error, never replacement characters", arguments: invalidSamples)
  func invalidBytes(sample: InvalidSample) {
    let response = makeResponse(sample.bytes, contentType: sample.contentType)
    let error = expectNetworkError(.stringDecodingFailed, response: response) { () throws(NetworkError) in
      try response.toString()
    }
    #expect(error?.message.contains(sample.messageFragment) == true, "\(error?.message ?? "")")
  }

  @Test("An unknown charset is an error that names it", arguments: ["koi8-r", "\"x-unknown\"", "utf8mb4"])
  func unknownCharset(charset: String) throws {
    let response = makeResponse(Array("abc".utf8), contentType: "text/plain; charset=\(charset)")
    let error = expectNetworkError(.stringDecodingFailed, response: response) { () throws(NetworkError) in
      try response.toString()
    }
    let expectedName = charset.replacingOccurrences(of: "\"", with: "")
    #expect(error?.message.contains("'\(expectedName)'") == true, "\(error?.message ?? "")")
    #expect(try response.toString(encoding: .utf8) == "abc")
  }

  @Test("A Content-Type that cannot be parsed is invalidContentType, keeping the parse error")
  func malformedContentType() throws {
    let response = makeResponse(Array("abc".utf8), contentType: "text/plain; charset")
    let error = expectNetworkError(.invalidContentType, response: response) { () throws(NetworkError) in
      try response.toString()
    }
    let cause = try #require(error?.underlyingError as? NetworkError)
    #expect(cause.code == .invalidContentType)
    #expect(try response.toString(encoding: .ascii) == "abc")
  }

  @Test(
    "An explicit encoding wins over the header",
    arguments: [
      ("text/plain; charset=utf-8", String.Encoding.isoLatin1, [0x63, 0x61, 0x66, 0xE9] as [UInt8], "café"),
      ("text/plain; charset=koi8-r", .windowsCP1251, [0xCF, 0xF0, 0xE8, 0xE2, 0xE5, 0xF2], "Привет"),
      ("text/plain; charset=iso-8859-1", .utf8, Array("café".utf8), "café"),
      ("", .japaneseEUC, [0xC6, 0xFC], "日"),
      ("text/plain", .unicode, [0xFF, 0xFE, 0x68, 0x00], "h"),
    ]
  )
  func explicitEncoding(contentType: String, encoding: String.Encoding, bytes: [UInt8], text: String) throws {
    let response = makeResponse(bytes, contentType: contentType.isEmpty ? nil : contentType)
    #expect(try response.toString(encoding: encoding) == text)
  }

  @Test("An empty body is the empty string whatever the headers say")
  func emptyBody() throws {
    #expect(try makeResponse([], contentType: "text/plain; charset=koi8-r").toString() == "")
    #expect(try makeResponse([], contentType: "text/plain; charset").toString() == "")
  }
}
