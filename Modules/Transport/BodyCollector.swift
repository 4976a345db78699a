package import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A response body collected into one buffer, up to a limit: the one place that enforces the `upTo:` limit of
/// `data(for:body:options:upTo:)` and ``ResponseBody/collect(upTo:)``, whichever transport fills it.
///
/// The buffer is pre-sized from the announced length (capped at the limit) and handed over without a copy by
/// ``take()``. A value type with copy-on-write storage: an owner that keeps it in an enum takes it out before
/// appending, so that the buffer stays uniquely referenced and grows in place.
package struct BodyCollector: Sendable {
  /// The largest body accepted, in bytes.
  package let limit: Int
  private var storage = Storage()

  /// A collector for a body of at most `limit` bytes.
  /// - Parameters:
  ///   - limit: The largest body accepted.
  ///   - expectedLength: The announced length (`Content-Length`, when no decoding changes it), if any: the buffer
  ///     is reserved for it.
  /// - Throws: ``TransportError`` with ``TransportError/Code/bodyTooLarge`` when `expectedLength` is already past
  ///   `limit`, so that the transfer stops before the body is received.
  package init(limit: Int, expectedLength: Int?) throws(TransportError) {
    self.limit = limit
    if let expectedLength, expectedLength > limit {
      throw .bodyTooLarge(limit: limit, size: expectedLength, announced: true)
    }
    if let expectedLength, expectedLength > 0, storage.reserve(expectedLength) {
      #if os(Linux)
      if storage.capacity >= Storage.prefaultWindow { storage.populated = 0 }
      #endif
    }
  }

  /// The bytes collected so far.
  package var count: Int { storage.count }

  /// How far a large pre-sized buffer is faulted in (see ``Storage``); `Int.max` when it is not.
  package var prefaulted: Int { storage.populated }

  /// Reserves room for `capacity` bytes in all (capped at the limit), when the caller knows more than the announced
  /// length.
  package mutating func reserve(_ capacity: Int) {
    unique()
    _ = storage.reserve(min(capacity, limit))
  }

  /// Appends received bytes.
  /// - Throws: ``TransportError`` with ``TransportError/Code/bodyTooLarge`` past the limit (nothing is appended), or
  ///   ``TransportError/Code/other`` when memory runs out.
  package mutating func append(_ bytes: UnsafeRawBufferPointer) throws(TransportError) {
    guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
    guard bytes.count <= limit - storage.count else { throw .bodyTooLarge(limit: limit) }
    unique()
    try storage.append(source, count: bytes.count, limit: limit)
  }

  /// Appends a received chunk.
  /// - Throws: As the raw-bytes `append` does.
  package mutating func append(_ chunk: Data) throws(TransportError) {
    try chunk.withUnsafeBytes { bytes in Result { () throws(TransportError) in try append(bytes) } }.get()
  }

  /// The bytes collected, handed over without a copy; the collector is empty afterwards.
  package mutating func take() -> Data {
    unique()
    return storage.take()
  }

  /// Copies a storage shared with another collector before it is written.
  private mutating func unique() {
    if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
  }

  /// The buffer: `malloc`ed, so that it is handed over as a `Data` without a copy. A large buffer pre-sized from the
  /// announced length is faulted in a window ahead of the writes, with one `madvise(MADV_POPULATE_WRITE)` (Linux
  /// 5.14) per window instead of a page fault per page; only a window ahead is committed, so a `Content-Length` the
  /// server never fills costs no more than that. Where the call is refused the pages fault in as usual.
  ///
  /// `@unchecked Sendable`: it is mutated only by the one collector that holds it, which copies it first when it is
  /// shared (copy-on-write), so no two owners ever write to or read from a buffer being written.
  private final class Storage: @unchecked Sendable {
    /// How far ahead of the written bytes a pre-sized buffer is faulted in; also the smallest buffer that is.
    static let prefaultWindow = 8 << 20
    /// `MADV_POPULATE_WRITE` (not exported by every Glibc module).
    private static let populateWrite: Int32 = 23

    private var base: UnsafeMutableRawPointer?
    private(set) var count = 0
    private(set) var capacity = 0
    /// How far the buffer is faulted in; `Int.max` when it is not faulted in ahead (small, grown, or not Linux).
    var populated = Int.max

    deinit {
      free(base)
    }

    /// Grows the buffer to at least `newCapacity` bytes; `false` when memory runs out.
    func reserve(_ newCapacity: Int) -> Bool {
      guard newCapacity > capacity else { return true }
      guard let grown = realloc(base, newCapacity) else { return false }
      base = grown
      capacity = newCapacity
      return true
    }

    func append(_ source: UnsafeRawPointer, count added: Int, limit: Int) throws(TransportError) {
      if count + added > capacity {
        populated = .max  // the body outgrew its announced length: the buffer may move, grow it as usual
        guard reserve(min(max(count + added, capacity * 2, 64 << 10), limit)) else {
          throw TransportError(code: .other, message: "out of memory collecting a body of \(count) bytes")
        }
      }
      if count + added > populated { prefault(through: count + added) }
      guard let base else { return }
      (base + count).copyMemory(from: source, byteCount: added)
      count += added
    }

    /// Faults in the buffer up to a window beyond `end`.
    private func prefault(through end: Int) {
      #if os(Linux)
      let page = 4096
      guard let base else { return }
      let target = min(capacity, end + Self.prefaultWindow)
      let start = (Int(bitPattern: base) + populated + page - 1) & ~(page - 1)
      let stop = (Int(bitPattern: base) + target) & ~(page - 1)
      if stop > start, let aligned = UnsafeMutableRawPointer(bitPattern: start) {
        _ = madvise(aligned, stop - start, Self.populateWrite)
      }
      populated = target
      #endif
    }

    /// The bytes, handed over without a copy (a buffer much larger than them shrunk first); empty afterwards.
    func take() -> Data {
      guard var base, count > 0 else { return Data() }
      if capacity - count > 64 << 10, let smaller = realloc(base, count) { base = smaller }
      let data = Data(bytesNoCopy: base, count: count, deallocator: .free)
      self.base = nil
      count = 0
      capacity = 0
      populated = .max
      return data
    }

    /// A copy holding the same bytes, not faulted in ahead.
    func copy() -> Storage {
      let copy = Storage()
      if count > 0, copy.reserve(capacity), let base, let target = copy.base {
        target.copyMemory(from: base, byteCount: count)
        copy.count = count
      }
      return copy
    }
  }
}
