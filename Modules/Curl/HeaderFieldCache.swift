import HTTPTypes

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The header fields of recent responses, reused when a line repeats byte for byte.
///
/// A client mostly talks to the same few servers, whose responses repeat most lines exactly (`Server`,
/// `Content-Type`, `Connection`, `ETag`, …). Building an `HTTPField` means a name lookup, a new string and HTTPTypes'
/// legality scan; comparing a line with the field built from the same line last time is a couple of `memcmp`s. A
/// reused field is the very value the line would build, so nothing the caller sees changes.
///
/// Owned by ``CurlEngine`` and used on the loop thread only. 64 slots, picked from the lengths and edge bytes of the
/// line; a line that differs simply replaces the slot's field. Its slots skip run-time exclusivity checks, as the
/// loop's other state does (see ``Transfer``).
final class HeaderFieldCache {
  @exclusivity(unchecked) private var slots = [HTTPField?](repeating: nil, count: 64)

  /// The field for `name: value`, from the cache or built by `make` (and then cached).
  func field(
    name: UnsafeRawBufferPointer,
    value: UnsafeRawBufferPointer,
    make: () -> HTTPField?
  ) -> HTTPField? {
    guard !name.isEmpty else { return make() }
    let slot = Self.slot(name: name, value: value)
    if let cached = slots[slot], Self.matches(cached, name: name, value: value) { return cached }
    let field = make()
    if let field { slots[slot] = field }
    return field
  }

  private static func slot(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> Int {
    let edges = Int(name[0]) &+ Int(name[name.count - 1]) &* 3 &+ Int(value.last ?? 0) &* 5
    return (name.count &* 31 &+ value.count &* 7 &+ edges) & 63
  }

  private static func matches(_ field: HTTPField, name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> Bool {
    var rawName = field.name.rawName
    let sameName = rawName.withUTF8 { equal(UnsafeRawBufferPointer($0), name) }
    return sameName && field.withUnsafeBytesOfValue { equal(UnsafeRawBufferPointer($0), value) }
  }

  private static func equal(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
    guard lhs.count == rhs.count else { return false }
    guard let left = lhs.baseAddress, let right = rhs.baseAddress else { return true }
    return memcmp(left, right, lhs.count) == 0
  }
}
