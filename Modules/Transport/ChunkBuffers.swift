import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The 1 MiB buffers a ``BodyChannel`` cuts a large body into, recycled when the reader releases a chunk.
///
/// A fresh buffer for every chunk costs a page fault per 4 KiB the first time it is written (the allocator hands
/// out, and takes back, whole mappings at this size); a buffer back from the reader is still mapped and in cache.
/// At most ``spareLimit`` buffers wait for reuse; the rest are freed, and so are the spares when the last chunk and
/// the channel are gone. Addresses are kept as integers so that the state stays plainly `Sendable`.
final class ChunkBuffers: Sendable {
  /// The size of every buffer.
  static let size = BodyChannel.chunkSize
  /// Buffers kept for reuse: the window's worth plus the chunk the reader holds.
  static let spareLimit = BodyChannel.highWater / BodyChannel.chunkSize + 1

  private let spare = Mutex<[Int]>([])

  deinit {
    for address in spare.withLock({ $0 }) { free(UnsafeMutableRawPointer(bitPattern: address)) }
  }

  /// A buffer of ``size`` bytes (its address), or `nil` when memory runs out.
  func take() -> Int? {
    if let address = spare.withLock({ $0.popLast() }) { return address }
    return malloc(Self.size).map { Int(bitPattern: $0) }
  }

  /// Gives a buffer back, for reuse or to be freed.
  func recycle(_ pointer: UnsafeMutableRawPointer) {
    let kept = spare.withLock { spare in
      guard spare.count < Self.spareLimit else { return false }
      spare.append(Int(bitPattern: pointer))
      return true
    }
    if !kept { free(pointer) }
  }

  /// The first `count` bytes of the buffer as a chunk that returns the buffer here when it is released.
  func chunk(_ address: Int, count: Int) -> Data {
    guard let pointer = UnsafeMutableRawPointer(bitPattern: address) else { return Data() }
    return Data(bytesNoCopy: pointer, count: count, deallocator: .custom { [self] pointer, _ in recycle(pointer) })
  }
}
