import Foundation

/// The options of one encode, read once from ``MalibuJSONEncoder``.
struct EncoderOptions {
  let pretty: Bool
  let sorted: Bool
  let escapeSlashes: Bool
  let dates: JSONEncoder.DateEncodingStrategy
  let data: JSONEncoder.DataEncodingStrategy
  let floats: JSONEncoder.NonConformingFloatEncodingStrategy
  let keys: JSONEncoder.KeyEncodingStrategy
  let defaultKeys: Bool
  let userInfo: [CodingUserInfoKey: any Sendable]

  init(_ encoder: MalibuJSONEncoder) {
    pretty = encoder.outputFormatting.contains(.prettyPrinted)
    sorted = encoder.outputFormatting.contains(.sortedKeys)
    escapeSlashes = !encoder.outputFormatting.contains(.withoutEscapingSlashes)
    dates = encoder.dateEncodingStrategy
    data = encoder.dataEncodingStrategy
    floats = encoder.nonConformingFloatEncodingStrategy
    keys = encoder.keyEncodingStrategy
    if case .useDefaultKeys = encoder.keyEncodingStrategy { defaultKeys = true } else { defaultKeys = false }
    userInfo = encoder.userInfo
  }
}

/// The byte-level half of the encoder: numbers, strings and indentation appended to `out`.
extension StreamingEncoder {
  @inline(__always)
  func writeStatic(_ text: StaticString) {
    out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }

  func writeIndent(_ depth: Int) {
    var left = depth
    while left > 0 {
      out.append(0x20)
      out.append(0x20)
      left -= 1
    }
  }

  /// Writes a non-negative integer in decimal.
  func writeUnsigned(_ value: UInt64) {
    if value < 10 {
      out.append(0x30 &+ UInt8(truncatingIfNeeded: value))
      return
    }
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
      var index = 20
      var rest = value
      while rest > 0 {
        let (quotient, remainder) = rest.quotientAndRemainder(dividingBy: 10)
        index -= 1
        digits[index] = 0x30 &+ UInt8(truncatingIfNeeded: remainder)
        rest = quotient
      }
      out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[index..<20]))
    }
  }

  func writeSigned(_ value: Int64) {
    if value < 0 { out.append(UInt8(ascii: "-")) }
    writeUnsigned(value.magnitude)
  }

  /// Writes text that needs no escaping (a number's description).
  func writeRaw(_ text: String) {
    var text = text
    text.withUTF8 { out.append(contentsOf: $0) }
  }

  /// Writes `value` as Foundation does: its shortest description, without a trailing `.0`.
  func writeDouble(_ value: Double) {
    // Integral values up to 2^53 print as "<digits>.0", so the integer digits are the same text.
    if value.magnitude <= 9_007_199_254_740_992, value == value.rounded(.towardZero) {
      if value == 0, value.sign == .minus {
        writeStatic("-0")
      } else {
        writeSigned(Int64(value))
      }
      return
    }
    var text = value.description
    if text.hasSuffix(".0") { text.removeLast(2) }
    writeRaw(text)
  }

  /// Writes `value` as Foundation does: its shortest description, without a trailing `.0`.
  func writeFloat(_ value: Float) {
    // Integral values up to 2^24 print as "<digits>.0".
    if value.magnitude <= 16_777_216, value == value.rounded(.towardZero) {
      if value == 0, value.sign == .minus {
        writeStatic("-0")
      } else {
        writeSigned(Int64(value))
      }
      return
    }
    var text = value.description
    if text.hasSuffix(".0") { text.removeLast(2) }
    writeRaw(text)
  }

  /// Writes `text` as a quoted JSON string with Foundation's escapes.
  func writeString(_ text: String) {
    var text = text
    text.withUTF8 { writeEscaped($0) }
  }

  /// Writes UTF-8 `bytes` quoted, escaping `"`, `\`, control characters and (unless told not to) `/`.
  func writeEscaped(_ bytes: UnsafeBufferPointer<UInt8>) {
    out.append(0x22)
    guard let base = bytes.baseAddress else {
      out.append(0x22)
      return
    }
    let count = bytes.count
    let escapeSlashes = options.escapeSlashes
    var mark = 0
    var index = 0
    // Every index read is below `count`, the buffer's length.
    while index < count {
      let byte = base[index]
      if byte >= 0x20, byte != 0x22, byte != 0x5C, byte != 0x2F || !escapeSlashes {
        index += 1
        continue
      }
      if index > mark { out.append(contentsOf: UnsafeBufferPointer(start: base + mark, count: index - mark)) }
      switch byte {
      case 0x22: writeStatic("\\\"")
      case 0x5C: writeStatic("\\\\")
      case 0x2F: writeStatic("\\/")
      case 0x08: writeStatic("\\b")
      case 0x0C: writeStatic("\\f")
      case 0x0A: writeStatic("\\n")
      case 0x0D: writeStatic("\\r")
      case 0x09: writeStatic("\\t")
      default:
        writeStatic("\\u00")
        out.append(Self.hexDigit(byte >> 4))
        out.append(Self.hexDigit(byte & 0xF))
      }
      index += 1
      mark = index
    }
    if index > mark { out.append(contentsOf: UnsafeBufferPointer(start: base + mark, count: index - mark)) }
    out.append(0x22)
  }

  @inline(__always)
  static func hexDigit(_ nibble: UInt8) -> UInt8 {
    nibble < 10 ? 0x30 &+ nibble : 0x61 &+ nibble &- 10
  }

  /// Writes a float that is not finite as the strategy says, or throws Foundation's error at `path`.
  func writeNonConforming<F: BinaryFloatingPoint>(
    _ value: F,
    strategy: JSONEncoder.NonConformingFloatEncodingStrategy,
    path: @autoclosure () -> [any CodingKey]
  ) throws {
    if case .convertToString(let positive, let negative, let nan) = strategy {
      writeString(value.isNaN ? nan : value > 0 ? positive : negative)
      return
    }
    throw EncodingError.invalidValue(
      value,
      EncodingError.Context(
        codingPath: path(),
        debugDescription: "Unable to encode \(F.self).\(value) directly in JSON."
      )
    )
  }

  /// Writes an empty object at nesting `depth`, as Foundation writes `{}` (`{\n\n}` when pretty).
  func writeEmptyObject(depth: Int) {
    if options.pretty {
      writeStatic("{\n\n")
      writeIndent(depth - 1)
      out.append(UInt8(ascii: "}"))
    } else {
      writeStatic("{}")
    }
    if depth >= maximumDepth { tooDeep = true }
  }
}

