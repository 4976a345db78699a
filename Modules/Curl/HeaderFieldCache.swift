import HTTPTypes

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The header fields of recent responses, reused when a line repeats byte for byte, and the last head, reused when
/// a whole head does (``head(repeating:)``: then no line is looked at; the fields below serve the heads that differ,
/// a new `Date` once a second or a new `Content-Length`).
///
/// A client mostly talks to the same few servers, whose responses repeat most lines exactly (`Server`,
/// `Content-Type`, `Connection`, `ETag`, …). Building an `HTTPField` means a name lookup, a new string and HTTPTypes'
/// legality scan; comparing a line with the field built from the same line last time is a couple of `memcmp`s. A
/// reused field is the very value the line would build, so nothing the caller sees changes.
///
/// Owned by ``CurlEngine`` and used on the loop thread only. 64 sets of two entries, the set picked by mixing the
/// lengths and a few bytes of the line: a response's lines rarely share a set, and when two do (`Server` and a `Date`
/// that changes every second, say) both stay. A line that matches neither entry of its set replaces the one used less
/// recently. Each entry keeps the line's name and value bytes beside its field, so that looking a line up is two
/// `memcmp`s, with no copy of a field (and its strings) made to compare it; lines over ``maximumKeyLength`` bytes
/// are built every time. Its state skips run-time exclusivity checks, as the loop's other state does (see
/// ``Transfer``).
final class HeaderFieldCache {
  /// The longest name plus value kept.
  static let maximumKeyLength = entryBytes - 2
  private static let entries = 128
  /// Per entry: the name's length, the value's length, the name's bytes, the value's bytes.
  private static let entryBytes = 128

  /// `fields[2 * set]` is the set's entry used last, `fields[2 * set + 1]` the other; an entry whose key has a name
  /// of length 0 is empty (no line has an empty name) and its field a placeholder.
  @exclusivity(unchecked) private var fields = [HTTPField](
    repeating: HTTPField(name: .contentLength, value: ""),
    count: HeaderFieldCache.entries
  )
  private let keys: UnsafeMutablePointer<UInt8>
  /// How many lines were built rather than found (for tests).
  @exclusivity(unchecked) private(set) var misses = 0
  /// The last head parsed, and the lines it was parsed from (see ``ResponseHeadParser``).
  @exclusivity(unchecked) private var lastHead: (lines: [UInt8], head: HTTPResponse)?
  /// How many heads were parsed rather than repeated (for tests).
  @exclusivity(unchecked) private(set) var headsParsed = 0

  init() {
    keys = .allocate(capacity: Self.entries * Self.entryBytes)
    keys.initialize(repeating: 0, count: Self.entries * Self.entryBytes)
  }

  deinit {
    keys.deallocate()
  }

  /// The head last parsed from exactly these lines, if the last head parsed was.
  func head(repeating lines: [UInt8]) -> HTTPResponse? {
    guard !lines.isEmpty, let lastHead, lastHead.lines.count == lines.count else { return nil }
    let same = lines.withUnsafeBytes { new in
      lastHead.lines.withUnsafeBytes { old in memcmp(new.baseAddress!, old.baseAddress!, new.count) == 0 }
    }
    return same ? lastHead.head : nil
  }

  /// Keeps a head just parsed from `lines`, for ``head(repeating:)``; heads of over 16 KiB are not kept.
  func remember(_ head: HTTPResponse, lines: [UInt8]) {
    headsParsed &+= 1
    lastHead = lines.count <= 16 << 10 ? (lines, head) : nil
  }

  /// Where a line stands in the cache.
  enum Lookup {
    /// Its field was appended.
    case appended
    /// Not cached: ``remember(_:in:name:value:)`` keeps the field built for it in this entry.
    case missing(entry: Int)
    /// Too long to keep.
    case uncacheable
  }

  /// Appends the field of `name: value` to `headerFields` when the line was seen recently. Works on `HTTPFields`
  /// and entries directly rather than handing out an optional field: destroying an `HTTPField?` goes through the
  /// runtime's generic value witness, which cost more than the lookup.
  func append(
    name: UnsafeRawBufferPointer,
    value: UnsafeRawBufferPointer,
    to headerFields: inout HTTPFields
  ) -> Lookup {
    guard !name.isEmpty, name.count + value.count <= Self.maximumKeyLength else { return .uncacheable }
    let first = Self.set(name: name, value: value) &<< 1
    if matches(first, name: name, value: value) {
      headerFields.append(fields[first])
      return .appended
    }
    swapEntries(first, first &+ 1)
    if matches(first, name: name, value: value) {
      headerFields.append(fields[first])
      return .appended
    }
    misses &+= 1
    return .missing(entry: first)
  }

  /// Keeps `field`, built for the line `name: value`, in the entry ``append(name:value:to:)`` named.
  func remember(_ field: HTTPField, in entry: Int, name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
    let key = keys + entry &* Self.entryBytes
    key[0] = UInt8(name.count)
    key[1] = UInt8(value.count)
    UnsafeMutableRawPointer(key + 2).copyMemory(from: name.baseAddress!, byteCount: name.count)
    if let bytes = value.baseAddress {
      UnsafeMutableRawPointer(key + 2 + name.count).copyMemory(from: bytes, byteCount: value.count)
    }
    fields[entry] = field
  }

  private func matches(_ entry: Int, name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> Bool {
    let key = keys + entry &* Self.entryBytes
    guard Int(key[0]) == name.count, Int(key[1]) == value.count else { return false }
    guard memcmp(key + 2, name.baseAddress!, name.count) == 0 else { return false }
    guard let bytes = value.baseAddress else { return true }
    return memcmp(key + 2 + name.count, bytes, value.count) == 0
  }

  private func swapEntries(_ a: Int, _ b: Int) {
    fields.swapAt(a, b)
    let left = UnsafeMutableRawPointer(keys + a &* Self.entryBytes)
    let right = UnsafeMutableRawPointer(keys + b &* Self.entryBytes)
    for offset in stride(from: 0, to: Self.entryBytes, by: 8) {
      let word = left.load(fromByteOffset: offset, as: UInt64.self)
      left.storeBytes(of: right.load(fromByteOffset: offset, as: UInt64.self), toByteOffset: offset, as: UInt64.self)
      right.storeBytes(of: word, toByteOffset: offset, as: UInt64.self)
    }
  }

  private static func set(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> Int {
    var key = UInt64(truncatingIfNeeded: name.count) | UInt64(truncatingIfNeeded: value.count) &<< 8
    key |= UInt64(name[0]) &<< 16 | UInt64(name[name.count - 1]) &<< 24
    if let last = value.last {
      key |= UInt64(value[0]) &<< 32 | UInt64(value[value.count / 2]) &<< 40 | UInt64(last) &<< 48
    }
    return Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) &>> 58)
  }
}
