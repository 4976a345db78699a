// The scanner: one pass over the UTF-8 bytes into a flat tape of 64-bit entries.
//
// It accepts exactly what Foundation's `JSONScanner` accepts and, like it, defers the checks Foundation defers to
// decoding time (number syntax, escapes, control characters and UTF-8 inside strings), so a document decodes or
// fails in the same cases.

/// One tape entry: the kind in bits 0–3; for scalars the byte offset in bits 4–35 and the byte length in bits 36–63;
/// for containers the tape index after the container in bits 4–35 and the element (or pair) count in bits 36–63.
struct TapeEntry {
  let raw: UInt64

  @inline(__always) init(raw: UInt64) { self.raw = raw }
  @inline(__always) init(kind: TapeKind, _ a: Int, _ b: Int) {
    raw = UInt64(kind.rawValue) | UInt64(truncatingIfNeeded: a) << 4 | UInt64(truncatingIfNeeded: b) << 36
  }

  // Only the scanner writes kinds, always from `TapeKind`, so the low four bits are a valid case.
  @inline(__always) var kind: TapeKind { unsafeBitCast(UInt8(truncatingIfNeeded: raw & 0xF), to: TapeKind.self) }
  /// The byte offset of a scalar, or the tape index after a container.
  @inline(__always) var a: Int { Int(truncatingIfNeeded: (raw >> 4) & 0xFFFF_FFFF) }
  /// The byte length of a scalar, or the element count of a container.
  @inline(__always) var b: Int { Int(truncatingIfNeeded: raw >> 36) }
}

/// What a tape entry holds. Objects come in three kinds, by how their keys can be matched.
enum TapeKind: UInt8 {
  case null = 0
  case `true`, `false`, number
  /// A string of ASCII bytes with no backslash and no control character: its bytes are its text.
  case asciiString
  /// A string with no backslash and no control character: its bytes are its UTF-8 (once validated).
  case simpleString
  /// A string with escapes or control characters, unescaped (and checked) when decoded.
  case string
  case array
  /// An object whose keys are all simple ASCII and pairwise different: keys match by bytes, searched from the last
  /// match onwards.
  case object
  /// An object whose simple ASCII keys may repeat: keys match by bytes, searched from the first so the first wins.
  case objectFromStart
  /// An object with escaped or non-ASCII keys: keys are decoded to `String` when a container is made.
  case objectSlow
}

/// Why the scanner refused a document (Foundation reports all of these as one `DecodingError.dataCorrupted`).
struct JSONSyntaxError: Error {
  let message: String
  let offset: Int
}

/// The largest document the tape addresses (28-bit lengths); larger ones go to Foundation's decoder.
let tapeMaximumBytes = 1 << 28

/// The deepest nesting Foundation's scanner accepts.
let jsonMaximumDepth = 512

/// The scanner's output: the tape (with a `null` entry after the last, for absent values) and its length.
struct Tape {
  var entries: UnsafeMutablePointer<UInt64>
  var count: Int
  var capacity: Int
  /// The deepest container nesting seen, to size per-depth state.
  var maximumDepth: Int

  init(capacity: Int) {
    self.capacity = max(capacity, 16)
    entries = .allocate(capacity: self.capacity)
    count = 0
    maximumDepth = 0
  }

  @inline(__always) mutating func append(_ entry: UInt64) {
    if count == capacity - 1 { grow() }
    entries[count] = entry
    count &+= 1
  }

  @inline(never) mutating func grow() {
    let bigger = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity * 2)
    bigger.update(from: entries, count: count)
    entries.deallocate()
    entries = bigger
    capacity *= 2
  }
}

/// One open container on the scanner's explicit stack.
private struct Frame {
  var header: Int
  var count: Int
  var isObject: Bool
  /// Set when a key is escaped or not ASCII (`objectSlow`).
  var slowKeys: Bool
  /// Set when two keys hash alike (`objectFromStart`).
  var mayRepeat: Bool
  var seenLow: UInt64
  var seenHigh: UInt64
}

