import Foundation

/// The options of a ``MalibuJSONEncoder``, built when it is configured and shared by every encode it runs.
final class EncoderOptions: Sendable {
  /// The options of `MalibuJSONEncoder()`.
  static let defaults = EncoderOptions()

  let pretty: Bool
  let sorted: Bool
  let escapeSlashes: Bool
  let dates: JSONEncoder.DateEncodingStrategy
  let data: JSONEncoder.DataEncodingStrategy
  let floats: JSONEncoder.NonConformingFloatEncodingStrategy
  let keys: JSONEncoder.KeyEncodingStrategy
  let defaultKeys: Bool
  let userInfo: [CodingUserInfoKey: any Sendable]

  /// Foundation's defaults.
  private init() {
    pretty = false
    sorted = false
    escapeSlashes = true
    dates = .deferredToDate
    data = .base64
    floats = .throw
    keys = .useDefaultKeys
    defaultKeys = true
    userInfo = [:]
  }

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

/// The byte-level half of the encoder. Each writer is one mutation of `out` (one exclusive access of the class's
/// property), whatever it appends.
extension StreamingEncoder {
  @inline(__always)
  func writeStatic(_ text: StaticString) { out.appendStatic(text) }

  func writeIndent(_ depth: Int) { out.appendIndent(depth) }

  func writeUnsigned(_ value: UInt64) { out.appendUnsigned(value) }

  func writeSigned(_ value: Int64) { out.appendSigned(value) }

  func writeRaw(_ text: String) { out.appendRaw(text) }

  func writeDouble(_ value: Double) { out.appendDouble(value) }

  func writeFloat(_ value: Float) { out.appendFloat(value) }

  func writeString(_ text: String) { out.appendString(text, escapingSlashes: options.escapeSlashes) }

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
  func writeEmptyObject(depth: Int) { state.appendEmptyObject(depth: depth, pretty: options.pretty) }
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

/// The raw bytes of escaped JSON string contents written by `appendEscaped(_:escapingSlashes:)`.
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

extension [UInt8] {
  @inline(__always)
  mutating func appendStatic(_ text: StaticString) {
    append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }

  mutating func appendIndent(_ depth: Int) {
    append(contentsOf: repeatElement(0x20, count: 2 * depth))
  }

  /// Appends a non-negative integer in decimal.
  mutating func appendUnsigned(_ value: UInt64) {
    if value < 10 {
      append(0x30 &+ UInt8(truncatingIfNeeded: value))
      return
    }
    var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
    Swift.withUnsafeMutableBytes(of: &digits) { buffer in
      // 20 digits at most, written backwards from the end of the 24 bytes.
      var index = 24
      var rest = value
      while rest > 0 {
        let (quotient, remainder) = rest.quotientAndRemainder(dividingBy: 10)
        index -= 1
        buffer[index] = 0x30 &+ UInt8(truncatingIfNeeded: remainder)
        rest = quotient
      }
      append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[index..<24]))
    }
  }

  mutating func appendSigned(_ value: Int64) {
    if value < 0 { append(UInt8(ascii: "-")) }
    appendUnsigned(value.magnitude)
  }

  /// Appends text that needs no escaping (a number's description).
  mutating func appendRaw(_ text: String) {
    var text = text
    text.withUTF8 { append(contentsOf: $0) }
  }

  /// Appends `value` as Foundation does: its shortest description, without a trailing `.0`.
  mutating func appendDouble(_ value: Double) {
    // Integral values up to 2^53 print as "<digits>.0".
    appendShortest(value, wholeUpTo: 9_007_199_254_740_992)
  }

  /// Appends `value` as Foundation does: its shortest description, without a trailing `.0`.
  mutating func appendFloat(_ value: Float) {
    // Integral values up to 2^24 print as "<digits>.0".
    appendShortest(value, wholeUpTo: 16_777_216)
  }

  /// Appends `value`'s shortest description without a trailing `.0`; an integral value up to `limit` (whose
  /// description is "<digits>.0") as those integer digits, without making the description.
  @inline(__always)
  private mutating func appendShortest<F: BinaryFloatingPoint & CustomStringConvertible>(
    _ value: F,
    wholeUpTo limit: F
  ) {
    if value.magnitude <= limit, value == value.rounded(.towardZero) {
      if value == 0, value.sign == .minus {
        appendStatic("-0")
      } else {
        appendSigned(Int64(value))
      }
      return
    }
    appendNumber(value.description)
  }

