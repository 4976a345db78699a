import Foundation

/// Rewrites EUC-JP as Shift_JIS, byte by byte, so that Foundation's Shift_JIS decoder can read it: Foundation
/// has no EUC-JP decoder on Linux.
///
/// Both encodings carry the same character sets, so the mapping is arithmetic:
/// - ASCII bytes stay as they are;
/// - `0x8E` followed by `0xA1…0xDF` (half-width katakana) becomes that second byte;
/// - two bytes `0xA1…0xFE` (JIS X 0208, rows 1 to 84) become the Shift_JIS pair for the same row and cell;
/// - `0x8F` (JIS X 0212, which Shift_JIS cannot carry), rows 85 to 94 (user-defined) and any other byte are
///   rejected with their offset.
enum EUCJPTranscoder {
  static func shiftJIS(fromEUCJP data: Data) throws(TextDecodingFailure) -> Data {
    let bytes = [UInt8](data)
    var output: [UInt8] = []
    output.reserveCapacity(bytes.count)
    var index = 0
    while index < bytes.count {
      let lead = bytes[index]
      let trail: UInt8? = index + 1 < bytes.count ? bytes[index + 1] : nil
      switch lead {
      case 0x00...0x7F:
        output.append(lead)
        index += 1
      case 0x8E:
        guard let trail, (0xA1...0xDF).contains(trail) else { throw failure(index, "a bad half-width katakana") }
        output.append(trail)
        index += 2
      case 0x8F:
        throw failure(index, "a JIS X 0212 character, which is not supported")
      case 0xA1...0xF4:
        guard let trail, (0xA1...0xFE).contains(trail) else { throw failure(index, "an incomplete character") }
        let (first, second) = shiftJISPair(row: lead - 0x80, cell: trail - 0x80)
        output.append(first)
        output.append(second)
        index += 2
      default:
        throw failure(index, "a byte that starts no character")
      }
    }
    return Data(output)
  }

  /// The Shift_JIS bytes for a JIS X 0208 code point given as its two 7-bit bytes (`0x21…0x7E` each).
  static func shiftJISPair(row: UInt8, cell: UInt8) -> (UInt8, UInt8) {
    let first = (row + 1) / 2 + (row <= 0x5E ? 0x70 : 0xB0)
    let second: UInt8
    if row % 2 == 1 {
      second = cell + (cell <= 0x5F ? 0x1F : 0x20)
    } else {
      second = cell + 0x7E
    }
    return (first, second)
  }

  private static func failure(_ offset: Int, _ what: String) -> TextDecodingFailure {
    TextDecodingFailure(reason: "the body is not valid EUC-JP (\(what) at offset \(offset))")
  }
}
