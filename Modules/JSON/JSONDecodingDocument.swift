import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failure found while decoding a scalar (bad number syntax or range, bad escape, invalid UTF-8). Foundation
/// reports these as `DecodingError.dataCorrupted` at the empty coding path, whatever value was being decoded; the
/// decoder converts it at the top level the same way.
struct JSONValueError: Error {
  let message: String
}

/// The options of one decode, as `MalibuJSONDecoder` holds them.
struct JSONDecodingOptions {
  var dateDecodingStrategy: JSONDecoder.DateDecodingStrategy
  var dataDecodingStrategy: JSONDecoder.DataDecodingStrategy
  var nonConformingFloatDecodingStrategy: JSONDecoder.NonConformingFloatDecodingStrategy
  var keyDecodingStrategy: JSONDecoder.KeyDecodingStrategy
  var userInfo: [CodingUserInfoKey: any Sendable]
  /// Whether keys are matched as they are (no snake-case or custom conversion).
  var defaultKeys: Bool
}

/// A coding path as a linked list, built only when a value below a key or index is handed to a `Decodable` type.
class JSONPathNode {
  let parent: JSONPathNode?
  /// The key of this value; nil for a node that adds nothing to its parent's path (a top-level object's).
  let key: (any CodingKey)?

  init(parent: JSONPathNode?, key: (any CodingKey)?) {
    self.parent = parent
    self.key = key
  }

  static func path(_ node: JSONPathNode?) -> [any CodingKey] {
    var keys: [any CodingKey] = []
    var node = node
    while let current = node {
      if let key = current.key { keys.append(key) }
      node = current.parent
    }
    keys.reverse()
    return keys
  }

  static func path(_ node: JSONPathNode?, appending key: any CodingKey) -> [any CodingKey] {
    var keys = path(node)
    keys.append(key)
    return keys
  }
}

/// The node of an object's value, which also holds what a keyed container over the object needs: made once per
/// object value by its decoder, and shared by every keyed container over it.
final class JSONObjectNode: JSONPathNode {
  let document: JSONDocument
  /// The tape index of the object's header.
  let header: Int
  /// The number of containers above the object, which picks its key-search slot.
  let depth: Int
  /// How keys are found, settled by the first keyed container over the object.
  private var search = KeySearch.unsettled

  /// How the keys of an object are found.
  private enum KeySearch {
    /// No keyed container has asked yet.
    case unsettled
    /// By comparing bytes: the keys are simple ASCII and the decoder converts none.
    case bytes
    /// In a list of the decoded (and converted) keys with their value's tape index, first occurrence first: the
    /// object has escaped or non-ASCII keys, or the decoder has a key strategy.
    case listed([(String, Int)])
  }

  init(parent: JSONPathNode?, key: (any CodingKey)?, document: JSONDocument, header: Int, depth: Int) {
    self.document = document
    self.header = header
    self.depth = depth
    super.init(parent: parent, key: key)
  }

  /// The keys listed as `String`s with their value's tape index, or nil where bytes are compared.
  var keys: [(String, Int)]? {
    if case .listed(let keys) = search { return keys }
    return nil
  }

  /// Settles how keys are found, listing them as `String`s when the bytes cannot be compared directly; once.
  func listKeysIfNeeded() throws {
    guard case .unsettled = search else { return }
    let byBytes = document.entry(header).kind != .objectSlow && document.options.defaultKeys
    search = byBytes ? .bytes : .listed(try listKeys())
  }

  private func listKeys() throws -> [(String, Int)] {
    var list: [(String, Int)] = []
    var seen = Set<String>()
    let end = document.entry(header).a
    var k = header + 1
    let strategy = document.options.keyDecodingStrategy
    let basePath: [any CodingKey]? =
      if case .custom = strategy { JSONPathNode.path(self) } else { nil }
    while k < end {
      var name = try document.string(at: k)
      switch strategy {
      case .useDefaultKeys: break
      case .convertFromSnakeCase: name = convertFromSnakeCase(name)
      case .custom(let convert):
        var path = basePath ?? []
        path.append(JSONIndexKey(stringValue: name).unsafelyUnwrapped)
        name = convert(path).stringValue
      @unknown default: break
      }
      if seen.insert(name).inserted { list.append((name, k + 1)) }
      k = document.skip(k + 1)
    }
    return list
  }
}

