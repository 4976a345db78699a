import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuCore
import MalibuGzip
import MalibuTestSupport
import MalibuTransport
import Testing

@testable import MalibuURLSession

extension URLSessionTransportTests {
  @Suite struct Bodies {
    @Test(arguments: [1, 100 * 1024, 3 << 20])
    func dataBodyIsByteExact(size: Int) async throws {
      let fixture = try Fixture()
      let body = pattern(size)
      _ = try await fixture.fetch(fixture.request(.put, "/echo"), body: .data(body))
      let received = try #require(fixture.last)
      #expect(received.body == body)
      #expect(received.value("Content-Length") == String(size))
      #expect(!received.wasChunked)
    }

    @Test func fileBodyIsByteExactWithItsLength() async throws {
      let fixture = try Fixture()
      let url = FileManager.default.temporaryDirectory.appendingPathComponent("malibu-test-\(UUID().uuidString)")
      let body = pattern(5 << 20 + 17)
      try body.write(to: url)
      defer { try? FileManager.default.removeItem(at: url) }
      _ = try await fixture.fetch(fixture.request(.post, "/echo"), body: try .file(url))
      let received = try #require(fixture.last)
      #expect(received.body == body)
      #expect(received.value("Content-Length") == String(body.count))
      #expect(!received.wasChunked)
    }

    /// A source of known length is sent with that length (spooled first on Linux, see the catalog).
    @Test(arguments: [10_000, 2 << 20])
    func sourceOfKnownLengthKeepsItsLength(size: Int) async throws {
      let fixture = try Fixture()
      let body = pattern(size)
      let source = MemorySource(data: body, announcesLength: true)
      _ = try await fixture.fetch(fixture.request(.post, "/echo"), body: .source(source))
      let received = try #require(fixture.last)
      #expect(received.body == body)
      #expect(received.value("Content-Length") == String(size))
      #expect(!received.wasChunked)
      let leftovers = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())
        .filter { $0.hasPrefix("malibu-upload-") }
      #expect(leftovers.isEmpty)
    }

    @Test func sourceOfUnknownLengthIsSentChunked() async throws {
      let fixture = try Fixture()
      let body = pattern(300_000)
      _ = try await fixture.fetch(
        fixture.request(.post, "/echo"),
        body: .source(MemorySource(data: body, announcesLength: false))
      )
      let received = try #require(fixture.last)
      #expect(received.body == body)
      #expect(received.wasChunked)
    }

    /// On Linux a streamed body is read to the end before the request starts (FoundationNetworking would read it on a
    /// queue all its sessions share), so its length is known and sent; Apple platforms stream it chunked.
    @Test(arguments: [200_000, 3 << 20])
    func streamOfUnknownLengthIsByteExact(size: Int) async throws {
      let fixture = try Fixture()
      let body = pattern(size)
      let stream = chunks(of: body, size: 10_000, delay: .milliseconds(1))
      _ = try await fixture.fetch(fixture.request(.put, "/echo"), body: .stream(stream, length: nil))
      let received = try #require(fixture.last)
      #expect(received.body == body)
      #if canImport(FoundationNetworking)
      #expect(!received.wasChunked)
      #expect(received.value("Content-Length") == String(size))
      #else
      #expect(received.wasChunked)
      #endif
    }

    @Test(arguments: [5000, 1 << 21])
    func streamOfKnownLengthIsSentWithIt(size: Int) async throws {
      let fixture = try Fixture()
      let body = pattern(size)
      let stream = chunks(of: body, size: 65_536)
      _ = try await fixture.fetch(
        fixture.request(.post, "/echo"),
        body: .stream(stream, length: UInt64(size))
      )
      let received = try #require(fixture.last)
      #expect(received.body == body)
      #expect(received.value("Content-Length") == String(size))
    }

    @Test func streamThatBreaksItsLengthIsInvalid() async throws {
      let fixture = try Fixture()
      let stream = chunks(of: pattern(100), size: 10)
      let error = await transportError {
        _ = try await fixture.fetch(fixture.request(.post, "/echo"), body: .stream(stream, length: 200))
      }
      #expect(error?.code == .invalidRequest)
      #expect(fixture.server.requests.isEmpty)
    }

