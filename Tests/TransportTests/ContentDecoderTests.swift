import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuCore
import MalibuGzip
import MalibuTransport
import Synchronization
import Testing

@Suite("Content decoding")
struct ContentDecoderTests {
  private static let text = Data(String(repeating: "Malibu surf club, ", count: 5000).utf8)

  private func headers(_ encoding: String?, length: Int? = nil) -> HTTPFields {
    var fields = HTTPFields()
    if let encoding { fields[.contentEncoding] = encoding }
    if let length { fields[.contentLength] = String(length) }
    fields[.contentType] = "text/plain"
    return fields
  }

  /// Writes `encoded` into a channel that decodes on the reading side, as a streamed transfer does, `chunk` bytes a
  /// round, and reads it back: collected, or chunk by chunk. Without `ending`, the producer is still running while
  /// the body is read (it has written everything but not finished), so that the reader's errors must stop it.
  private func decode(
    _ encoded: Data,
    encoding: String,
    limit: Int? = nil,
    chunk: Int = 1000,
    streamed: Bool = false,
    ending: Bool = true,
    stopped: Stopped = Stopped()
  ) async throws -> Data {
    let decoder = try #require(ContentDecoder(headers: headers(encoding), decompression: .enabled(limit: limit)))
    let channel = BodyChannel(expectedLength: nil, decoder: decoder)
    channel.setHandlers(onDemand: {}, onCancel: { stopped.set() })
    var offset = 0
    while offset < encoded.count {
      let end = min(offset + chunk, encoded.count)
      #expect(encoded[offset..<end].withUnsafeBytes { channel.write($0) } != .stop)
      channel.flush()
      offset = end
    }
    if ending { channel.finish(nil) }
    let body = ResponseBody(channel: channel)
    guard streamed else { return try await body.collect(upTo: .max) }
    var data = Data()
    for try await piece in body {
      #expect(piece.count <= BodyChannel.chunkSize)
      data.append(piece)
    }
    return data
  }

  /// Whether the reading side told the producer to stop.
  final class Stopped: Sendable {
    private let flag = Locked(false)
    func set() { flag.withLock { $0 = true } }
    var isSet: Bool { flag.withLock { $0 } }
  }

  @Test(arguments: [
    ("gzip", Deflater.Format.gzip), ("x-gzip", .gzip), ("GZIP", .gzip), ("deflate", .zlib), ("deflate", .rawDeflate),
    ("identity, gzip", .gzip),
  ])
  func decodesSupportedCodings(_ encoding: String, _ format: Deflater.Format) async throws {
    let encoded = try Gzip.deflate(Self.text, format: format)
    #expect(try await decode(encoded, encoding: encoding) == Self.text)
    #expect(try await decode(encoded, encoding: encoding, streamed: true) == Self.text)
  }

  @Test func aLargeStreamedBodyIsDecodedInChunksOfAtMostChunkSize() async throws {
    // 12 MiB of text in 256 KiB rounds: the reader decodes each round's bytes in slices and hands out each buffer.
    var text = Data()
    for line in 0..<(12 << 20) / 64 {
      text.append(contentsOf: String(format: "%063d\n", line).utf8)
    }
    let encoded = try Gzip.deflate(text, format: .gzip)
    #expect(try await decode(encoded, encoding: "gzip", chunk: 256 << 10, streamed: true) == text)
  }

  @Test(arguments: ["br", "zstd", "gzip, br", "identity", ""])
  func leavesOtherCodingsAlone(_ encoding: String) {
    #expect(ContentDecoder(headers: headers(encoding), decompression: .enabled(limit: nil)) == nil)
    let fields = ContentDecoder.decodedHeaders(headers(encoding, length: 10), decompression: .enabled(limit: nil))
    #expect(fields[.contentLength] == "10")
  }

  @Test func disabledDecompressionPassesBodiesThrough() {
    #expect(ContentDecoder(headers: headers("gzip"), decompression: .disabled) == nil)
    let fields = ContentDecoder.decodedHeaders(headers("gzip", length: 10), decompression: .disabled)
    #expect(fields[.contentEncoding] == "gzip")
    #expect(ContentDecoder.expectedLength(headers("gzip", length: 10), decompression: .disabled) == 10)
  }

  @Test func decodedHeadersDescribeTheDecodedBody() {
    let fields = ContentDecoder.decodedHeaders(headers("gzip", length: 123), decompression: .enabled(limit: nil))
    #expect(fields[.contentEncoding] == nil)
    #expect(fields[.contentLength] == nil)
    #expect(fields[.contentType] == "text/plain")
    #expect(ContentDecoder.expectedLength(headers("gzip", length: 123), decompression: .enabled(limit: nil)) == nil)
    #expect(ContentDecoder.expectedLength(headers(nil, length: 123), decompression: .enabled(limit: nil)) == 123)
  }

