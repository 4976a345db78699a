import Foundation
@_spi(Malibu) import MalibuCore

/// The reading side of a ``BodyChannel`` whose body is encoded (gzip, deflate): the task that reads the body
/// inflates it, so that the transport's thread only receives. On a fast network the two run on two cores at once
/// instead of one after the other; the transport's thread no longer spends a decompression's time per round.
///
/// The channel queues the encoded bytes as they arrive (its back-pressure counts them); ``next()`` inflates the
/// chunk it holds in slices of ``inputSlice`` bytes, so that one call never decodes more than a slice's output (a
/// decompression bomb's slice is bounded by zlib's ratio and the decompression limit). Decoded bytes fill recycled
/// buffers (a ``ChunkQueue``), handed out as a slice each time a buffer is full or the held chunk is used up. One reader at a time: the
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
    /// The decoded chunks to hand out, and the recycled buffer being filled.
    var output = ChunkQueue()
    /// The error decoding failed with; every later read throws it again.
    var failure: TransportError?
  }

  private let state: Locked<State>

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
        if let chunk = state.output.popFirst() { return .success(chunk) }
        guard state.inputOffset < state.input.count else { return .success(nil) }
        let input = state.input
        let start = state.inputOffset
        let end = min(start + Self.inputSlice, input.count)
        let decoder = state.box.decoder
        var failure: TransportError?
        input.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
          do throws(TransportError) {
            _ = try decoder.decode(UnsafeRawBufferPointer(rebasing: bytes[start..<end])) { output in
              let copied = state.output.write(output)
              if copied < output.count {  // no memory for a buffer: the rest goes out as a chunk of its own
                state.output.append(Data(UnsafeRawBufferPointer(rebasing: output[copied...])))
              }
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
          state.output.flush()
        } else if state.output.unqueuedBytes >= BodyChannel.chunkSize / 2 {
          state.output.flush()
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
}
