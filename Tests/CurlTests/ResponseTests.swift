import Foundation
import HTTPTypes
import MalibuGzip
import MalibuTestSupport
import MalibuTransport
import Testing

@testable import MalibuCurl

extension CurlTests {
  @Suite struct Responses {
    @Test(arguments: ["/bytes?size=300000", "/chunked?size=300000&chunk=7000"])
    func collectsAndStreamsBodies(path: String) async throws {
      try await withServer { server, transport in
        let (head, data, url) = try await transport.data(
          for: request(server.url(path)),
          body: nil,
          options: .init(),
          upTo: 1 << 20
        )
        #expect(head.status.code == 200)
        #expect(data == pattern(300_000))
        #expect(url == server.url(path))

        let response = try await transport.send(request(server.url(path)), body: nil, options: .init())
        var streamed = Data()
        for try await chunk in response.body { streamed.append(chunk) }
        #expect(streamed == pattern(300_000))
        #expect(response.body.expectedLength == (path.hasPrefix("/bytes") ? 300_000 : nil))
      }
    }

    @Test func headAndNoContentResponsesHaveEmptyBodies() async throws {
      try await withServer { server, transport in
        let (head, data, _) = try await transport.data(
          for: request(.head, server.url("/bytes?size=5000")),
          body: nil,
          options: .init(),
          upTo: 100
        )
        #expect(head.status.code == 200)
        #expect(head.headerFields[.contentLength] == "5000")
        #expect(data.isEmpty)
        let response = try await transport.send(request(server.url("/status?status=204")), body: nil, options: .init())
        #expect(response.head.status.code == 204)
        #expect(try await response.body.collect(upTo: 100).isEmpty)
      }
    }

    @Test func skipsInterimResponses() async throws {
      try await withServer { server, transport in
        let (head, data, _) = try await transport.data(
          for: request(server.url("/continue")),
          body: nil,
          options: .init(),
          upTo: 100
        )
        #expect(head.status.code == 200)
        #expect(head.headerFields[HTTPField.Name("Link")!] == nil)
        #expect(String(decoding: data, as: UTF8.self) == "after hints")
      }
    }

    @Test(arguments: [404, 500, 599])
    func returnsErrorStatusesAsResponses(status: Int) async throws {
      try await withServer { server, transport in
        let (head, data, _) = try await transport.data(
          for: request(server.url("/status?status=\(status)")),
          body: nil,
          options: .init(),
          upTo: 100
        )
        #expect(head.status.code == status)
        #expect(String(decoding: data, as: UTF8.self) == "status \(status)")
      }
    }

    @Test func collectBeyondTheLimitIsBodyTooLarge() async throws {
      try await withServer { server, transport in
        for path in ["/bytes?size=200000", "/chunked?size=200000&chunk=1000"] {
          let collected = await errorCode {
            _ = try await transport.data(for: request(server.url(path)), body: nil, options: .init(), upTo: 100_000)
          }
          #expect(collected == .bodyTooLarge)
          let streamed = await errorCode {
            let response = try await transport.send(request(server.url(path)), body: nil, options: .init())
            _ = try await response.body.collect(upTo: 100_000)
          }
          #expect(streamed == .bodyTooLarge)
          try await expectServes(transport, server)
        }
      }
    }

    @Test func decodesGzipBodies() async throws {
      try await withServer { server, transport in
        let (head, data, _) = try await transport.data(
          for: request(server.url("/gzip?size=500000")),
          body: nil,
          options: .init(),
          upTo: 1 << 20
        )
        #expect(data == pattern(500_000))
        #expect(head.headerFields[.contentEncoding] == nil)
        #expect(head.headerFields[.contentLength] == nil)

        let response = try await transport.send(request(server.url("/gzip?size=500000")), body: nil, options: .init())
        #expect(response.body.expectedLength == nil)
        var streamed = Data()
        for try await chunk in response.body { streamed.append(chunk) }
        #expect(streamed == pattern(500_000))

        var options = TransferOptions()
        options.decompression = .disabled
        let (rawHead, raw, _) = try await transport.data(
          for: request(server.url("/gzip?size=500000")),
          body: nil,
          options: options,
          upTo: 1 << 20
        )
        #expect(rawHead.headerFields[.contentEncoding] == "gzip")
        #expect(raw == gzipPattern(500_000))
      }
    }

    @Test(arguments: [
      ("/gzip-truncated?size=100000", TransportError.Code.decodingFailed),
      ("/not-gzip", .decodingFailed),
      ("/gzip-zeros?size=20000000", .bodyTooLarge),
    ])
    func badGzipBodiesFail(path: String, code: TransportError.Code) async throws {
      try await withServer { server, transport in
        var options = TransferOptions()
        options.decompression = .enabled(limit: 1 << 20)
        let collected = await errorCode {
          _ = try await transport.data(for: request(server.url(path)), body: nil, options: options, upTo: 100 << 20)
        }
        #expect(collected == code)
        let streamed = await errorCode {
          let response = try await transport.send(request(server.url(path)), body: nil, options: options)
          for try await _ in response.body {}
        }
        #expect(streamed == code)
        try await expectServes(transport, server)
      }
    }

    /// With the default options (no limit set by the caller), a gzip bomb is refused by the ratio guard after a few
    /// MiB, collected or streamed, and the transport then serves a good request.
    @Test func aBombIsRefusedByTheDefaultRatio() async throws {
      try await withServer { server, transport in
        let url = server.url("/gzip-zeros?size=\(64 << 20)")
        var message = ""
        let collected = await errorCode {
          do {
            _ = try await transport.data(for: request(url), body: nil, options: .init(), upTo: 1 << 30)
          } catch let error as TransportError {
            message = error.message
            throw error
          }
        }
        #expect(collected == .bodyTooLarge)
        #expect(message.contains("1000 times its encoded size"))
        let streamed = await errorCode {
          let response = try await transport.send(request(url), body: nil, options: .init())
          for try await _ in response.body {}
        }
        #expect(streamed == .bodyTooLarge)
        try await expectServes(transport, server)
      }
    }

    @Test func slowReadersHoldAtMostAboutHighWater() async throws {
      try await withServer { server, transport in
        let size = 64 << 20
        let consumed = Box(0)
        let peak = Box(0)
        var options = TransferOptions()
        options.progress = { progress in
          let held = Int(progress.downloaded) - consumed.value
          peak.update { $0 = max($0, held) }
        }
        let response = try await transport.send(
          request(server.url("/big?size=\(size)")),
          body: nil,
          options: options
        )
        var total = 0
        var chunks = 0
        for try await chunk in response.body {
          consumed.update { $0 += chunk.count }
          #expect(chunk.first == patternByte(at: total))
          total += chunk.count
          chunks += 1
          try await Task.sleep(for: .milliseconds(3))
        }
        #expect(total == size)
        // The channel pauses the transfer above its high-water mark; libcurl may finish the buffers of the round it
        // was in, and the measure also counts the chunk in the reader's hands, which can be a high-water mark of its
        // own. What matters: far below the 64 MiB body, whatever the load on the machine.
        #expect(chunks >= 8)
        #expect(peak.value <= 3 * BodyChannel.highWater, "held \(peak.value) bytes at the peak")
      }
    }
  }
}