/// Whether the escaped JSON string contents `a` sort before `b` by their unescaped UTF-8 bytes (Foundation's
/// `sortedKeys` order).
func escapedKeyPrecedes(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Bool {
  var left = EscapedBytes(a)
  var right = EscapedBytes(b)
  while true {
    guard let x = left.next() else { return right.next() != nil }
    guard let y = right.next() else { return false }
    if x != y { return x < y }
  }
}

/// The raw bytes of escaped JSON string contents written by ``StreamingEncoder/writeEscaped(_:)``.
private struct EscapedBytes: IteratorProtocol {
  let bytes: ArraySlice<UInt8>
  var index: Int

  init(_ bytes: ArraySlice<UInt8>) {
    self.bytes = bytes
    index = bytes.startIndex
  }

  mutating func next() -> UInt8? {
    guard index < bytes.endIndex else { return nil }
    let byte = bytes[index]
    index += 1
    guard byte == 0x5C, index < bytes.endIndex else { return byte }
    let escape = bytes[index]
    index += 1
    switch escape {
    case UInt8(ascii: "b"): return 0x08
    case UInt8(ascii: "f"): return 0x0C
    case UInt8(ascii: "n"): return 0x0A
    case UInt8(ascii: "r"): return 0x0D
    case UInt8(ascii: "t"): return 0x09
    case UInt8(ascii: "u"):
      // The writer only emits `\u00XX`.
      let high = hexValue(bytes[index + 2])
      let low = hexValue(bytes[index + 3])
      index += 4
      return high << 4 | low
    default: return escape
    }
  }

  private func hexValue(_ digit: UInt8) -> UInt8 {
    digit <= 0x39 ? digit &- 0x30 : digit &- 0x61 &+ 10
  }
}
