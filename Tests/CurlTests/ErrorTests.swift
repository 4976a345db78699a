import Foundation
import HTTPTypes
import MalibuTestSupport
import MalibuTransport
import Testing

@testable import MalibuCurl

extension CurlTests {
  @Suite struct Failures {
    @Test func cancellingBeforeTheHeadEndsTheCallAtOnce() async throws {
      try await withServer { server, transport in
        for collect in [false, true] {
          let task = Task {
            if collect {
              _ = try await transport.data(
                for: request(server.url("/stall-head")),
                body: nil,
                options: .init(),
                upTo: 100
              )
            } else {
              _ = try await transport.send(request(server.url("/stall-head")), body: nil, options: .init())
            }
          }
          while server.openConnections == 0 { try await Task.sleep(for: .milliseconds(5)) }
          task.cancel()
          let code = await errorCode { try await task.value }
          #expect(code == .cancelled)
          await server.waitForIdle()
          #expect(server.openConnections == 0)
        }
        try await expectServes(transport, server)
      }
    }

    @Test func cancellingMidBodyReleasesTheConnection() async throws {
      try await withServer { server, transport in
        let response = try await transport.send(
          request(server.url("/stall-body?size=100000&sent=5000")),
          body: nil,
          options: .init()
        )
        let reader = Task {
          var total = 0
          for try await chunk in response.body { total += chunk.count }
          return total
        }
        try await Task.sleep(for: .milliseconds(50))
        reader.cancel()
        let code = await errorCode { _ = try await reader.value }
        #expect(code == .cancelled)
        await server.waitForIdle()
        #expect(server.openConnections == 0)
        try await expectServes(transport, server)
      }
    }

    @Test func droppingTheBodyReleasesTheConnection() async throws {
      try await withServer { server, transport in
        do {
          let response = try await transport.send(
            request(server.url("/stall-body?size=100000&sent=5000")),
            body: nil,
            options: .init()
          )
          #expect(response.head.status.code == 200)
        }
        await server.waitForIdle()
        #expect(server.openConnections == 0)
        try await expectServes(transport, server)
      }
    }

    @Test func alreadyCancelledTasksSendNothing() async throws {
      try await withServer { server, transport in
        let task = Task {
          withUnsafeCurrentTask { $0?.cancel() }
          _ = try await transport.data(for: request(server.url("/echo")), body: nil, options: .init(), upTo: 100)
        }
        #expect(await errorCode { try await task.value } == .cancelled)
        #expect(server.acceptedConnections == 0)
      }
    }

    @Test func refusedPort() async throws {
      let transport = CurlTransport()
      defer { transport.shutdown() }
      let code = await errorCode {
        _ = try await transport.data(
          for: request(URL(string: "http://127.0.0.1:\(closedPort())/")!),
          body: nil,
          options: .init(),
          upTo: 100
        )
      }
      #expect(code == .connectionRefused)
    }

    @Test func unresolvableHost() async throws {
      try await withServer { server, transport in
        var message = ""
        let code = await errorCode {
          do {
            _ = try await transport.data(
              for: request(URL(string: "http://nothing.invalid/")!),
              body: nil,
              options: .init(),
              upTo: 100
            )
          } catch let error as TransportError {
            message = error.message
            throw error
          }
        }
        #expect(code == .dnsFailure)
        #expect(message.contains("nothing.invalid"))
        try await expectServes(transport, server)
      }
    }

    @Test(arguments: ["/a\r\nX-Injected: 1", "/a b", "/a\0b"])
    func invalidPathsFailBeforeAnythingIsSent(path: String) async throws {
      try await withServer { server, transport in
        let bad = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(server.port)", path: path)
        let code = await errorCode { _ = try await transport.send(bad, body: nil, options: .init()) }
        #expect(code == .invalidRequest)
        #expect(server.acceptedConnections == 0)
      }
    }

    /// A URL past 64 KiB is refused before anything is sent, with its length and the limit (libcurl would say "Out
    /// of memory" for a 1 MiB one); one of exactly the limit goes out, and the transport then serves a good request.
    @Test func aURLTooLongFailsBeforeAnythingIsSent() async throws {
      try await withServer { server, transport in
        let base = server.url("/echo?q=").absoluteString
        let long = URL(string: base + String(repeating: "a", count: 1 << 20))!
        var message = ""
        let code = await errorCode {
          do {
            _ = try await transport.data(for: request(long), body: nil, options: .init(), upTo: 100)
          } catch let error as TransportError {
            message = error.message
            throw error
          }
        }
        #expect(code == .invalidRequest)
        #expect(message == "URL too long (\(base.utf8.count + (1 << 20)) bytes, limit 65536)")
        #expect(server.acceptedConnections == 0)

        let atLimit = URL(string: base + String(repeating: "a", count: 65536 - base.utf8.count))!
        let (head, _, _) = try await transport.data(for: request(atLimit), body: nil, options: .init(), upTo: 1 << 20)
        #expect(head.status.code == 200)
        #expect(server.lastRequest?.target.utf8.count == 65536 - "http://127.0.0.1:\(server.port)".utf8.count)
        try await expectServes(transport, server)
      }
    }

    @Test func invalidURLsFail() async throws {
      let transport = CurlTransport()
      defer { transport.shutdown() }
      let requests = [
        HTTPRequest(method: .get, scheme: "ftp", authority: "127.0.0.1", path: "/"),
        HTTPRequest(method: .get, scheme: "http", authority: nil, path: "/"),
        HTTPRequest(method: .get, scheme: "http", authority: "user@127.0.0.1", path: "/"),
        HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1\r\nX: y", path: "/"),
        HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1", path: "relative"),
      ]
      for bad in requests {
        #expect(await errorCode { _ = try await transport.send(bad, body: nil, options: .init()) } == .invalidRequest)
      }
    }

    @Test func serverClosingMidBodyIsConnectionReset() async throws {
      try await withServer { server, transport in
        let path = "/close-mid?size=100000&sent=40000"
        let collected = await errorCode {
          _ = try await transport.data(for: request(server.url(path)), body: nil, options: .init(), upTo: 1 << 20)
        }
        #expect(collected == .connectionReset)
        let streamed = await errorCode {
          let response = try await transport.send(request(server.url(path)), body: nil, options: .init())
          for try await _ in response.body {}
        }
        #expect(streamed == .connectionReset)
        try await expectServes(transport, server)
      }
    }

    @Test func shutdownCancelsTransfersAndRefusesNewOnes() async throws {
      let server = try TestServer(echo: .body)
      defer { server.stop() }
      let transport = CurlTransport()
      let pending = Task {
        try await transport.data(for: request(server.url("/stall-head")), body: nil, options: .init(), upTo: 100)
      }
      while server.openConnections == 0 { try await Task.sleep(for: .milliseconds(5)) }
      transport.shutdown()
      #expect(await errorCode { _ = try await pending.value } == .cancelled)
      transport.shutdown()
      let later = await errorCode {
        _ = try await transport.data(for: request(server.url("/echo")), body: nil, options: .init(), upTo: 100)
      }
      #expect(later == .cancelled)
      // This transport's own thread: other suites' transports run in the same process meanwhile (the process-wide
      // count is checked in the serial Resources suite).
      #expect(!transport.loopThreadRunning)
    }
  }
}