/// The coding key of an array element or of `super`, spelled as Foundation spells them.
///
/// Three words, so that it fits inline in an `any CodingKey` (no box allocated per array element).
struct JSONIndexKey: CodingKey {
  /// The key's name; nil for an index, whose name is made only when asked for.
  private let name: String?
  /// The element's index; meaningful only when `name` is nil.
  private let index: Int

  var stringValue: String { name ?? "Index \(index)" }
  var intValue: Int? { name == nil ? index : nil }

  init(index: Int) {
    name = nil
    self.index = index
  }

  init?(stringValue: String) {
    name = stringValue
    index = 0
  }

  init?(intValue: Int) { self.init(index: intValue) }

  static let `super` = JSONIndexKey(stringValue: "super").unsafelyUnwrapped
}

/// One decode's bytes, tape and options; every decoder and container of that decode shares it.
///
/// It owns a copy of the input (padded with zero bytes), so decoders that escape `init(from:)` stay valid after
/// `decode` returns, as Foundation's do.
final class JSONDocument {
  let bytes: UnsafeMutablePointer<UInt8>
  let byteCount: Int
  let tape: UnsafeMutablePointer<UInt64>
  let tapeCount: Int
  /// Per container depth: the object header whose key search it remembers, and the tape index to search from.
  let hints: UnsafeMutablePointer<Int>
  let hintSlots: Int
  let options: JSONDecodingOptions

  init(bytes: UnsafeMutablePointer<UInt8>, byteCount: Int, tape: Tape, options: JSONDecodingOptions) {
    self.bytes = bytes
    self.byteCount = byteCount
    self.tape = tape.entries
    self.tapeCount = tape.count
    hintSlots = tape.maximumDepth + 2
    hints = .allocate(capacity: hintSlots * 2)
    hints.initialize(repeating: -1, count: hintSlots * 2)
    self.options = options
  }

  deinit {
    bytes.deallocate()
    tape.deallocate()
    hints.deallocate()
  }

  /// The tape index of the `null` entry after the last, standing for absent values (`superDecoder` of a missing key).
  var nullIndex: Int { tapeCount }

  @inline(__always) func entry(_ index: Int) -> TapeEntry { TapeEntry(raw: tape[index]) }

  /// The tape index after the value at `index`.
  @inline(__always) func skip(_ index: Int) -> Int {
    let e = entry(index)
    return e.kind.rawValue >= TapeKind.array.rawValue ? e.a : index &+ 1
  }

  // MARK: Strings

  /// The string at tape `index` (which must be a string entry).
  func string(at index: Int) throws(JSONValueError) -> String {
    let e = entry(index)
    let span = UnsafeBufferPointer(start: bytes + e.a, count: e.b)
    if e.kind == .asciiString { return String(decoding: span, as: UTF8.self) }
    if e.kind == .simpleString {
      guard isValidUTF8(span) else {
        throw JSONValueError(message: "Unable to convert string to UTF-8 at byte \(e.a)")
      }
      return String(decoding: span, as: UTF8.self)
    }
    return try unescape(span, offset: e.a)
  }

