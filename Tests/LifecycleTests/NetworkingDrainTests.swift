#if Lifecycle
import Foundation
import HTTPTypes
import Malibu
import MalibuTestSupport
import Testing

extension LifecycleTests {
  /// `Networking.shutdown(gracePeriod:)` without signals.
  @Suite struct NetworkingDrain {
    /// A request that is transferring when the shutdown starts completes; one started after fails at once with
    /// `NetworkError` code `shutDown`, and so do a stream and a download; the shutdown returns with nothing in flight.
    @Test func startedRequestFinishesNewOnesAreRefused() async throws {
      let server = try TestServer(echo: .body)
      let transport = CurlTransport()
      defer {
        transport.shutdown()
        server.stop()
      }
      let networking = Networking<TestEndpoint>(transport: .custom(transport))
      let started = networking.request(.get(server.url("/drip?chunks=8&size=500&delay=50")))
      try await waitForRequest(to: "/drip", on: server)
      let shutdown = Task { await networking.shutdown(gracePeriod: .seconds(60)) }
      while !networking.isShutDown { await Task.yield() }

      let refused = networking.request(.get(server.url("/bytes?size=10")))
      await #expect {
        _ = try await refused.value
      } throws: { error in
        let error = error as? NetworkError
        return error?.code == .shutDown && error?.message.contains("shutting down") == true
      }
      let streamCode = await failureCode { _ = try await networking.stream(.get(server.url("/bytes?size=10"))) }
      #expect(streamCode == "shutDown")
      let file = FileManager.default.temporaryDirectory.appendingPathComponent("malibu-drain-\(UUID().uuidString)")
      let downloadCode = await failureCode {
        _ = try await networking.download(.get(server.url("/bytes?size=10")), to: file).value
      }
      #expect(downloadCode == "shutDown")
      #expect(!FileManager.default.fileExists(atPath: file.path))

      let response = try await started.value
      #expect(response.data == pattern(4000))
      await shutdown.value
      #expect(networking.inFlight == 0)
      #expect(server.requests.filter { $0.path == "/bytes" }.isEmpty)
    }

    /// A request that outlasts the grace period is cancelled after it (`NetworkError` code `cancelled`).
    @Test func requestOutlastingTheGracePeriodIsCancelled() async throws {
      let server = try TestServer(echo: .body)
      let transport = CurlTransport()
      defer {
        transport.shutdown()
        server.stop()
      }
      let networking = Networking<TestEndpoint>(transport: .custom(transport))
      let stalled = networking.request(.get(server.url("/stall-body?size=100000&sent=10")))
      try await waitForRequest(to: "/stall-body", on: server)
      await networking.shutdown(gracePeriod: .milliseconds(200))
      #expect(networking.inFlight == 0)
      let code = await failureCode { _ = try await stalled.value }
      #expect(code == "cancelled")
      await transport.shutdown(gracePeriod: .seconds(5))
      try await expectNoConnectionLeft(on: server)
    }

    /// A request waiting in the mode's queue when the shutdown starts was accepted: it is sent and completes.
    @Test func queuedRequestIsStillSent() async throws {
      let server = try TestServer(echo: .body)
      let transport = CurlTransport()
      defer {
        transport.shutdown()
        server.stop()
      }
      let networking = Networking<TestEndpoint>(mode: .limited(1), transport: .custom(transport))
      let first = networking.request(.get(server.url("/drip?chunks=4&size=100&delay=50")))
      let queued = networking.request(.get(server.url("/bytes?size=300")))
      try await waitForRequest(to: "/drip", on: server)
      await networking.shutdown(gracePeriod: .seconds(60))
      #expect(try await first.value.data == pattern(400))
      #expect(try await queued.value.data == pattern(300))
    }
  }
}
#endif
