#if Lifecycle
import Foundation
import HTTPTypes
import Malibu
import MalibuLifecycle
import MalibuTestSupport
import ServiceLifecycle
import ServiceLifecycleTestKit
import Testing

extension LifecycleTests {
  /// `MalibuService` under a triggered graceful shutdown, without signals.
  @Suite struct Service {
    /// The service runs until the graceful shutdown, then drains: the running request completes, a new one is
    /// refused, and `run()` returns once nothing runs.
    @Test func gracefulShutdownDrainsTheParts() async throws {
      let server = try TestServer(echo: .body)
      defer { server.stop() }
      let transport = CurlTransport()
      let networking = Networking<TestEndpoint>(transport: .custom(transport))
      let service = MalibuService([networking, transport], gracePeriod: .seconds(60))
      try await testGracefulShutdown { trigger in
        let running = Task { await service.run() }
        let request = networking.request(.get(server.url("/drip?chunks=6&size=500&delay=50")))
        try await waitForRequest(to: "/drip", on: server)
        #expect(!networking.isShutDown)  // nothing drains before the shutdown
        trigger.triggerGracefulShutdown()
        await running.value
        #expect(try await request.value.data == pattern(3000))
        let code = await failureCode { _ = try await networking.request(.get(server.url("/bytes"))).value }
        #expect(code == "shutDown")
        let transportCode = await failureCode {
          _ = try await transport.data(for: HTTPRequest(method: .get, url: server.url("/bytes")))
        }
        #expect(transportCode == "shutDown")
      }
      try await expectNoConnectionLeft(on: server)
    }

    /// Cancelled instead (the group's cancellation), the service cancels what runs at once.
    @Test func cancellationCancelsAtOnce() async throws {
      let server = try TestServer(echo: .body)
      defer { server.stop() }
      let transport = CurlTransport()
      let networking = Networking<TestEndpoint>(transport: .custom(transport))
      let service = MalibuService([networking, transport], gracePeriod: .seconds(600))
      try await testGracefulShutdown { _ in
        let running = Task { await service.run() }
        let stalled = networking.request(.get(server.url("/stall-body?size=100000&sent=10")))
        try await waitForRequest(to: "/stall-body", on: server)
        running.cancel()
        await running.value
        let code = await failureCode { _ = try await stalled.value }
        #expect(code == "cancelled")
      }
      try await expectNoConnectionLeft(on: server)
    }
  }
}
#endif
