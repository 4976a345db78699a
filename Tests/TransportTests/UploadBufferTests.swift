import Foundation
@_spi(Malibu) import MalibuCore
import MalibuGzip
import MalibuTransport
import Synchronization
import Testing

@Suite("UploadBuffer and the upload sources")
struct UploadBufferTests {
  private struct Boom: Error {}

  private func read(_ source: any UploadSource, size: Int = 64) throws -> (UploadRead, Data) {
    var bytes = [UInt8](repeating: 0, count: size)
    let result = try bytes.withUnsafeMutableBytes { try source.read(into: $0) }
    if case .bytes(let count) = result { return (result, Data(bytes[0..<count])) }
    return (result, Data())
  }

  @Test func answersWaitThenNotifiesOnceWhenAChunkArrives() async throws {
    let calls = Locked(0)
    let buffer = UploadBuffer(onReadable: { calls.withLock { $0 += 1 } })
    #expect(try read(buffer).0 == .wait)
    try await buffer.deliver(Data("ab".utf8))
    try await buffer.deliver(Data("cd".utf8))
    #expect(calls.withLock { $0 } == 1)
    let (result, data) = try read(buffer)
    #expect(result == .bytes(4))
    #expect(String(decoding: data, as: UTF8.self) == "abcd")
    buffer.finish(nil)
    #expect(try read(buffer).0 == .end)
  }

  @Test func splitsChunksAcrossSmallReads() async throws {
    let buffer = UploadBuffer(onReadable: {})
    try await buffer.deliver(Data("hello".utf8))
    buffer.finish(nil)
    var collected = Data()
    while case (.bytes, let data) = try read(buffer, size: 2) { collected.append(data) }
    #expect(String(decoding: collected, as: UTF8.self) == "hello")
  }

  @Test func producerWaitsForSpace() async throws {
    let buffer = UploadBuffer(capacity: 4, onReadable: {})
    let delivered = Locked(0)
    let producer = Task {
      for _ in 0..<3 {
        try await buffer.deliver(Data("abcd".utf8))
        delivered.withLock { $0 += 1 }
      }
      buffer.finish(nil)
    }
    var collected = Data()
    while true {
      let (result, data) = try read(buffer, size: 3)
      if result == .end { break }
      if result == .wait {
        await Task.yield()
        continue
      }
      #expect(delivered.withLock { $0 } <= collected.count / 4 + 1)
      collected.append(data)
    }
    try await producer.value
    #expect(collected.count == 12)
  }

  @Test func failureComesAfterTheBufferedBytes() async throws {
    let buffer = UploadBuffer(onReadable: {})
    try await buffer.deliver(Data("ab".utf8))
    buffer.finish(Boom())
    buffer.finish(nil)
    #expect(try read(buffer).0 == .bytes(2))
    #expect(throws: Boom.self) { try read(buffer) }
  }

  @Test func cancelStopsProducerAndReader() async throws {
    let buffer = UploadBuffer(capacity: 1, onReadable: {})
    let producer = Task { try await buffer.deliver(Data("ab".utf8)) }
    await Task.yield()
    buffer.cancel()
    let error = await #expect(throws: TransportError.self) { try await producer.value }
    #expect(error?.code == .cancelled)
    #expect(throws: TransportError.self) { try read(buffer) }
    await #expect(throws: Boom.self) {
      let other = UploadBuffer(onReadable: {})
      other.cancel(Boom())
      try await other.deliver(Data("x".utf8))
    }
  }

  @Test func pumpReadsAStreamedBody() async throws {
    let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
    continuation.yield(Data("one ".utf8))
    continuation.yield(Data("two".utf8))
    continuation.finish()
    guard case .stream(let body) = RequestBody.stream(stream, length: nil).storage else {
      Issue.record("not a streamed body")
      return
    }
    let buffer = UploadBuffer(onReadable: {})
    await buffer.pump(body).value
    var collected = Data()
    while case (.bytes, let data) = try read(buffer) { collected.append(data) }
    #expect(String(decoding: collected, as: UTF8.self) == "one two")
    #expect(try read(buffer).0 == .end)
  }

  @Test func gzipFlushesWhatItHasWhenTheBodyWaits() async throws {
    let buffer = UploadBuffer(onReadable: {})
    let gzip = GzipUploadSource(buffer)
    try await buffer.deliver(Data("streamed text".utf8))
    var compressed = Data()
    while case (.bytes, let data) = try read(gzip) { compressed.append(data) }
    #expect(try read(gzip).0 == .wait)
    buffer.finish(nil)
    while case (.bytes, let data) = try read(gzip) { compressed.append(data) }
    let inflater = Inflater(format: .gzip)
    var plain = Data()
    try compressed.withUnsafeBytes { bytes in try inflater.inflate(bytes) { plain.append(contentsOf: $0) } }
    #expect(String(decoding: plain, as: UTF8.self) == "streamed text")
  }

  @Test func dataAndReaderSourcesEnd() throws {
    #expect(try read(DataUploadSource(Data())).0 == .end)
    let source = DataUploadSource(Data("xyz".utf8))
    #expect(try read(source).1 == Data("xyz".utf8))
    #expect(try read(source).0 == .end)
  }
}