    /// A streamed body waits for its producer; other transfers of the transport are not held up meanwhile.
    @Test func slowStreamDoesNotHoldUpOtherRequests() async throws {
      let fixture = try Fixture()
      let slow = AsyncThrowingStream<Data, any Error> { continuation in
        continuation.yield(Data("first".utf8))
        let task = Task {
          try? await Task.sleep(for: .seconds(30))
          continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
      }
      let upload = Task {
        try await fixture.fetch(fixture.request(.post, "/echo?slow"), body: .stream(slow, length: nil))
      }
      for _ in 0..<5 {
        let response = try await fixture.fetch(fixture.request(.get, "/bytes?size=10"))
        #expect(response.body == pattern(10))
      }
      upload.cancel()
      let error = await transportError { _ = try await upload.value }
      #expect(error?.code == .cancelled)
      #if canImport(FoundationNetworking)
      #expect(!fixture.server.requests.contains { $0.target == "/echo?slow" })
      #endif
    }

    @Test func requestCompressionSendsGzipChunked() async throws {
      let fixture = try Fixture()
      let body = Data(String(repeating: "compress me please ", count: 5000).utf8)
      var options = TransferOptions()
      options.requestCompression = .gzip
      let payloads = [
        RequestBody.data(body), .source(MemorySource(data: body, announcesLength: true)),
        .stream(chunks(of: body, size: 4096), length: nil),
      ]
      for payload in payloads {
        _ = try await fixture.fetch(fixture.request(.post, "/echo"), body: payload, options: options)
        let received = try #require(fixture.last)
        #expect(received.value("Content-Encoding") == "gzip")
        #expect(received.wasChunked)
        #expect(received.body.count < body.count / 10)
        #expect(try Gzip.inflate(received.body) == body)
      }
    }

    /// Reads are handed to a streaming reader in batches, yet none is held back once the server goes quiet: the reader
    /// gets every byte sent so far while the transfer is still alive (a byte held back would arrive only as the idle
    /// timeout ends the body, and the reader's cancel would then find the body ended by that timeout).
    @Test(arguments: [100, 16 << 10, 64 << 10, 300_000])
    func aStreamingReaderGetsEveryByteSentBeforeTheServerFallsSilent(sent: Int) async throws {
      let fixture = try Fixture()
      let response = try await fixture.transport.send(
        fixture.request(.get, "/stall-body?size=1000000&sent=\(sent)"),
        body: nil,
        options: timeouts(idle: .seconds(20))
      )
      var iterator = response.body.makeAsyncIterator()
      var received = Data()
      while received.count < sent, let chunk = try await iterator.next() { received.append(chunk) }
      #expect(received == pattern(sent))
      response.body.cancel()
      let error = await transportError {
        while try await iterator.next() != nil {}
      }
      #expect(error?.code == .cancelled)
      #expect(try await fixture.fetch(fixture.request(.get, "/bytes?size=8")).body == pattern(8))
    }

    // A caller collecting a body (`data(for:)`) that never completes: whatever ends the transfer first — a timeout,
    // the caller's cancellation, the limit — reaches it at once, and the transport keeps serving.

    /// A body that stops (its length announced, so the idle timeout ends it), and a body of unknown length that
    /// outgrows the limit and then stops (it fails as soon as it outgrows it, not when the server goes quiet: the code
    /// says which). Under ThreadSanitizer the pair takes about 50 s, hence the limit of 2 minutes.
    @Test(
      .timeLimit(.minutes(2)),
      arguments: [
        ("/stall-body?size=1000&sent=100", Duration.milliseconds(300), 256 << 20, TransportError.Code.idleTimeout),
        ("/stall-chunked?sent=5000", Duration.seconds(30), 1000, TransportError.Code.bodyTooLarge),
      ]
    )
    func aCollectingCallerGetsWhatEndsABodyThatStops(
      path: String,
      idle: Duration,
      limit: Int,
      code: TransportError.Code
    ) async throws {
      let fixture = try Fixture()
      let error = await transportError {
        _ = try await fixture.fetch(fixture.request(.get, path), options: timeouts(idle: idle), limit: limit)
      }
      #expect(error?.code == code)
      let whole = try await fixture.fetch(fixture.request(.get, "/bytes?size=\(6 << 20)"), limit: 6 << 20)
      #expect(whole.body == pattern(6 << 20))
    }

    @Test(.timeLimit(.minutes(1))) func aCollectingCallerThatCancelsIsAnsweredAtOnce() async throws {
      let fixture = try Fixture()
      let request = fixture.request(.get, "/stall-body?size=1000&sent=100")
      let fetch = Task { try await fixture.fetch(request) }
      while fixture.server.requests.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
      try await Task.sleep(for: .milliseconds(100))  // the head and the first bytes are in
      fetch.cancel()
      let error = await transportError { _ = try await fetch.value }
      #expect(error?.code == .cancelled)
      #expect(try await fixture.fetch(fixture.request(.get, "/bytes?size=8")).body == pattern(8))
    }

    @Test func failingSourceEndsTheTransferAsInvalidRequest() async throws {
      let fixture = try Fixture()
      let source = MemorySource(data: pattern(500_000), announcesLength: false, failAfter: 100_000)
      let error = await transportError {
        _ = try await fixture.fetch(fixture.request(.post, "/echo"), body: .source(source))
      }
      #expect(error?.code == .invalidRequest)
      #expect(error?.underlyingError is MemorySource.Broken)
      let after = try await fixture.fetch(fixture.request(.get, "/bytes?size=5"))
      #expect(after.body == pattern(5))
    }

    @Test func uploadProgressIsMonotonicAndComplete() async throws {
      let fixture = try Fixture()
      let body = pattern(4 << 20)
      let seen = Locked<[TransferProgress]>([])
      var options = TransferOptions()
      options.progress = { progress in seen.withLock { $0.append(progress) } }
      _ = try await fixture.fetch(fixture.request(.post, "/sink"), body: .data(body), options: options)
      let values = seen.withLock { $0 }
      #expect(!values.isEmpty)
      #expect(
        zip(values, values.dropFirst()).allSatisfy { $0.uploaded <= $1.uploaded && $0.downloaded <= $1.downloaded }
      )
      #expect(values.last?.uploaded == Int64(body.count))
      #expect(values.last?.uploadTotal == Int64(body.count))
    }
  }
}
