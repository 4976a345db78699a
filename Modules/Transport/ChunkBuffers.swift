import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The 1 MiB buffers a ``BodyChannel`` fills with a large body, recycled when the reader has released every chunk
/// cut from one.
///
/// A fresh buffer costs a page fault per 4 KiB the first time it is written (the allocator hands out, and takes
/// back, whole mappings at this size); a buffer back from the reader is still mapped and in cache. A buffer is
/// filled to the end across event-loop rounds, each round's bytes handed over as a slice of it, so that small
/// rounds do not each take a buffer of their own. At most ``spareLimit`` buffers wait for reuse; the rest are freed,
/// and so are the spares when the channel and its last chunk are gone. Addresses are kept as integers so that the
/// state stays plainly `Sendable`.
final class ChunkBuffers: Sendable {
  /// One buffer, returned to its pool when the last reference goes: the channel's while it fills it, and each
  /// chunk's that was cut from it.
  final class Lease: Sendable {
    /// The buffer's address.
    let address: Int
    private let pool: ChunkBuffers

    fileprivate init(address: Int, pool: ChunkBuffers) {
      self.address = address
      self.pool = pool
    }

    deinit {
      if let pointer = UnsafeMutableRawPointer(bitPattern: address) { pool.recycle(pointer) }
    }

    /// `count` bytes from `offset` as a chunk that keeps this buffer leased until it is released.
    func chunk(from offset: Int, count: Int) -> Data {
      guard count > 0, let base = UnsafeMutableRawPointer(bitPattern: address) else { return Data() }
      return Data(
        bytesNoCopy: base + offset,
        count: count,
        deallocator: .custom { _, _ in withExtendedLifetime(self) {} }
      )
    }
  }

  /// The size of every buffer.
  static let size = BodyChannel.chunkSize
  /// Buffers kept for reuse: the window's worth, the one being filled and the one the reader holds.
  static let spareLimit = BodyChannel.highWater / BodyChannel.chunkSize + 2

  private let spare = Mutex<[Int]>([])

  deinit {
    for address in spare.withLock({ $0 }) { free(UnsafeMutableRawPointer(bitPattern: address)) }
  }

  /// A buffer of ``size`` bytes, or `nil` when memory runs out.
  func take() -> Lease? {
    if let address = spare.withLock({ $0.popLast() }) { return Lease(address: address, pool: self) }
    return malloc(Self.size).map { Lease(address: Int(bitPattern: $0), pool: self) }
  }

  /// Gives a buffer back, for reuse or to be freed.
  private func recycle(_ pointer: UnsafeMutableRawPointer) {
    let kept = spare.withLock { spare in
      guard spare.count < Self.spareLimit else { return false }
      spare.append(Int(bitPattern: pointer))
      return true
    }
    if !kept { free(pointer) }
  }
}
