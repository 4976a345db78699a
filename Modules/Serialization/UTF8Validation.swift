/// Well-formed UTF-8, by Table 3-7 of the Unicode Standard: no overlong forms, no surrogates, nothing above
/// U+10FFFF.
enum UTF8Validation {
  /// The length of the well-formed multi-byte sequence that starts at `index`, or `nil` when the bytes there are
  /// not one. The caller has checked that the byte at `index` is not ASCII.
  static func sequenceLength(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int? {
    let lead = bytes[index]
    let length: Int
    var secondRange: ClosedRange<UInt8> = 0x80...0xBF
    switch lead {
    case 0xC2...0xDF: length = 2
    case 0xE0:
      length = 3
      secondRange = 0xA0...0xBF
    case 0xE1...0xEC, 0xEE...0xEF: length = 3
    case 0xED:
      length = 3
      secondRange = 0x80...0x9F
    case 0xF0:
      length = 4
      secondRange = 0x90...0xBF
    case 0xF1...0xF3: length = 4
    case 0xF4:
      length = 4
      secondRange = 0x80...0x8F
    default: return nil
    }
    guard index + length <= bytes.count, secondRange.contains(bytes[index + 1]) else { return nil }
    var next = index + 2
    while next < index + length {
      guard bytes[next] & 0xC0 == 0x80 else { return nil }
      next += 1
    }
    return length
  }

  /// The offset of the first byte that does not start a well-formed sequence, or `nil` when all are well-formed.
  static func firstInvalidOffset(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
    var index = 0
    while index < bytes.count {
      if bytes[index] < 0x80 {
        index += 1
      } else if let length = sequenceLength(in: bytes, at: index) {
        index += length
      } else {
        return index
      }
    }
    return nil
  }
}
