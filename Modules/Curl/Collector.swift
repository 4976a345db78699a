import Foundation
import HTTPTypes
import MalibuTransport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
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

  init(head: HTTPResponse, limit: Int, expectedLength: Int?, decoder: ContentDecoder?) {
    self.head = head
    self.limit = limit
    self.decoder = decoder
    if let expectedLength, expectedLength > 0, reserve(min(expectedLength, limit)) {
      Self.preferHugePages(base, capacity)
    }
  }

  /// Asks Linux to back a large buffer with transparent huge pages where it can (`MADV_HUGEPAGE`): writing a body of
  /// 100 MiB into fresh memory otherwise takes a page fault every 4 KiB (25,600 of them), one every 2 MiB instead.
  /// Only the 2 MiB-aligned interior is advised; it is advice, so a refusal changes nothing.
  private static func preferHugePages(_ base: UnsafeMutableRawPointer?, _ capacity: Int) {
    #if os(Linux)
    let huge = 2 << 20
    guard let base, capacity >= 4 * huge else { return }
    let start = (Int(bitPattern: base) + huge - 1) & ~(huge - 1)
    let end = (Int(bitPattern: base) + capacity) & ~(huge - 1)
    guard end > start, let aligned = UnsafeMutableRawPointer(bitPattern: start) else { return }
    _ = madvise(aligned, end - start, MADV_HUGEPAGE)
    #endif
  }

  deinit {
    free(base)
  }

  /// Appends bytes, or answers `stop` past the limit (or when memory runs out).
  func append(_ bytes: UnsafeRawBufferPointer) -> BodyChannel.WriteResult {
    guard let source = bytes.baseAddress, !bytes.isEmpty else { return .proceed }
    guard bytes.count <= limit - count else {
      failure = TransportError(
        code: .bodyTooLarge,
        message: "the response body is larger than the limit of \(limit) bytes"
      )
      return .stop
    }
    if count + bytes.count > capacity {
      let wanted = min(max(count + bytes.count, capacity * 2, 64 << 10), limit)
      guard reserve(wanted) else {
        failure = TransportError(code: .other, message: "out of memory collecting a body of \(count) bytes")
        return .stop
      }
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
