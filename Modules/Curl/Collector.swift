import Foundation
import HTTPTypes
import MalibuTransport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The body of a collected exchange (`data(for:)`): appended on the loop thread into one buffer, pre-sized from
/// `Content-Length` when the body is not decoded, and handed to the caller without a copy at the end.
final class Collector {
  /// The head the caller receives.
  let head: HTTPResponse
  /// The largest body accepted.
  let limit: Int
  /// The content decoder, when the body is encoded.
  let decoder: ContentDecoder?
  /// Set when the body broke the limit.
  private(set) var failure: TransportError?

  private var base: UnsafeMutableRawPointer?
  private var count = 0
  private var capacity = 0
  /// How far a pre-sized, large buffer is faulted in ahead of the writes; `Int.max` when it is not (small, grown, or
  /// not on Linux), so that the check in `append` never calls `prefault`.
  private(set) var populated = Int.max

  init(head: HTTPResponse, limit: Int, expectedLength: Int?, decoder: ContentDecoder?) {
    self.head = head
    self.limit = limit
    self.decoder = decoder
    if let expectedLength, expectedLength > 0, reserve(min(expectedLength, limit)) {
      #if os(Linux)
      if capacity >= Self.prefaultWindow { populated = 0 }
      #endif
    }
  }

  /// Faults in the pre-sized buffer a window ahead of the bytes written, with one `madvise(MADV_POPULATE_WRITE)`
  /// (Linux 5.14) per 8 MiB instead of a page fault every 4 KiB: 25,600 traps for a 100 MiB body become 13 calls.
  /// Only a window ahead is committed, so a `Content-Length` the server never fills costs no more than 8 MiB beyond
  /// what arrived. Where the call is refused (older kernels, other systems) the pages fault in as before.
  ///
  /// Transparent huge pages (`MADV_HUGEPAGE`) were tried first: up to 2.5 GiB/s, but bimodal on this VM (runs at
  /// 270–360 MiB/s while the kernel reported every huge-page fault served without compaction; with THP switched off
  /// the same client ran at 700–930 MiB/s every time), so they are not asked for.
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

  /// `MADV_POPULATE_WRITE` (not exported by every Glibc module).
  private static let populateWrite: Int32 = 23
  /// How far ahead of the written bytes a pre-sized buffer is faulted in; also the smallest buffer that is.
  private static let prefaultWindow = 8 << 20

  deinit {
    free(base)
  }

  /// Appends bytes, or answers `stop` past the limit (or when memory runs out).
  func append(_ bytes: UnsafeRawBufferPointer) -> BodyChannel.WriteResult {
    guard let source = bytes.baseAddress, !bytes.isEmpty else { return .proceed }
    guard bytes.count <= limit - count else {
      failure = .bodyTooLarge(limit: limit)
      return .stop
    }
    if count + bytes.count > capacity {
      let wanted = min(max(count + bytes.count, capacity * 2, 64 << 10), limit)
      populated = .max  // the body outgrew its Content-Length: the buffer may move, grow it as usual
      guard reserve(wanted) else {
        failure = TransportError(code: .other, message: "out of memory collecting a body of \(count) bytes")
        return .stop
      }
    }
    if count + bytes.count > populated {
      prefault(through: count + bytes.count)
    }
    (base! + count).copyMemory(from: source, byteCount: bytes.count)
    count += bytes.count
    return .proceed
  }

  /// The bytes collected, handed over without a copy; the collector is empty afterwards.
  func takeData() -> Data {
    guard var base, count > 0 else { return Data() }
    if capacity - count > 64 << 10, let smaller = realloc(base, count) {
      base = smaller
    }
    let data = Data(bytesNoCopy: base, count: count, deallocator: .free)
    self.base = nil
    count = 0
    capacity = 0
    return data
  }

  private func reserve(_ newCapacity: Int) -> Bool {
    guard newCapacity > capacity else { return true }
    guard let grown = realloc(base, newCapacity) else { return false }
    base = grown
    capacity = newCapacity
    return true
  }
}