  @Test(arguments: [false, true])
  func truncatedBodyIsADecodingError(streamed: Bool) async throws {
    let encoded = try Gzip.deflate(Self.text, format: .gzip)
    await #expect {
      try await decode(encoded.prefix(encoded.count - 10), encoding: "gzip", streamed: streamed)
    } throws: { error in
      (error as? TransportError)?.code == .decodingFailed
    }
  }

  @Test(arguments: [false, true])
  func notGzipIsADecodingErrorThatStopsTheProducer(streamed: Bool) async throws {
    let stopped = Stopped()
    await #expect {
      try await decode(
        Data("<html>not gzip</html>".utf8),
        encoding: "gzip",
        streamed: streamed,
        ending: false,
        stopped: stopped
      )
    } throws: { error in
      (error as? TransportError)?.code == .decodingFailed
    }
    #expect(stopped.isSet)
  }

  @Test(arguments: [false, true])
  func bombBeyondTheLimitIsTooLargeAndStopsTheProducer(streamed: Bool) async throws {
    let stopped = Stopped()
    let bomb = try Gzip.deflate(Data(count: 20 << 20), format: .gzip)
    await #expect {
      try await decode(
        bomb,
        encoding: "gzip",
        limit: 1 << 20,
        chunk: 64 << 10,
        streamed: streamed,
        ending: false,
        stopped: stopped
      )
    } throws: { error in
      (error as? TransportError)?.code == .bodyTooLarge
    }
    #expect(stopped.isSet)
  }

  /// Decodes `encoded` straight through a decoder, `chunk` bytes at a time; returns how many bytes came out, or the
  /// error and how many came out before it.
  private func decodeDirectly(
    _ encoded: Data,
    _ decompression: Decompression,
    chunk: Int = 256 << 10
  ) throws -> (decoded: Int, error: TransportError?) {
    let decoder = try #require(ContentDecoder(headers: headers("gzip"), decompression: decompression))
    var decoded = 0
    var offset = 0
    do {
      while offset < encoded.count {
        let end = min(offset + chunk, encoded.count)
        _ = try encoded[offset..<end].withUnsafeBytes { bytes in
          try decoder.decode(bytes) { output in
            decoded += output.count
            return .proceed
          }
        }
        offset = end
      }
      try decoder.finish()
    } catch let error as TransportError {
      return (decoded, error)
    }
    return (decoded, nil)
  }

  /// Past 8 MiB decoded, a body may not decode to more than `maximumRatio` times the encoded bytes received: a bomb
  /// (zeros, about 1030:1) is refused after a few MiB of work, whatever the size limit and however it arrives.
  @Test(arguments: [8 << 10, 256 << 10, 4 << 20])
  func aBombPastTheRatioIsRefusedEarly(chunk: Int) throws {
    let bomb = try Gzip.deflate(Data(count: 64 << 20), format: .gzip)
    let (decoded, error) = try decodeDirectly(bomb, .enabled(limit: nil), chunk: chunk)
    let refusal = try #require(error)
    #expect(refusal.code == .bodyTooLarge)
    #expect(refusal.message.contains("1000 times its encoded size"))
    #expect(
      refusal.message.hasSuffix(
        "refused as a decompression bomb; to accept it, raise `TransferOptions.decompression`'s ratio "
          + "(`.enabled(limit:maximumRatio:)`, `nil` for no check)"
      )
    )
    #expect(decoded >= Decompression.ratioThreshold)
    #expect(decoded < 24 << 20)
    // Without a ratio the same bomb decodes whole.
    let (whole, noError) = try decodeDirectly(bomb, .enabled(limit: nil, maximumRatio: nil), chunk: chunk)
    #expect(noError == nil)
    #expect(whole == 64 << 20)
  }

  /// Bodies that compress well but not like a bomb pass: a small one whatever its ratio (below the threshold), and a
  /// large one below the ratio.
  @Test func bodiesBelowTheRatioOrTheThresholdPass() throws {
    let small = try Gzip.deflate(Data(count: 4 << 20), format: .gzip)
    let smallResult = try decodeDirectly(small, TransferOptions().decompression)
    #expect(smallResult.decoded == 4 << 20)
    #expect(smallResult.error == nil)
    // One byte in 32 varies: about 30:1.
    var sparse = Data(count: 32 << 20)
    sparse.withUnsafeMutableBytes { bytes in
      var state: UInt32 = 1
      for index in stride(from: 0, to: bytes.count, by: 32) {
        state = state &* 1_103_515_245 &+ 12_345
        bytes[index] = UInt8(truncatingIfNeeded: state >> 16)
      }
    }
    let encoded = try Gzip.deflate(sparse, format: .gzip)
    let sparseResult = try decodeDirectly(encoded, TransferOptions().decompression)
    #expect(sparseResult.decoded == 32 << 20)
    #expect(sparseResult.error == nil)
    // A stricter ratio refuses it.
    let (_, error) = try decodeDirectly(encoded, .enabled(limit: nil, maximumRatio: 10))
    #expect(error?.code == .bodyTooLarge)
  }

  @Test func aDecodedBodyIsCollectedOnceAndWithinItsLimit() async throws {
    let encoded = try Gzip.deflate(Self.text, format: .gzip)
    let decoder = try #require(ContentDecoder(headers: headers("gzip"), decompression: .enabled(limit: nil)))
    let channel = BodyChannel(expectedLength: nil, decoder: decoder)
    let stopped = Stopped()
    channel.setHandlers(onDemand: {}, onCancel: { stopped.set() })
    _ = encoded.withUnsafeBytes { channel.write($0) }
    channel.flush()  // the producer has not finished: collecting past the limit must stop it
    let body = ResponseBody(channel: channel)
    await #expect {
      try await body.collect(upTo: Self.text.count - 1)
    } throws: { error in
      (error as? TransportError)?.code == .bodyTooLarge
    }
    #expect(stopped.isSet)
    await #expect {
      try await body.collect(upTo: .max)
    } throws: { error in
      (error as? TransportError)?.code == .invalidRequest
    }
  }
}
