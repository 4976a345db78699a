import Foundation
import HTTPTypes
import MalibuCore
import MalibuGzip
import MalibuTransport
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

  private func decode(_ encoded: Data, encoding: String, limit: Int? = nil, chunk: Int = 1000) async throws -> Data {
    let decoder = try #require(ContentDecoder(headers: headers(encoding), decompression: .enabled(limit: limit)))
    let channel = BodyChannel(expectedLength: nil)
    var offset = 0
    do {
      while offset < encoded.count {
        let end = min(offset + chunk, encoded.count)
        let result = try encoded[offset..<end].withUnsafeBytes { try decoder.decode($0, into: channel) }
        #expect(result != .stop)
        offset = end
      }
      try decoder.finish()
      channel.finish(nil)
    } catch {
      channel.finish(error)
    }
    return try await ResponseBody(channel: channel).collect(upTo: .max)
  }

  @Test(arguments: [
    ("gzip", Deflater.Format.gzip), ("x-gzip", .gzip), ("GZIP", .gzip), ("deflate", .zlib), ("deflate", .rawDeflate),
    ("identity, gzip", .gzip),
  ])
  func decodesSupportedCodings(_ encoding: String, _ format: Deflater.Format) async throws {
    let encoded = try Gzip.deflate(Self.text, format: format)
    #expect(try await decode(encoded, encoding: encoding) == Self.text)
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

  @Test func truncatedBodyIsADecodingError() async throws {
    let encoded = try Gzip.deflate(Self.text, format: .gzip)
    await #expect {
      try await decode(encoded.prefix(encoded.count - 10), encoding: "gzip")
    } throws: { error in
      (error as? TransportError)?.code == .decodingFailed
    }
  }

  @Test func notGzipIsADecodingError() async throws {
    await #expect {
      try await decode(Data("<html>not gzip</html>".utf8), encoding: "gzip")
    } throws: { error in
      (error as? TransportError)?.code == .decodingFailed
    }
  }

  @Test func bombBeyondTheLimitIsTooLarge() async throws {
    let bomb = try Gzip.deflate(Data(count: 20 << 20), format: .gzip)
    await #expect {
      try await decode(bomb, encoding: "gzip", limit: 1 << 20, chunk: 64 << 10)
    } throws: { error in
      (error as? TransportError)?.code == .bodyTooLarge
    }
  }
}
