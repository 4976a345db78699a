import Foundation
@_spi(Malibu) import MalibuCore

/// The reading side of a ``BodyChannel`` whose body is encoded (gzip, deflate): the task that reads the body
/// inflates it, so that the transport's thread only receives. On a fast network the two run on two cores at once
/// instead of one after the other; the transport's thread no longer spends a decompression's time per round.
///
/// The channel queues the encoded bytes as they arrive (its back-pressure counts them); ``next()`` inflates the
/// chunk it holds in slices of ``inputSlice`` bytes, so that one call never decodes more than a slice's output (a
/// decompression bomb's slice is bounded by zlib's ratio and the decompression limit). Decoded bytes fill recycled
/// buffers, handed out as a slice each time a buffer is full or the held chunk is used up. One reader at a time: the
/// lock is held while inflating, which only other readers of the same body would wait for.
final class DecodingReader: Sendable {
  /// The most encoded bytes inflated in one step.
  static let inputSlice = 64 << 10

  /// The decoder, shared only through the lock of ``DecodingReader``: it is never touched outside it.
  private final class DecoderBox: @unchecked Sendable {
    let decoder: ContentDecoder

    init(_ decoder: ContentDecoder) {
      self.decoder = decoder
    }
  }

  private struct State: Sendable {
    let box: DecoderBox
    /// The encoded chunk being decoded, and how much of it has been.
    var input = Data()
    var inputOffset = 0
    /// The buffer decoded bytes go into: those up to `flushed` are handed out, those up to `count` are not yet.
    var output: (lease: ChunkBuffers.Lease, flushed: Int, count: Int)?
    /// Decoded chunks to hand out, oldest first.
    var ready: [Data] = []
    var readyHead = 0
    /// The error decoding failed with; every later read throws it again.
    var failure: TransportError?
  }

  private let state: Locked<State>
  private let buffers = ChunkBuffers()

  init(_ decoder: ContentDecoder) {
    state = Locked(State(box: DecoderBox(decoder)))
  }

  /// Takes an encoded chunk to decode; call only once ``next()`` has answered `nil`.
  func feed(_ chunk: Data) {
    state.withLock { state in
      state.input = chunk
      state.inputOffset = 0
    }
  }

  /// The next decoded chunk, or `nil` once the encoded bytes held are used up (``feed(_:)`` the next ones).
  /// - Throws: ``TransportError`` with ``TransportError/Code/decodingFailed`` for a corrupt body, or
  ///   ``TransportError/Code/bodyTooLarge`` past the decompression limit.
  func next() throws(TransportError) -> Data? {
    try state.withLock { state -> Result<Data?, TransportError> in
      if let failure = state.failure { return .failure(failure) }
      while true {
        if let chunk = Self.dequeue(&state) { return .success(chunk) }
        guard state.inputOffset < state.input.count else { return .success(nil) }
        let input = state.input
        let start = state.inputOffset
        let end = min(start + Self.inputSlice, input.count)
        let decoder = state.box.decoder
        var failure: TransportError?
        input.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
          do throws(TransportError) {
            _ = try decoder.decode(UnsafeRawBufferPointer(rebasing: bytes[start..<end])) { output in
              append(output, to: &state)
              return .proceed
            }
          } catch {
            failure = error
          }
        }
        if let failure {
          state.failure = failure
          return .failure(failure)
        }
        state.inputOffset = end
        if end == input.count {
          // The held chunk is used up: what it decoded to goes out now, not after the next network round.
          state.input = Data()
          state.inputOffset = 0
          Self.queueOutput(&state)
        } else if let output = state.output, output.count - output.flushed >= BodyChannel.chunkSize / 2 {
          Self.queueOutput(&state)
        }
      }
    }.get()
  }

  /// Checks, at the end of the encoded body, that it was complete.
  /// - Throws: ``TransportError`` with ``TransportError/Code/decodingFailed`` for a truncated body.
  func finish() throws(TransportError) {
    try state.withLock { state -> Result<Void, TransportError> in
      if let failure = state.failure { return .failure(failure) }
      do throws(TransportError) {
        try state.box.decoder.finish()
        return .success(())
      } catch {
        state.failure = error
        return .failure(error)
      }
    }.get()
  }

  /// Copies decoded bytes into the output buffer, queueing each buffer as it fills.
  private func append(_ bytes: UnsafeRawBufferPointer, to state: inout State) {
    var rest = bytes
    while !rest.isEmpty {
      if state.output == nil, let lease = buffers.take() {
        state.output = (lease, 0, 0)
      }
      guard let (lease, flushed, count) = state.output, let base = UnsafeMutableRawPointer(bitPattern: lease.address)
      else {
        // No memory for a buffer: the bytes go out as a chunk of their own.
        state.ready.append(Data(rest))
        return
      }
      let piece = min(rest.count, ChunkBuffers.size - count)
      (base + count).copyMemory(from: rest.baseAddress!, byteCount: piece)
      state.output = (lease, flushed, count + piece)
      rest = UnsafeRawBufferPointer(rebasing: rest[piece...])
      if count + piece == ChunkBuffers.size { Self.queueOutput(&state) }
    }
  }

  /// Queues the decoded bytes not handed out yet; a full buffer is let go.
  private static func queueOutput(_ state: inout State) {
    guard let (lease, flushed, count) = state.output else { return }
    if count > flushed { state.ready.append(lease.chunk(from: flushed, count: count - flushed)) }
    state.output = count == ChunkBuffers.size ? nil : (lease, count, count)
  }

  private static func dequeue(_ state: inout State) -> Data? {
    guard state.readyHead < state.ready.count else { return nil }
    var chunk = Data()
    swap(&chunk, &state.ready[state.readyHead])
    state.readyHead += 1
    if state.readyHead == state.ready.count {
      state.ready.removeAll(keepingCapacity: true)
      state.readyHead = 0
    }
    return chunk
  }
}
