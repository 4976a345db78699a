#if Lifecycle
import Foundation
import HTTPTypes
import Malibu
import MalibuTestSupport
import Testing

extension LifecycleTests {
  /// The transports' `shutdown(gracePeriod:)`, without signals.
  @Suite struct TransportDrain {
    /// The transports that drain.
    enum Kind: CaseIterable, Sendable {
      case curl, urlSession

      func make() -> any Transport & Drainable {
        switch self {
        case .curl: CurlTransport()
        case .urlSession: URLSessionTransport()
        }
      }
    }

    /// A transfer whose body is still streaming when the shutdown starts finishes within the grace period, whole;
    /// the shutdown returns after it, with every connection closed.
    @Test(arguments: Kind.allCases) func runningTransferFinishesWithinTheGracePeriod(kind: Kind) async throws {
      let server = try TestServer(echo: .body)
      defer { server.stop() }
      let transport = kind.make()
      let response = try await transport.send(
        HTTPRequest(method: .get, url: server.url("/drip?chunks=6&size=1000&delay=50")),
        body: nil,
        options: TransferOptions()
      )
      let shutdown = Task { await transport.shutdown(gracePeriod: .seconds(60)) }
      let data = try await response.body.collect(upTo: 1 << 20)
      #expect(data == pattern(6000))
      await shutdown.value
      // FoundationNetworking leaves the idle connections of an invalidated session open for a while (seen
      // on Linux): only curl closes every one before `shutdown(gracePeriod:)` returns.
      if kind == .curl { try await expectNoConnectionLeft(on: server) }
    }

    /// A transfer that outlasts the grace period is cancelled after it: its reader gets `cancelled`, and the shutdown
    /// returns with every connection closed.
    @Test(arguments: Kind.allCases) func transferOutlastingTheGracePeriodIsCancelled(kind: Kind) async throws {
      let server = try TestServer(echo: .body)
      defer { server.stop() }
      let transport = kind.make()
      let response = try await transport.send(
        HTTPRequest(method: .get, url: server.url("/stall-body?size=100000&sent=10")),
        body: nil,
        options: TransferOptions()
      )
      let shutdown = Task { await transport.shutdown(gracePeriod: .milliseconds(200)) }
      let code = await failureCode { _ = try await response.body.collect(upTo: 1 << 20) }
      #expect(code == "cancelled")
      await shutdown.value
      try await expectNoConnectionLeft(on: server)
    }

    /// A request sent once the shutdown has begun fails at once with `shutDown` and a message that says why, while
    /// the transfer already running goes on and completes; after the shutdown, requests still fail with `shutDown`.
    @Test(arguments: Kind.allCases) func requestAfterShutdownBeganFailsAtOnce(kind: Kind) async throws {
      let server = try TestServer(echo: .body)
      defer { server.stop() }
      let transport = kind.make()
      let running = try await transport.send(
        HTTPRequest(method: .get, url: server.url("/drip?chunks=10&size=500&delay=50")),
        body: nil,
        options: TransferOptions()
      )
      let shutdown = Task { await transport.shutdown(gracePeriod: .seconds(60)) }
      var refusal: TransportError?
      for _ in 0..<1000 where refusal == nil {
        do {
          _ = try await transport.data(for: HTTPRequest(method: .get, url: server.url("/bytes?size=10")))
          await Task.yield()
        } catch let error as TransportError {
          refusal = error
        }
      }
      let error = try #require(refusal)
      #expect(error.code == .shutDown)
      #expect(error.message.contains("shutting down"))
      #expect(!error.isCancellation)
      // The transfer that was running is untouched by the refusal.
      #expect(try await running.body.collect(upTo: 1 << 20) == pattern(5000))
      await shutdown.value
      let after = await failureCode {
        _ = try await transport.data(for: HTTPRequest(method: .get, url: server.url("/bytes?size=10")))
      }
      #expect(after == "shutDown")
      // FoundationNetworking leaves the idle connections of an invalidated session open for a while (seen
      // on Linux): only curl closes every one before `shutdown(gracePeriod:)` returns.
      if kind == .curl { try await expectNoConnectionLeft(on: server) }
    }

    /// A transport that never sent anything shuts down at once; so does a second call.
    @Test(arguments: Kind.allCases) func idleTransportShutsDownAtOnce(kind: Kind) async throws {
      let transport = kind.make()
      await transport.shutdown(gracePeriod: .seconds(60))
      await transport.shutdown(gracePeriod: .seconds(60))
      let code = await failureCode {
        _ = try await transport.data(for: HTTPRequest(method: .get, url: URL(string: "http://127.0.0.1:9/")!))
      }
      #expect(code == "shutDown")
    }

    /// Cancelling the task that drains ends the grace period at once: the running transfer is cancelled.
    @Test(arguments: Kind.allCases) func cancellingTheDrainCancelsTheTransfers(kind: Kind) async throws {
      let server = try TestServer(echo: .body)
      defer { server.stop() }
      let transport = kind.make()
      let response = try await transport.send(
        HTTPRequest(method: .get, url: server.url("/stall-body?size=100000&sent=10")),
        body: nil,
        options: TransferOptions()
      )
      let shutdown = Task { await transport.shutdown(gracePeriod: .seconds(600)) }
      shutdown.cancel()
      let code = await failureCode { _ = try await response.body.collect(upTo: 1 << 20) }
      #expect(code == "cancelled")
      await shutdown.value
      try await expectNoConnectionLeft(on: server)
    }
  }
}
#endif
