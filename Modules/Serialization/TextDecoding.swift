import Foundation

/// Why bytes could not be read as text in an encoding.
struct TextDecodingFailure: Error {
  var reason: String
}

/// Strict decoding of bytes as text: the result is exact or there is none, never a string with replacement
/// characters.
///
/// Foundation's `String(data:encoding:)` does the work for most encodings, with these guards, found by testing
/// swift-corelibs-foundation on Linux:
/// - UTF-8 and US-ASCII are checked here, so the failure names the offset of the first bad byte.
/// - UTF-16 and UTF-32 bodies whose length is not a multiple of 2 or 4 are rejected here: Foundation silently
///   drops the trailing bytes.
/// - EUC-JP has no decoder in Foundation on Linux, so it is transcoded to Shift_JIS here (see
///   ``EUCJPTranscoder``) and decoded as that, on every platform alike.
/// - A leading byte-order mark is removed from the text of every Unicode encoding.
enum TextDecoding {
  static func decode(_ data: Data, as encoding: String.Encoding) throws(TextDecodingFailure) -> String {
    switch encoding {
    case .utf8: return try decodeUTF8(data)
    case .ascii: return try decodeASCII(data)
    case .utf16, .utf16LittleEndian, .utf16BigEndian:
      return try decodeUnicode(data, as: encoding, name: "UTF-16", unitSize: 2)
    case .utf32, .utf32LittleEndian, .utf32BigEndian:
      return try decodeUnicode(data, as: encoding, name: "UTF-32", unitSize: 4)
    case .japaneseEUC:
      let shiftJIS = try EUCJPTranscoder.shiftJIS(fromEUCJP: data)
      guard let text = String(data: shiftJIS, encoding: .shiftJIS) else {
        throw TextDecodingFailure(reason: "the body is not valid EUC-JP (a character outside JIS X 0208)")
      }
      return text
    default:
      guard let text = String(data: data, encoding: encoding) else {
        throw TextDecodingFailure(reason: "the body is not valid \(encoding)")
      }
      return text
    }
  }

  private static func decodeUTF8(_ data: Data) throws(TextDecodingFailure) -> String {
    if let text = String(validating: data, as: UTF8.self) { return removingByteOrderMark(text) }
    let offset = data.withUnsafeBytes { raw in UTF8Validation.firstInvalidOffset(in: raw.bindMemory(to: UInt8.self)) }
    throw TextDecodingFailure(reason: "the body is not valid UTF-8 (first bad byte at offset \(offset ?? 0))")
  }

  private static func decodeASCII(_ data: Data) throws(TextDecodingFailure) -> String {
    if let offset = data.firstIndex(where: { $0 >= 0x80 }) {
      let byte = data[offset]
      throw TextDecodingFailure(
        reason: "the body is not valid US-ASCII (byte 0x\(String(byte, radix: 16, uppercase: true)) at offset "
          + "\(offset - data.startIndex))"
      )
    }
    return String(decoding: data, as: UTF8.self)
  }

  private static func decodeUnicode(
    _ data: Data,
    as encoding: String.Encoding,
    name: String,
    unitSize: Int
  ) throws(TextDecodingFailure) -> String {
    guard data.count % unitSize == 0 else {
      throw TextDecodingFailure(
        reason: "the body is not valid \(name): its \(data.count) bytes are not a multiple of \(unitSize)"
      )
    }
    guard let text = String(data: data, encoding: encoding) else {
      throw TextDecodingFailure(reason: "the body is not valid \(name) (an unpaired surrogate or a bad code point)")
    }
    return removingByteOrderMark(text)
  }

  private static func removingByteOrderMark(_ text: String) -> String {
    guard text.unicodeScalars.first == "\u{FEFF}" else { return text }
    return String(text.unicodeScalars.dropFirst())
  }
}