/// Scans `bytes[0..<count]` (followed by at least one readable zero byte) into a tape. Iterative, so deep nesting
/// is an error at 513 levels, never a stack overflow.
func scanTape(_ bytes: UnsafePointer<UInt8>, count: Int) throws(JSONSyntaxError) -> Tape {
  var tape = Tape(capacity: count / 6 + 16)
  do {
    try withUnsafeTemporaryAllocation(of: Frame.self, capacity: jsonMaximumDepth + 1) {
      (frames: UnsafeMutableBufferPointer<Frame>) throws(JSONSyntaxError) in
      var scanner = Scanner(bytes: bytes, end: count, frames: frames.baseAddress.unsafelyUnwrapped)
      try scanner.scan(into: &tape)
    }
  } catch {
    tape.entries.deallocate()
    throw error
  }
  tape.entries[tape.count] = UInt64(TapeKind.null.rawValue)
  return tape
}

/// The bytes a number token may hold, as bits counted from '+' (0x2B): '+' bit 0, '-' 2, '.' 3, '0'–'9' 5–14,
/// 'E' 26, 'e' 58. A literal, so reading it costs no lazy-initialisation check.
private let numberBytes: UInt64 = 0x0400_0000_0400_7FED

private struct Scanner {
  let bytes: UnsafePointer<UInt8>
  let end: Int
  let frames: UnsafeMutablePointer<Frame>
  var p = 0
  var depth = 0

  init(bytes: UnsafePointer<UInt8>, end: Int, frames: UnsafeMutablePointer<Frame>) {
    self.bytes = bytes
    self.end = end
    self.frames = frames
  }

  func fail(_ message: String, at offset: Int) -> JSONSyntaxError {
    JSONSyntaxError(message: message, offset: offset)
  }

  func unexpected(_ context: String) -> JSONSyntaxError {
    if p >= end { return fail("Unexpected end of file", at: p) }
    let byte = bytes[p]
    let shown =
      byte >= 0x20 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
    return fail("Unexpected character \(shown) \(context)", at: p)
  }

