import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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
func escapedKeyPrecedes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
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
  let bytes: UnsafeBufferPointer<UInt8>
  var index: Int

  init(_ bytes: UnsafeBufferPointer<UInt8>) {
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

/// The encoder's output: bytes in one `malloc` block that grows by doubling, handed to `Data` without a copy.
///
/// Every write first makes room (`reserve`), then stores into the block: the stores below a `reserve` stay inside
/// `capacity`. The owner frees the block (``deallocate()``) unless it took it (``take()``).
struct OutputBuffer {
  private var base: UnsafeMutablePointer<UInt8>?
  private(set) var count = 0
  private var capacity = 0

  init(capacity: Int) { grow(to: capacity) }

  var isEmpty: Bool { count == 0 }

  /// Makes room for `extra` more bytes.
  @inline(__always)
  mutating func reserve(_ extra: Int) {
    if capacity &- count < extra { grow(to: Swift.max(2 * capacity, count + extra)) }
  }

  @inline(never)
  private mutating func grow(to newCapacity: Int) {
    guard let block = realloc(base, newCapacity) else { fatalError("MalibuJSONEncoder: out of memory") }
    base = block.assumingMemoryBound(to: UInt8.self)
    capacity = newCapacity
  }

  /// The block and the byte count, passed to the caller, who frees the block; the buffer is empty afterwards.
  mutating func take() -> (UnsafeMutablePointer<UInt8>, Int) {
    defer { self = OutputBuffer() }
    // Non-nil: `init(capacity:)` allocated the block, and it is taken once.
    return (base!, count)
  }

  private init() {}

  /// Frees the block (the buffer must not be used afterwards).
  func deallocate() { free(base) }

  /// The bytes in `range`, valid until the next write.
  subscript(range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
    precondition(range.lowerBound >= 0 && range.upperBound <= count)
    return UnsafeBufferPointer(start: base.unsafelyUnwrapped + range.lowerBound, count: range.count)
  }

  /// The byte at `index`.
  subscript(index: Int) -> UInt8 {
    precondition(index >= 0 && index < count)
    return base.unsafelyUnwrapped[index]
  }

  /// Overwrites the bytes at `start` with `bytes`, which end at or before `count`.
  mutating func overwrite(at start: Int, with bytes: [UInt8]) {
    precondition(start >= 0 && start + bytes.count <= count)
    bytes.withUnsafeBufferPointer { (base.unsafelyUnwrapped + start).update(from: $0.baseAddress!, count: $0.count) }
  }

  @inline(__always)
  mutating func append(_ byte: UInt8) {
    reserve(1)
    appendReserved(byte)
  }

  @inline(__always)
  mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
    reserve(bytes.count)
    appendReserved(bytes)
  }

  /// Appends a byte into room already reserved.
  @inline(__always)
  private mutating func appendReserved(_ byte: UInt8) {
    base.unsafelyUnwrapped[count] = byte
    count &+= 1
  }

  /// Appends bytes into room already reserved.
  @inline(__always)
  private mutating func appendReserved(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard let source = bytes.baseAddress else { return }
    let target = base.unsafelyUnwrapped + count
    if bytes.count <= 16 {
      // A few bytes (most keys) cost less one by one than through a memcpy call.
      for offset in 0..<bytes.count { target[offset] = source[offset] }
    } else {
      target.update(from: source, count: bytes.count)
    }
    count &+= bytes.count
  }

  @inline(__always)
  mutating func appendStatic(_ text: StaticString) {
    append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }

  mutating func appendIndent(_ depth: Int) {
    reserve(2 * depth)
    for _ in 0..<(2 * depth) { appendReserved(0x20) }
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
      reserve(24 - index)
      for offset in index..<24 { appendReserved(buffer[offset]) }
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
    let end = bytes.count
    // Room for the quotes and every byte as it is; each escape makes room for itself and the rest.
    reserve(end + 2)
    appendReserved(0x22)
    guard let source = bytes.baseAddress else {
      appendReserved(0x22)
      return
    }
    let slash: UInt64 = escapingSlashes ? 0x2F2F_2F2F_2F2F_2F2F : 0x2222_2222_2222_2222
    if end <= 16 {
      // A short string (most keys): copied and checked byte by byte, in the room reserved above.
      let target = base.unsafelyUnwrapped + count
      var clean = 0
      while clean < end {
        let byte = source[clean]
        guard byte >= 0x20, byte != 0x22, byte != 0x5C, byte != 0x2F || !escapingSlashes else { break }
        target[clean] = byte
        clean += 1
      }
      if clean == end {
        count &+= end
        appendReserved(0x22)
        return
      }
    }
    var mark = 0
    var index = 0
    while index < end {
      index = Self.cleanRun(source, from: index, end: end, slash: slash)
      guard index < end else { break }
      let byte = source[index]
      if byte >= 0x20, byte != 0x22, byte != 0x5C, byte != 0x2F || !escapingSlashes {
        index += 1
        continue
      }
      appendReserved(UnsafeBufferPointer(start: source + mark, count: index - mark))
      // Six bytes at most for this one, then the bytes after it and the closing quote.
      reserve(6 + end - index)
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
        appendReserved(Self.hexDigit(byte >> 4))
        appendReserved(Self.hexDigit(byte & 0xF))
      }
      index += 1
      mark = index
    }
    appendReserved(UnsafeBufferPointer(start: source + mark, count: end - mark))
    appendReserved(0x22)
  }

  /// Where the first byte at or after `index` that may need escaping is (`end` when none does), eight bytes at a
  /// time; a word that needs escaping somewhere stops the scan at its first byte.
  @inline(__always)
  private static func cleanRun(_ source: UnsafePointer<UInt8>, from start: Int, end: Int, slash: UInt64) -> Int {
    var index = start
    // Every load ends at or before `end`.
    while index + 16 <= end {
      let first = UnsafeRawPointer(source + index).loadUnaligned(as: UInt64.self)
      let second = UnsafeRawPointer(source + index + 8).loadUnaligned(as: UInt64.self)
      if escapeBits(first, slash: slash) | escapeBits(second, slash: slash) != 0 { break }
      index += 16
    }
    while index + 8 <= end {
      if escapeBits(UnsafeRawPointer(source + index).loadUnaligned(as: UInt64.self), slash: slash) != 0 {
        return index
      }
      index += 8
    }
    guard index < end else { return end }
    var word: UInt64
    if end >= 8 {
      // The last eight bytes, overlapping bytes already passed: a clean verdict covers the few left.
      word = UnsafeRawPointer(source + end - 8).loadUnaligned(as: UInt64.self)
    } else {
      // A short string: its bytes over plain letters (`a`).
      word = 0x6161_6161_6161_6161
      for offset in stride(from: end - 1, through: index, by: -1) { word = word << 8 | UInt64(source[offset]) }
    }
    return escapeBits(word, slash: slash) != 0 ? index : end
  }

  /// Nonzero when any of the eight bytes of `word` is a control character, `"`, `\\` or a byte of `slash` (eight
  /// copies of `/`, or of `"` when slashes stay as they are). Each test is the classic "has a zero byte" bit trick,
  /// exact as a yes or no: `(x - 0x01…) & ~x & 0x80…` is nonzero exactly when some byte of `x` is zero, and with
  /// `0x20…` in place of `0x01…` exactly when some byte is below 0x20.
  @inline(__always)
  static func escapeBits(_ word: UInt64, slash: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let high: UInt64 = 0x8080_8080_8080_8080
    let quote = word ^ 0x2222_2222_2222_2222
    let backslash = word ^ 0x5C5C_5C5C_5C5C_5C5C
    let slashes = word ^ slash
    let control = (word &- 0x2020_2020_2020_2020) & ~word
    let zeros =
      ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((slashes &- ones) & ~slashes)
    return (control | zeros) & high
  }

  @inline(__always)
  static func hexDigit(_ nibble: UInt8) -> UInt8 {
    nibble < 10 ? 0x30 &+ nibble : 0x61 &+ nibble &- 10
  }
}
