import Foundation
import HTTPTypes
import MalibuTestSupport
import MalibuTransport
import Testing

@testable import MalibuCurl

extension CurlTests {
  @Suite struct Timeouts {
    @Test func connectTimeoutWhileTheHandshakeHangs() async throws {
      let backlog = FullBacklog()
      let transport = CurlTransport()
      defer { transport.shutdown() }
      var options = TransferOptions()
      options.timeouts = MalibuTransport.Timeouts(connect: .milliseconds(150), idle: .milliseconds(50), total: nil)
      let code = await errorCode {
        _ = try await transport.data(
          for: request(URL(string: "http://127.0.0.1:\(backlog.port)/")!),
          body: nil,
          options: options,
          upTo: 100
        )
      }
      #expect(code == .connectTimeout)
    }

    @Test func idleTimeoutWhenTheServerStalls() async throws {
      try await withServer { server, transport in
        var options = TransferOptions()
        options.timeouts = MalibuTransport.Timeouts(connect: .seconds(5), idle: .milliseconds(150), total: nil)
        for path in ["/stall-head", "/stall-body?size=1000&sent=10"] {
          let code = await errorCode {
            _ = try await transport.data(for: request(server.url(path)), body: nil, options: options, upTo: 10_000)
          }
          #expect(code == .idleTimeout)
        }
        try await expectServes(transport, server)
      }
    }

    @Test func aSlowButSteadyServerIsNotIdle() async throws {
      try await withServer { server, transport in
        var options = TransferOptions()
        options.timeouts = MalibuTransport.Timeouts(connect: .seconds(5), idle: .milliseconds(400), total: nil)
        let (_, data, _) = try await transport.data(
          for: request(server.url("/drip?chunks=6&size=1&delay=100")),
          body: nil,
          options: options,
          upTo: 100
        )
        #expect(data == pattern(6))
      }
    }

    /// `idle` means no byte moving: a head that trickles in one byte every 300 ms, no line complete for several
    /// idle periods, is not idle; silence in the middle of a header line still is (an idle, not a total, timeout).
    @Test func aHeadThatTricklesInIsNotIdle() async throws {
      try await withServer { server, transport in
        var options = TransferOptions()
        options.timeouts = MalibuTransport.Timeouts(
          connect: .seconds(5),
          idle: .milliseconds(1200),
          total: .seconds(20)
        )
        // On a new connection, then on the same one reused.
        for _ in 0..<2 {
          let (head, data, _) = try await transport.data(
            for: request(server.url("/slow-head?delay=300")),
            body: nil,
            options: options,
            upTo: 100
          )
          #expect(head.status.code == 200)
          #expect(head.headerFields[HTTPField.Name("X-Slow")!] == "drip")
          #expect(data == Data("ok".utf8))
        }
        #expect(server.acceptedConnections == 1)

        options.timeouts.total = .seconds(10)
        let code = await errorCode {
          _ = try await transport.data(
            for: request(server.url("/slow-head?delay=100&stall")),
            body: nil,
            options: options,
            upTo: 100
          )
        }
        #expect(code == .idleTimeout)
        try await expectServes(transport, server)
      }
    }

    @Test func totalTimeoutAcrossTheWholeTransfer() async throws {
      try await withServer { server, transport in
        var options = TransferOptions()
        options.timeouts = MalibuTransport.Timeouts(connect: .seconds(5), idle: .seconds(5), total: .milliseconds(300))
        let code = await errorCode {
          _ = try await transport.data(
            for: request(server.url("/drip?chunks=100&size=1&delay=20")),
            body: nil,
            options: options,
            upTo: 1000
          )
        }
        #expect(code == .totalTimeout)
        let streamed = await errorCode {
          let response = try await transport.send(
            request(server.url("/drip?chunks=100&size=1&delay=20")),
            body: nil,
            options: options
          )
          for try await _ in response.body {}
        }
        #expect(streamed == .totalTimeout)
        try await expectServes(transport, server)
      }
    }

    @Test func timeWhileWePausedForAReaderIsNotIdle() async throws {
      try await withServer { server, transport in
        var options = TransferOptions()
        // An idle bound with room for a slow machine (ThreadSanitizer on two loaded cores once let the in-process
        // server go 1 s without writing after the reader came back), and a pause well past it.
        options.timeouts = MalibuTransport.Timeouts(connect: .seconds(5), idle: .seconds(3), total: nil)
        let size = 16 << 20
        let response = try await transport.send(request(server.url("/big?size=\(size)")), body: nil, options: options)
        var iterator = response.body.makeAsyncIterator()
        var total = try await iterator.next()?.count ?? 0
        try await Task.sleep(for: .milliseconds(6500))
        while let chunk = try await iterator.next() { total += chunk.count }
        #expect(total == size)
      }
    }
  }
}