  private func unescape(_ span: UnsafeBufferPointer<UInt8>, offset: Int) throws(JSONValueError) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(span.count)
    var i = 0
    let n = span.count
    while i < n {
      let c = span[i]
      if c == UInt8(ascii: "\\") {
        i &+= 1
        // The scanner guarantees a byte after '\' and four after "\u".
        let e = span[i]
        i &+= 1
        switch e {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
          let unit = try hex4(span, i, offset)
          i &+= 4
          var scalar: Unicode.Scalar
          if UTF16.isLeadSurrogate(unit) {
            guard n &- i >= 2, span[i] == UInt8(ascii: "\\"), span[i &+ 1] == UInt8(ascii: "u") else {
              throw JSONValueError(message: "Expected a low surrogate after a high surrogate at byte \(offset + i)")
            }
            guard n &- i >= 6 else {
              throw JSONValueError(message: "Expected a low surrogate after a high surrogate at byte \(offset + i)")
            }
            let trail = try hex4(span, i &+ 2, offset)
            guard UTF16.isTrailSurrogate(trail) else {
              throw JSONValueError(message: "Expected a low surrogate after a high surrogate at byte \(offset + i)")
            }
            i &+= 6
            scalar = UTF16.decode(UTF16.EncodedScalar([unit, trail]))
          } else {
            guard let single = Unicode.Scalar(unit) else {
              throw JSONValueError(message: "Lone low surrogate \\u\(String(unit, radix: 16)) at byte \(offset + i)")
            }
            scalar = single
          }
          out.append(contentsOf: UTF8.encode(scalar).unsafelyUnwrapped)
        default:
          throw JSONValueError(message: "Invalid escape '\\\(Character(Unicode.Scalar(e)))' at byte \(offset + i)")
        }
      } else {
        guard c >= 0x20 else {
          throw JSONValueError(message: "Unescaped control character 0x\(String(c, radix: 16)) at byte \(offset + i)")
        }
        out.append(c)
        i &+= 1
      }
    }
    return try out.withUnsafeBufferPointer { (text) throws(JSONValueError) -> String in
      guard isValidUTF8(text) else {
        throw JSONValueError(message: "Unable to convert string to UTF-8 at byte \(offset)")
      }
      return String(decoding: text, as: UTF8.self)
    }
  }

  private func hex4(_ span: UnsafeBufferPointer<UInt8>, _ at: Int, _ offset: Int) throws(JSONValueError) -> UInt16 {
    guard span.count &- at >= 4 else { throw JSONValueError(message: "Unexpected end of file") }
    var value: UInt16 = 0
    for k in 0..<4 {
      let c = span[at &+ k]
      let digit: UInt8
      switch c {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = c &- UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = c &- UInt8(ascii: "a") &+ 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = c &- UInt8(ascii: "A") &+ 10
      default:
        let text = String(decoding: UnsafeBufferPointer(rebasing: span[at..<at + 4]), as: UTF8.self)
        throw JSONValueError(message: "Invalid hex digit sequence \"\(text)\" at byte \(offset + at)")
      }
      value = value << 4 | UInt16(digit)
    }
    return value
  }

  /// Whether the simple string at `index` has exactly the bytes of `text`.
  @inline(__always) func stringEquals(_ index: Int, _ text: UnsafeBufferPointer<UInt8>) -> Bool {
    let e = entry(index)
    guard e.b == text.count else { return false }
    return memcmp(bytes + e.a, text.baseAddress.unsafelyUnwrapped, e.b) == 0
  }

  // MARK: Numbers

  /// Checks a number token as Foundation does before converting it: no leading zeros, a digit after '-' and before
  /// an exponent, a digit at the end.
  func prevalidateNumber(_ e: TapeEntry) throws(JSONValueError) {
    let p = bytes + e.a
    let n = e.b
    var i = 0
    if p[0] == UInt8(ascii: "-") {
      guard n > 1 else { throw syntax(e, "'-' at end of number") }
      guard p[1] &- UInt8(ascii: "0") < 10 else { throw syntax(e, "after '-' in number") }
      i = 1
    }
    if p[i] == UInt8(ascii: "0"), i &+ 1 < n {
      let next = p[i &+ 1]
      if next &- UInt8(ascii: "0") < 10 { throw syntax(e, "number with leading zero") }
      guard next == UInt8(ascii: ".") || next | 0x20 == UInt8(ascii: "e") else { throw syntax(e, "in number") }
    }
    var k = i &+ 1
    while k < n {
      if p[k] | 0x20 == UInt8(ascii: "e") {
        guard p[k &- 1] &- UInt8(ascii: "0") < 10 else { throw syntax(e, "before exponent in number") }
        break
      }
      k &+= 1
    }
    guard p[n &- 1] &- UInt8(ascii: "0") < 10 else { throw syntax(e, "at end of number") }
  }

  func syntax(_ e: TapeEntry, _ what: String) -> JSONValueError {
    JSONValueError(message: "Invalid number \(numberText(e)) (\(what)) at byte \(e.a)")
  }

  func numberText(_ e: TapeEntry) -> String {
    String(decoding: UnsafeBufferPointer(start: bytes + e.a, count: e.b), as: UTF8.self)
  }

  func notRepresentable(_ e: TapeEntry) -> JSONValueError {
    JSONValueError(message: "Number \(numberText(e)) is not representable in Swift.")
  }

  /// The number token at `e` as a `Double`, correctly rounded, refusing what overflows to infinity or underflows
  /// to zero (as Foundation does).
  @inline(__always) func double(_ e: TapeEntry) throws(JSONValueError) -> Double {
    if let fast = fastDouble(e) { return fast }
    try prevalidateNumber(e)
    return try slowDouble(e)
  }

  /// Clinger's fast path: up to 19 digits forming an integer below 2^53, scaled by an exact power of ten up to
  /// 10^22, is correctly rounded by one division. Takes only well-formed `-?digits(.digits)?` tokens (so it needs no
  /// separate syntax check) and returns nil for anything else.
  @inline(__always) func fastDouble(_ e: TapeEntry) -> Double? {
    let p = bytes + e.a
    let n = e.b
    var i = 0
    let negative = p[0] == UInt8(ascii: "-")
    if negative { i = 1 }
    guard i < n, p[i] &- UInt8(ascii: "0") < 10, p[n &- 1] &- UInt8(ascii: "0") < 10 else { return nil }
    // A leading zero may only be followed by the fraction.
    if p[i] == UInt8(ascii: "0"), i &+ 1 < n, p[i &+ 1] != UInt8(ascii: ".") { return nil }
    var mantissa: UInt64 = 0
    var digits = 0
    var scale = 0
    var seenDot = false
    while i < n {
      let c = p[i]
      let d = c &- UInt8(ascii: "0")
      if d < 10 {
        mantissa = mantissa &* 10 &+ UInt64(d)
        digits &+= 1
        if seenDot { scale &-= 1 }
      } else if c == UInt8(ascii: "."), !seenDot {
        seenDot = true
      } else {
        return nil  // exponent or anything unusual: the slow path
      }
      i &+= 1
    }
    guard digits <= 19, mantissa <= 1 << 53, scale >= -22 else { return nil }
    var value = Double(mantissa)
    if scale < 0 { value /= powersOfTen[-scale] }
    return negative ? -value : value
  }

  @inline(never) func slowDouble(_ e: TapeEntry) throws(JSONValueError) -> Double {
    let text = numberText(e)
    guard let value = Double(text) else { throw syntax(e, "in number") }
    guard value.isFinite else { throw notRepresentable(e) }
    if value == 0, !isTrueZero(e) { throw notRepresentable(e) }
    return value
  }

  func float(_ e: TapeEntry) throws(JSONValueError) -> Float {
    try prevalidateNumber(e)
    guard let value = Float(numberText(e)) else { throw syntax(e, "in number") }
    guard value.isFinite else { throw notRepresentable(e) }
    if value == 0, !isTrueZero(e) { throw notRepresentable(e) }
    return value
  }

  /// Whether the token is exactly RFC 8259's `number` (what Foundation's `Decimal` parse accepts in full).
  func isStrictNumber(_ e: TapeEntry) -> Bool {
    let p = bytes + e.a
    let n = e.b
    var i = p[0] == UInt8(ascii: "-") ? 1 : 0
    func digits() -> Int {
      let start = i
      while i < n, p[i] &- UInt8(ascii: "0") < 10 { i &+= 1 }
      return i &- start
    }
    guard digits() > 0 else { return false }
    if i < n, p[i] == UInt8(ascii: ".") {
      i &+= 1
      guard digits() > 0 else { return false }
    }
    if i < n, p[i] | 0x20 == UInt8(ascii: "e") {
      i &+= 1
      if i < n, p[i] == UInt8(ascii: "+") || p[i] == UInt8(ascii: "-") { i &+= 1 }
      guard digits() > 0 else { return false }
    }
    return i == n
  }

  /// Whether a token that converted to zero is a true zero, decided as Foundation decides it: the first nonzero
  /// digit or exponent mark met wins, scanning four bytes at a time from the start, then the last one to three bytes
  /// from the end. So a short tail with a nonzero exponent digit (`0e3`, `0.000e5`) counts as not representable.
  func isTrueZero(_ e: TapeEntry) -> Bool {
    let p = bytes + e.a
    @inline(__always) func decides(_ c: UInt8) -> Bool? {
      if c &- UInt8(ascii: "1") < 9 { return false }
      if c | 0x20 == UInt8(ascii: "e") { return true }
      return nil
    }
    let whole = e.b & ~3
    for i in 0..<whole {
      if let result = decides(p[i]) { return result }
    }
    var i = e.b
    while i > whole {
      i &-= 1
      if let result = decides(p[i]) { return result }
    }
    return true
  }

  /// The number token at `e` as an integer of type `T`, as Foundation converts it: digits directly; otherwise an
  /// integral `Double` below 2^53; otherwise the integer part of the exact decimal.
  @inline(__always) func integer<T: FixedWidthInteger>(_ e: TapeEntry, as: T.Type) throws(JSONValueError) -> T {
    let p = bytes + e.a
    let n = e.b
    var i = 0
    let negative = p[0] == UInt8(ascii: "-")
    if negative { i = 1 }
    // Fast path: at most 18 digits always fit in 64 bits.
    if n &- i <= 18, n &- i > 0, T.bitWidth == 64 {
      var value: UInt64 = 0
      var k = i
      while k < n {
        let d = p[k] &- UInt8(ascii: "0")
        guard d < 10 else { break }
        value = value &* 10 &+ UInt64(d)
        k &+= 1
      }
      if k == n, p[i] != UInt8(ascii: "0") || n &- i == 1 {
        if negative {
          if T.isSigned { return T(truncatingIfNeeded: 0 &- Int64(value)) }
          if value == 0 { return 0 }
        } else {
          return T(truncatingIfNeeded: value)
        }
      }
    }
    return try slowInteger(e, as: T.self)
  }

  @inline(never) func slowInteger<T: FixedWidthInteger>(_ e: TapeEntry, as: T.Type) throws(JSONValueError) -> T {
    try prevalidateNumber(e)
    let p = bytes + e.a
    let n = e.b
    let negative = p[0] == UInt8(ascii: "-")
    var i = negative ? 1 : 0
    // Plain digits: exact, with overflow detection.
    var value: T = 0
    var plain = true
    while i < n {
      let d = p[i] &- UInt8(ascii: "0")
      guard d < 10 else {
        plain = false
        break
      }
      let (times, o1) = value.multipliedReportingOverflow(by: 10)
      let (next, o2) =
        negative ? times.subtractingReportingOverflow(T(d)) : times.addingReportingOverflow(T(d))
      if o1 || o2 {
        plain = false
        break
      }
      value = next
      i &+= 1
    }
    if plain { return value }
    // Foundation converts through the raw `Double` here: 1e-400 is 0, 1e400 is not representable.
    guard let double = Double(numberText(e)) else { throw syntax(e, "in number") }
    guard let exact = T(exactly: double) else { throw notRepresentable(e) }
    if double.magnitude < 9_007_199_254_740_992 { return exact }
    guard let decimal = decimalInteger(e, as: T.self) else { throw notRepresentable(e) }
    return decimal
  }

  /// The integer part of the token's exact decimal value, or nil when its significant digits overflow 64 bits or the
  /// result overflows `T` (what Foundation's conversion through `Decimal` gives).
  func decimalInteger<T: FixedWidthInteger>(_ e: TapeEntry, as: T.Type) -> T? {
    let p = bytes + e.a
    let n = e.b
    let negative = p[0] == UInt8(ascii: "-")
    var i = negative ? 1 : 0
    var mantissa: UInt64 = 0
    var exponent = 0
    var seenDot = false
    var started = false
    while i < n {
      let c = p[i]
      let d = c &- UInt8(ascii: "0")
      if d < 10 {
        if d != 0 || started {
          started = true
          let (times, o1) = mantissa.multipliedReportingOverflow(by: 10)
          let (next, o2) = times.addingReportingOverflow(UInt64(d))
          if o1 || o2 { return nil }
          mantissa = next
        }
        if seenDot { exponent -= 1 }
      } else if c == UInt8(ascii: ".") {
        seenDot = true
      } else {
        guard let e10 = Int(String(decoding: UnsafeBufferPointer(start: p + i + 1, count: n - i - 1), as: UTF8.self))
        else { return nil }
        exponent += e10
        break
      }
      i &+= 1
    }
    // Decimal keeps significant digits without trailing zeros.
    while mantissa != 0, mantissa % 10 == 0 {
      mantissa /= 10
      exponent += 1
    }
    while exponent < 0 {
      mantissa /= 10
      exponent += 1
    }
    while exponent > 0 {
      let (times, overflow) = mantissa.multipliedReportingOverflow(by: 10)
      if overflow { return nil }
      mantissa = times
      exponent -= 1
    }
    if negative {
      guard T.isSigned, let magnitude = T(exactly: mantissa) else {
        if T.isSigned, mantissa == UInt64(T.max) + 1 { return T.min }
        return nil
      }
      return 0 - magnitude
    }
    return T(exactly: mantissa)
  }

  func decimal(_ e: TapeEntry) throws(JSONValueError) -> Decimal {
    try prevalidateNumber(e)
    guard isStrictNumber(e) else { throw syntax(e, "in number") }
    guard let value = Decimal(string: numberText(e), locale: nil) else { throw notRepresentable(e) }
    return value
  }
}

