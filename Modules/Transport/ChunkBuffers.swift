import Foundation
@_spi(Malibu) import MalibuCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
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

  private let spare = Locked<[Int]>([])

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

/// Chunks waiting for a reader, oldest first, and the recycled buffer being filled: the queue of a ``BodyChannel``
/// (bytes as received) and of a ``DecodingReader`` (bytes as decoded).
///
/// ``write(_:)`` copies bytes into buffers of ``ChunkBuffers/size`` from the pool, queueing each as it fills up;
/// ``flush()`` queues what was written since the last flush as a slice of the buffer being filled, which goes on
/// being filled. A chunk is let go as it is taken, so a queue that never runs empty keeps nothing it handed out.
struct ChunkQueue: Sendable {
  private let pool: ChunkBuffers
  private var chunks: [Data] = []
  private var head = 0
  /// The bytes in the queued chunks.
  private(set) var queuedBytes = 0
  /// The buffer being filled: bytes up to `flushed` are queued already, those up to `count` are not yet.
  private var filling: (lease: ChunkBuffers.Lease, flushed: Int, count: Int)?

  init(pool: ChunkBuffers = ChunkBuffers()) {
    self.pool = pool
  }

  /// The bytes written into the buffer being filled and not queued yet.
  var unqueuedBytes: Int {
    filling.map { $0.count - $0.flushed } ?? 0
  }

  /// Queues `chunk` as it is, after everything written before it.
  mutating func append(_ chunk: Data) {
    flush()
    guard !chunk.isEmpty else { return }
    chunks.append(chunk)
    queuedBytes += chunk.count
  }

  /// Copies `bytes` into recycled buffers, queueing each one that fills up.
  /// - Returns: How many bytes were copied: all of them, unless memory for a buffer ran out.
  mutating func write(_ bytes: UnsafeRawBufferPointer) -> Int {
    var copied = 0
    while copied < bytes.count {
      if filling == nil {
        guard let lease = pool.take() else { break }
        filling = (lease, 0, 0)
      }
      guard let (lease, flushed, count) = filling, let base = UnsafeMutableRawPointer(bitPattern: lease.address),
        let source = bytes.baseAddress
      else { break }
      let piece = min(bytes.count - copied, ChunkBuffers.size - count)
      (base + count).copyMemory(from: source + copied, byteCount: piece)
      filling = (lease, flushed, count + piece)
      copied += piece
      if count + piece == ChunkBuffers.size { flush() }
    }
    return copied
  }

  /// Queues the bytes written since the last flush; a full buffer is let go (it returns to the pool once its last
  /// chunk is released).
  mutating func flush() {
    guard let (lease, flushed, count) = filling else { return }
    if count > flushed {
      chunks.append(lease.chunk(from: flushed, count: count - flushed))
      queuedBytes += count - flushed
    }
    filling = count == ChunkBuffers.size ? nil : (lease, count, count)
  }

  /// Takes the oldest queued chunk, or `nil` when none is queued.
  mutating func popFirst() -> Data? {
    guard head < chunks.count else { return nil }
    var chunk = Data()
    swap(&chunk, &chunks[head])
    head += 1
    queuedBytes -= chunk.count
    if head == chunks.count {
      chunks.removeAll(keepingCapacity: true)
      head = 0
    } else if head >= 64 && head * 2 >= chunks.count {
      chunks.removeFirst(head)
      head = 0
    }
    return chunk
  }

  /// Takes every queued chunk, oldest first; the buffer being filled stays.
  mutating func removeAll() -> ArraySlice<Data> {
    defer {
      chunks = []
      head = 0
      queuedBytes = 0
    }
    return chunks[head...]
  }

  /// Drops everything: the queued chunks and the buffer being filled.
  mutating func clear() {
    _ = removeAll()
    filling = nil
  }
}