  /// Appends a number's description without a trailing `.0` (Foundation drops it).
  private mutating func appendNumber(_ text: String) {
    var text = text
    text.withUTF8 { bytes in
      let trailingZero = bytes.count >= 2 && bytes[bytes.count - 1] == 0x30 && bytes[bytes.count - 2] == 0x2E
      append(contentsOf: trailingZero ? UnsafeBufferPointer(rebasing: bytes.dropLast(2)) : bytes)
    }
  }

  /// Appends `text` as a quoted JSON string with Foundation's escapes.
  mutating func appendString(_ text: String, escapingSlashes: Bool) {
    var text = text
    text.withUTF8 { appendEscaped($0, escapingSlashes: escapingSlashes) }
  }

  /// Appends UTF-8 `bytes` quoted, escaping `"`, `\`, control characters and (if asked) `/`.
  mutating func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, escapingSlashes: Bool) {
    append(0x22)
    guard let base = bytes.baseAddress else {
      append(0x22)
      return
    }
    let end = bytes.count
    let slash: UInt64 = escapingSlashes ? 0x2F2F_2F2F_2F2F_2F2F : 0x2222_2222_2222_2222
    var mark = 0
    var index = 0
    while index < end {
      // Eight bytes at a time while none needs escaping: every load ends at or before `end`.
      while index + 8 <= end,
        !Self.needsEscaping(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self), slash: slash)
      {
        index += 8
      }
      if index < end, end - index < 8 {
        // The last few bytes, copied over plain letters: one check for the rest of a short string.
        var word: UInt64 = 0x6161_6161_6161_6161
        Swift.withUnsafeMutableBytes(of: &word) {
          $0.copyMemory(from: UnsafeRawBufferPointer(start: base + index, count: end - index))
        }
        if !Self.needsEscaping(word, slash: slash) { index = end }
      }
      guard index < end else { break }
      let byte = base[index]
      if byte >= 0x20, byte != 0x22, byte != 0x5C, byte != 0x2F || !escapingSlashes {
        index += 1
        continue
      }
      if index > mark { append(contentsOf: UnsafeBufferPointer(start: base + mark, count: index - mark)) }
      switch byte {
      case 0x22: appendStatic("\\\"")
      case 0x5C: appendStatic("\\\\")
      case 0x2F: appendStatic("\\/")
      case 0x08: appendStatic("\\b")
      case 0x0C: appendStatic("\\f")
      case 0x0A: appendStatic("\\n")
      case 0x0D: appendStatic("\\r")
      case 0x09: appendStatic("\\t")
      default:
        appendStatic("\\u00")
        append(Self.hexDigit(byte >> 4))
        append(Self.hexDigit(byte & 0xF))
      }
      index += 1
      mark = index
    }
    if end - mark > 8 {
      append(contentsOf: UnsafeBufferPointer(start: base + mark, count: end - mark))
    } else {
      // A few bytes (most keys) cost less one by one than through `append(contentsOf:)`.
      for offset in mark..<end { append(base[offset]) }
    }
    append(0x22)
  }

  /// Whether any of the eight bytes of `word` is a control character, `"`, `\\` or a byte of `slash` (eight copies
  /// of `/`, or of `"` when slashes stay as they are). Each test is the classic "has a zero byte" bit trick, exact
  /// as a yes or no: `(x - 0x01…) & ~x & 0x80…` is nonzero exactly when some byte of `x` is zero, and with `0x20…`
  /// in place of `0x01…` exactly when some byte is below 0x20.
  @inline(__always)
  static func needsEscaping(_ word: UInt64, slash: UInt64) -> Bool {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let high: UInt64 = 0x8080_8080_8080_8080
    let quote = word ^ 0x2222_2222_2222_2222
    let backslash = word ^ 0x5C5C_5C5C_5C5C_5C5C
    let slashes = word ^ slash
    let control = (word &- 0x2020_2020_2020_2020) & ~word
    let zeros =
      ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((slashes &- ones) & ~slashes)
    return (control | zeros) & high != 0
  }

  @inline(__always)
  static func hexDigit(_ nibble: UInt8) -> UInt8 {
    nibble < 10 ? 0x30 &+ nibble : 0x61 &+ nibble &- 10
  }
}