/// Whether `bytes` are well-formed UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF).
func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
  var i = 0
  let n = bytes.count
  while i < n {
    let b0 = bytes[i]
    if b0 < 0x80 {
      i &+= 1
      continue
    }
    @inline(__always) func continuation(_ k: Int) -> Bool { k < n && bytes[k] & 0xC0 == 0x80 }
    if b0 & 0xE0 == 0xC0 {
      guard b0 >= 0xC2, continuation(i &+ 1) else { return false }
      i &+= 2
    } else if b0 & 0xF0 == 0xE0 {
      guard continuation(i &+ 1), continuation(i &+ 2) else { return false }
      let b1 = bytes[i &+ 1]
      if b0 == 0xE0, b1 < 0xA0 { return false }
      if b0 == 0xED, b1 >= 0xA0 { return false }
      i &+= 3
    } else if b0 & 0xF8 == 0xF0 {
      guard b0 <= 0xF4, continuation(i &+ 1), continuation(i &+ 2), continuation(i &+ 3) else { return false }
      let b1 = bytes[i &+ 1]
      if b0 == 0xF0, b1 < 0x90 { return false }
      if b0 == 0xF4, b1 >= 0x90 { return false }
      i &+= 4
    } else {
      return false
    }
  }
  return true
}

/// Exact powers of ten for the fast double path.
private let powersOfTen: [Double] = [
  1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
  1e20, 1e21, 1e22,
]

/// Foundation's snake-case to camel-case key conversion: words after underscores capitalised, underscores removed,
/// leading and trailing underscores kept.
func convertFromSnakeCase(_ key: String) -> String {
  guard !key.isEmpty else { return key }
  guard let first = key.firstIndex(where: { $0 != "_" }) else { return key }
  var last = key.index(before: key.endIndex)
  while last > first, key[last] == "_" { key.formIndex(before: &last) }
  let middle = key[first...last]
  let components = middle.split(separator: "_")
  let joined: String
  if components.count == 1 {
    joined = String(middle)
  } else {
    joined = ([components[0].lowercased()] + components[1...].map { $0.capitalized }).joined()
  }
  return String(key[..<first]) + joined + String(key[key.index(after: last)...])
}
