extension JSONParser {
  /// A string, from its opening quote to its closing quote.
  mutating func string() throws(JSONSyntaxError) -> String {
    let opening = index
    index += 1
    let start = index
    // Fast path: printable ASCII up to the closing quote needs no copy and no checks.
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") {
        index += 1
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index - 1]), as: UTF8.self)
      }
      if byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { break }
      index += 1
    }
    var utf8 = [UInt8](UnsafeBufferPointer(rebasing: bytes[start..<index]))
    while index < bytes.count {
      let byte = bytes[index]
      switch byte {
      case UInt8(ascii: "\""):
        index += 1
        return String(decoding: utf8, as: UTF8.self)
      case UInt8(ascii: "\\"):
        try escape(into: &utf8, stringStart: opening)
      case 0x00..<0x20:
        throw failure("control character \(describeByte()) in a string; it must be escaped")
      case 0x20..<0x80:
        utf8.append(byte)
        index += 1
      default:
        guard let length = UTF8Validation.sequenceLength(in: bytes, at: index) else {
          throw failure("invalid UTF-8 (\(describeByte())) in a string")
        }
        utf8.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<index + length]))
        index += length
      }
    }
    throw failure("unterminated string", at: opening)
  }

  /// One escape sequence, from its backslash; a `\u` high surrogate must be followed by a `\u` low surrogate.
  private mutating func escape(into utf8: inout [UInt8], stringStart: Int) throws(JSONSyntaxError) {
    let start = index
    index += 1
    guard index < bytes.count else { throw failure("unterminated string", at: stringStart) }
    let letter = bytes[index]
    index += 1
    let simple: UInt8
    switch letter {
    case UInt8(ascii: "\""): simple = 0x22
    case UInt8(ascii: "\\"): simple = 0x5C
    case UInt8(ascii: "/"): simple = 0x2F
    case UInt8(ascii: "b"): simple = 0x08
    case UInt8(ascii: "f"): simple = 0x0C
    case UInt8(ascii: "n"): simple = 0x0A
    case UInt8(ascii: "r"): simple = 0x0D
    case UInt8(ascii: "t"): simple = 0x09
    case UInt8(ascii: "u"):
      let unit = try hexQuad()
      var scalarValue = UInt32(unit)
      if (0xD800...0xDBFF).contains(unit) {
        guard peek(UInt8(ascii: "\\")), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
          throw failure("a high surrogate \\u\(hex(unit)) not followed by a low surrogate", at: start)
        }
        index += 2
        let low = try hexQuad()
        guard (0xDC00...0xDFFF).contains(low) else {
          throw failure("a high surrogate \\u\(hex(unit)) followed by \\u\(hex(low))", at: start)
        }
        scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
      } else if (0xDC00...0xDFFF).contains(unit) {
        throw failure("a low surrogate \\u\(hex(unit)) without a high surrogate before it", at: start)
      }
      // Every value left is a scalar: surrogates were handled above.
      UTF8.encode(Unicode.Scalar(scalarValue)!) { utf8.append($0) }
      return
    default:
      index -= 1
      throw failure("invalid escape '\\\(describeByte().trimmingQuotes)'", at: start)
    }
    utf8.append(simple)
  }

  /// Four hexadecimal digits.
  private mutating func hexQuad() throws(JSONSyntaxError) -> UInt16 {
    let start = index - 2
    var value: UInt16 = 0
    for _ in 0..<4 {
      guard index < bytes.count else { throw failure("a \\u escape needs four hexadecimal digits", at: start) }
      let byte = bytes[index]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: throw failure("a \\u escape needs four hexadecimal digits", at: start)
      }
      value = value << 4 | UInt16(digit)
      index += 1
    }
    return value
  }

  private func hex(_ unit: UInt16) -> String {
    let digits = String(unit, radix: 16, uppercase: true)
    return String(repeating: "0", count: 4 - digits.count) + digits
  }

  /// A number: `Int` when the literal has no fraction and no exponent and fits, `Double` otherwise.
  mutating func number() throws(JSONSyntaxError) -> any Sendable {
    let start = index
    let negative = bytes[index] == UInt8(ascii: "-")
    if negative { index += 1 }
    guard index < bytes.count, isDigit(bytes[index]) else {
      throw failure("unexpected \(describeByte()), expected a digit after '-'")
    }
    if bytes[index] == UInt8(ascii: "0") {
      index += 1
      if index < bytes.count, isDigit(bytes[index]) { throw failure("a number with a leading zero", at: start) }
    } else {
      skipDigits()
    }
    let integerEnd = index
    if peek(UInt8(ascii: ".")) {
      index += 1
      guard index < bytes.count, isDigit(bytes[index]) else {
        throw failure("unexpected \(describeByte()), expected a digit after the decimal point")
      }
      skipDigits()
    }
    if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
      index += 1
      if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { index += 1 }
      guard index < bytes.count, isDigit(bytes[index]) else {
        throw failure("unexpected \(describeByte()), expected a digit in the exponent")
      }
      skipDigits()
    }
    if index == integerEnd, let integer = integer(from: negative ? start + 1 : start, to: index, negative: negative) {
      return integer
    }
    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    guard let double = Double(text), double.isFinite else {
      throw failure("the number \(text) is beyond the range of Double", at: start)
    }
    return double
  }

  /// The digits between `start` and `end` as an `Int`, or `nil` when they do not fit.
  private func integer(from start: Int, to end: Int, negative: Bool) -> Int? {
    var value = 0
    for position in start..<end {
      let digit = Int(bytes[position] &- UInt8(ascii: "0"))
      let (shifted, overflowMultiply) = value.multipliedReportingOverflow(by: 10)
      let (next, overflowAdd) =
        negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
      if overflowMultiply || overflowAdd { return nil }
      value = next
    }
    return value
  }

  private mutating func skipDigits() {
    while index < bytes.count, isDigit(bytes[index]) { index += 1 }
  }

  private func isDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
  }
}

extension String {
  /// The text without the single quotes that ``JSONParser/describeByte()`` puts around a printable character.
  fileprivate var trimmingQuotes: String {
    hasPrefix("'") && hasSuffix("'") && count >= 3 ? String(dropFirst().dropLast()) : self
  }
}
