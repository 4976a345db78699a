import Foundation
import HTTPTypes
import MalibuTestSupport
import MalibuTransport
import Testing

@testable import MalibuCurl

extension CurlTests {
  /// Transfers beyond what the connections can start wait in the transport, without an easy handle; their deadlines
  /// run and they can be cancelled while they wait. The server's `/stall-head` keeps a connection busy until the
  /// client leaves.
  @Suite struct Admitting {
    /// Two connections to the test server in all.
    static let configuration = CurlTransport.Configuration(maximumConnections: 2, maximumConnectionsPerHost: 2)

    /// Starts a request to `path` in a task of its own; its outcome: `nil` on success, else the error code.
    func start(
      _ path: String,
      on transport: CurlTransport,
      _ server: TestServer,
      options: TransferOptions = .init()
    ) -> Task<TransportError.Code?, Never> {
      Task {
        await errorCode {
          _ = try await transport.data(for: request(server.url(path)), body: nil, options: options, upTo: 1 << 20)
        }
      }
    }

    /// Waits until `condition` holds (the loop thread updates the counters it reads), for at most ~20 s.
    func eventually(_ condition: () -> Bool) async throws {
      for _ in 0..<2000 where !condition() {
        try await Task.sleep(for: .milliseconds(10))
      }
    }

    @Test func waitingTransfersHoldNoEasyHandle() async throws {
      try await withServer(configuration: Self.configuration) { server, transport in
        let tasks = (0..<6).map { _ in start("/stall-head", on: transport, server) }
        try await eventually { transport.transfersWaiting == 4 && transport.easyHandlesHeld == 2 }
        #expect(transport.transfersWaiting == 4)
        #expect(transport.easyHandlesHeld == 2)
        for task in tasks { task.cancel() }
        for task in tasks { #expect(await task.value == .cancelled) }
        try await eventually { transport.easyHandlesHeld == 0 }
        #expect(transport.easyHandlesHeld == 0)
        #expect(transport.transfersWaiting == 0)
      }
    }

    @Test func aWaitingTransferStartsWhenAConnectionIsFreeAndTheOrderIsKept() async throws {
      try await withServer(configuration: Self.configuration) { server, transport in
        let stalled = (0..<2).map { _ in start("/stall-head", on: transport, server) }
        try await eventually { transport.easyHandlesHeld == 2 }
        let waiting = start("/bytes?size=1000", on: transport, server)
        try await eventually { transport.transfersWaiting == 1 }
        #expect(transport.transfersWaiting == 1)
        stalled[0].cancel()
        #expect(await stalled[0].value == .cancelled)
        #expect(await waiting.value == nil)
        stalled[1].cancel()
        #expect(await stalled[1].value == .cancelled)
      }
    }

    @Test func cancellingAWaitingTransferEndsItAtOnce() async throws {
      try await withServer(configuration: Self.configuration) { server, transport in
        let stalled = (0..<2).map { _ in start("/stall-head", on: transport, server) }
        try await eventually { transport.easyHandlesHeld == 2 }
        let waiting = start("/bytes?size=1000", on: transport, server)
        try await eventually { transport.transfersWaiting == 1 }
        waiting.cancel()
        #expect(await waiting.value == .cancelled)
        #expect(transport.transfersWaiting == 0)
        // The running ones were not touched.
        #expect(transport.easyHandlesHeld == 2)
        for task in stalled { task.cancel() }
        for task in stalled { #expect(await task.value == .cancelled) }
      }
    }

    @Test func aWaitingTransferTimesOutWithItsTotalTimeout() async throws {
      try await withServer(configuration: Self.configuration) { server, transport in
        let stalled = (0..<2).map { _ in start("/stall-head", on: transport, server) }
        try await eventually { transport.easyHandlesHeld == 2 }
        var options = TransferOptions()
        options.timeouts = MalibuTransport.Timeouts(connect: nil, idle: nil, total: .milliseconds(200))
        let waiting = start("/bytes?size=1000", on: transport, server, options: options)
        #expect(await waiting.value == .totalTimeout)
        #expect(transport.transfersWaiting == 0)
        #expect(transport.easyHandlesHeld == 2)
        for task in stalled { task.cancel() }
        for task in stalled { #expect(await task.value == .cancelled) }
      }
    }

    @Test func shutdownEndsTheWaitingTransfersToo() async throws {
      let server = try TestServer(echo: .body)
      defer { server.stop() }
      let transport = CurlTransport(configuration: Self.configuration)
      let tasks = (0..<5).map { _ in start("/stall-head", on: transport, server) }
      try await eventually { transport.transfersWaiting == 3 }
      #expect(transport.transfersWaiting == 3)
      transport.shutdown()
      for task in tasks { #expect(await task.value == .cancelled) }
      #expect(transport.transfersWaiting == 0)
      #expect(transport.easyHandlesHeld == 0)
    }
  }
}