  /// Skips JSON whitespace and returns the next byte (0 at the end, which no caller accepts as a token start).
  @inline(__always) mutating func skipWhitespace() -> UInt8 {
    while true {
      // Space, tab, LF, CR are the only whitespace; everything else ends the run, the zero after the document too,
      // so `p` stops at `end` at the latest without a bounds check.
      let byte = bytes[p]
      guard byte <= 0x20, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return byte }
      p &+= 1
    }
  }

  mutating func scan(into tape: inout Tape) throws(JSONSyntaxError) {
    // Set when an object's next member starts; its key is scanned at the top of the loop.
    var keyFirst = false
    valueLoop: while true {
      if keyFirst {
        // An object member: its key (the current byte must be '"'), recorded, and the ':' after it.
        keyFirst = false
        guard bytes[p] == UInt8(ascii: "\"") else { throw unexpected("where an object key was expected") }
        let start = p &+ 1
        let plainASCII = try scanString(into: &tape)
        let top = frames + (depth &- 1)
        if plainASCII {
          let length = p &- 1 &- start
          // Two bits of a 128-bit set per object flag keys that may repeat; those objects match from the first key.
          var hash = UInt32(truncatingIfNeeded: length) &* 0x9E37_79B1
          if length > 0 {
            hash ^= UInt32(bytes[start]) &* 0x85EB_CA6B
            hash ^= UInt32(bytes[start &+ length &- 1]) &* 0xC2B2_AE35
            hash ^= UInt32(bytes[start &+ length >> 1]) &* 0x27D4_EB2F
            hash ^= hash >> 15
            hash = hash &* 0x2C1B_3C6D
          }
          let bit = UInt64(1) << UInt64(hash >> 26 & 63)
          if hash >> 25 & 1 == 0 {
            if top.pointee.seenLow & bit != 0 { top.pointee.mayRepeat = true }
            top.pointee.seenLow |= bit
          } else {
            if top.pointee.seenHigh & bit != 0 { top.pointee.mayRepeat = true }
            top.pointee.seenHigh |= bit
          }
        } else {
          top.pointee.slowKeys = true
        }
        let colon = skipWhitespace()
        guard colon == UInt8(ascii: ":") else { throw unexpected("in object") }
        p &+= 1
      }
      let byte = skipWhitespace()
      if p >= end { throw fail("Unexpected end of file", at: p) }
      switch byte {
      case UInt8(ascii: "{"), UInt8(ascii: "["):
        guard depth < jsonMaximumDepth else {
          throw fail("Too many nested arrays or dictionaries", at: p)
        }
        let isObject = byte == UInt8(ascii: "{")
        frames[depth] = Frame(
          header: tape.count,
          count: 0,
          isObject: isObject,
          slowKeys: false,
          mayRepeat: false,
          seenLow: 0,
          seenHigh: 0
        )
        depth &+= 1
        if depth > tape.maximumDepth { tape.maximumDepth = depth }
        tape.append(0)
        p &+= 1
        let next = skipWhitespace()
        if next == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")), p < end {
          p &+= 1
          close(&tape)
        } else if isObject {
          keyFirst = true
          continue valueLoop
        } else {
          continue valueLoop
        }
      case UInt8(ascii: "\""):
        _ = try scanString(into: &tape)
      case UInt8(ascii: "-"), UInt8(ascii: "0"), UInt8(ascii: "1"), UInt8(ascii: "2"), UInt8(ascii: "3"),
        UInt8(ascii: "4"), UInt8(ascii: "5"), UInt8(ascii: "6"), UInt8(ascii: "7"), UInt8(ascii: "8"),
        UInt8(ascii: "9"):
        let start = p
        p &+= 1
        while true {
          // Foundation's scanner takes digits, '.', '+', '-', 'e', 'E' and checks the syntax when decoding: one bit
          // per byte value from '+' (0x2B) up. The zero after the document is none of them.
          let d = bytes[p] &- UInt8(ascii: "+")
          guard d < 64, numberBytes >> UInt64(d) & 1 != 0 else { break }
          p &+= 1
        }
        tape.append(TapeEntry(kind: .number, start, p &- start).raw)
      case UInt8(ascii: "t"):
        if fourBytes(at: p) == 0x6575_7274 { p &+= 4 } else { try expectLiteral("true") }  // "true"
        tape.append(TapeEntry(kind: .true, 0, 0).raw)
      case UInt8(ascii: "f"):
        if fourBytes(at: p &+ 1) == 0x6573_6C61 { p &+= 5 } else { try expectLiteral("false") }  // "alse"
        tape.append(TapeEntry(kind: .false, 0, 0).raw)
      case UInt8(ascii: "n"):
        if fourBytes(at: p) == 0x6C6C_756E { p &+= 4 } else { try expectLiteral("null") }  // "null"
        tape.append(TapeEntry(kind: .null, 0, 0).raw)
      default:
        throw unexpected("where a value was expected")
      }

      // A value is complete: count it in its container, then read ',' or the container's end.
      while depth > 0 {
        let top = frames + (depth &- 1)
        top.pointee.count &+= 1
        let next = skipWhitespace()
        if p >= end { throw fail("Unexpected end of file", at: p) }
        if top.pointee.isObject {
          if next == UInt8(ascii: ",") {
            p &+= 1
            // Foundation accepts one trailing comma before the closing brace or bracket.
            if skipWhitespace() != UInt8(ascii: "}") || p >= end {
              keyFirst = true
              continue valueLoop
            }
          } else {
            guard next == UInt8(ascii: "}") else { throw unexpected("in object") }
          }
        } else {
          if next == UInt8(ascii: ",") {
            p &+= 1
            if skipWhitespace() != UInt8(ascii: "]") || p >= end { continue valueLoop }
          } else {
            guard next == UInt8(ascii: "]") else { throw unexpected("in array") }
          }
        }
        p &+= 1
        close(&tape)
      }
      break
    }
    _ = skipWhitespace()
    if p < end { throw unexpected("after top-level value") }
  }

  @inline(__always) mutating func close(_ tape: inout Tape) {
    depth &-= 1
    let frame = frames[depth]
    let kind: TapeKind =
      !frame.isObject ? .array : frame.slowKeys ? .objectSlow : frame.mayRepeat ? .objectFromStart : .object
    tape.entries[frame.header] = TapeEntry(kind: kind, tape.count, frame.count).raw
  }

  /// The four bytes at `offset` as a little-endian number, for matching a literal in one comparison. The zero padding
  /// after the document keeps the load inside the buffer, and no literal's letters match it.
  @inline(__always) func fourBytes(at offset: Int) -> UInt32 {
    UInt32(littleEndian: UnsafeRawPointer(bytes + offset).loadUnaligned(as: UInt32.self))
  }

  /// Checks the literal at `p` byte by byte, for the error that names where it differs.
  mutating func expectLiteral(_ literal: StaticString) throws(JSONSyntaxError) {
    let n = literal.utf8CodeUnitCount
    guard end &- p >= n else { throw fail("Unexpected end of file", at: end) }
    let text = literal.utf8Start
    for i in 0..<n where bytes[p &+ i] != text[i] {
      p &+= i
      throw unexpected("in expected \(literal) value")
    }
    p &+= n
  }

  /// Scans a string starting at the opening quote and records it. Returns whether it is plain ASCII (no escapes,
  /// no control characters, no bytes above 0x7F).
  @inline(__always) mutating func scanString(into tape: inout Tape) throws(JSONSyntaxError) -> Bool {
    p &+= 1
    let start = p
    // Eight bytes at a time to the first '"', '\\' or control character. The zero padding after the document is a
    // control character, so the loads stay inside the buffer and `p` never passes `end`.
    var seen: UInt64 = 0
    while true {
      let word = UnsafeRawPointer(bytes + p).loadUnaligned(as: UInt64.self)
      let ones: UInt64 = 0x0101_0101_0101_0101
      let quote = word ^ (ones &* 0x22)
      let backslash = word ^ (ones &* 0x5C)
      let stops =
        ((quote &- ones) & ~quote | (backslash &- ones) & ~backslash | (word &- ones &* 0x20) & ~word)
        & 0x8080_8080_8080_8080
      if stops != 0 {
        // The lowest flagged byte is exact (borrows only disturb bytes above it).
        let skipped = stops.trailingZeroBitCount >> 3
        seen |= word & ((1 << UInt64(skipped &* 8)) &- 1)
        p &+= skipped
        break
      }
      seen |= word
      p &+= 8
    }
    if p < end, bytes[p] == UInt8(ascii: "\"") {
      let ascii = seen & 0x8080_8080_8080_8080 == 0
      tape.append(TapeEntry(kind: ascii ? .asciiString : .simpleString, start, p &- start).raw)
      p &+= 1
      return ascii
    }
    // Slow run: escapes are skipped by shape (checked when decoded), like Foundation's scanner.
    while p < end {
      let c = bytes[p]
      if c == UInt8(ascii: "\"") {
        tape.append(TapeEntry(kind: .string, start, p &- start).raw)
        p &+= 1
        return false
      }
      if c == UInt8(ascii: "\\") {
        p &+= 1
        guard p < end else { break }
        if bytes[p] == UInt8(ascii: "u") {
          p &+= 1
          guard end &- p >= 4 else { throw fail("Unexpected end of file", at: end) }
          for i in 0..<4 where bytes[p &+ i] == UInt8(ascii: "\"") {
            throw fail("Invalid hex digit in unicode escape sequence", at: p)
          }
          p &+= 4
          continue
        }
      }
      p &+= 1
    }
    throw fail("Unexpected end of file", at: end)
  }
}
