import Foundation
import HTTPTypes
import MalibuTestSupport
import MalibuTransport
import Testing

@testable import MalibuURLSession

extension URLSessionTransportTests {
  @Suite struct Cancellation {
    @Test func cancellingBeforeTheHeadEndsAtOnce() async throws {
      let fixture = try Fixture()
      let transfer = Task { try await fixture.fetch(fixture.request(.get, "/stall-head")) }
      while fixture.server.requests.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
      transfer.cancel()
      let error = await transportError { _ = try await transfer.value }
      #expect(error?.code == .cancelled)
      #expect(try await fixture.fetch(fixture.request(.get, "/bytes?size=8")).body == pattern(8))
    }

    @Test func cancellingAnAlreadyCancelledTaskSendsNothing() async throws {
      let fixture = try Fixture()
      let transfer = Task {
        withUnsafeCurrentTask { $0?.cancel() }
        return try await fixture.fetch(fixture.request(.get, "/bytes"))
      }
      let error = await transportError { _ = try await transfer.value }
      #expect(error?.code == .cancelled)
      #expect(fixture.server.requests.isEmpty)
    }

    @Test func cancellingTheReaderMidBodyStopsTheDownload() async throws {
      let fixture = try Fixture()
      let response = try await fixture.transport.send(
        fixture.request(.get, "/drip?chunks=1000&size=10000&delay=5"),
        body: nil,
        options: TransferOptions()
      )
      let reader = Task {
        var received = 0
        for try await chunk in response.body {
          received += chunk.count
          if received > 100_000 { withUnsafeCurrentTask { $0?.cancel() } }
        }
        return received
      }
      let error = await transportError { _ = try await reader.value }
      #expect(error?.code == .cancelled)
      await fixture.server.waitForIdle()
      #expect(fixture.server.activeThreads == 0)
      #expect(try await fixture.fetch(fixture.request(.get, "/bytes?size=8")).body == pattern(8))
    }

    @Test func cancellingTheBodyMidTransfer() async throws {
      let fixture = try Fixture()
      let response = try await fixture.transport.send(
        fixture.request(.get, "/drip?chunks=100&size=10&delay=20"),
        body: nil,
        options: TransferOptions()
      )
      var iterator = response.body.makeAsyncIterator()
      _ = try await iterator.next()
      response.body.cancel()
      let error = await transportError {
        while try await iterator.next() != nil {}
      }
      #expect(error?.code == .cancelled)
      #expect(try await fixture.fetch(fixture.request(.get, "/bytes?size=8")).body == pattern(8))
    }

    @Test func droppingTheBodyStopsTheTransfer() async throws {
      let fixture = try Fixture()
      do {
        _ = try await fixture.transport.send(
          fixture.request(.get, "/drip?chunks=100&size=10&delay=20"),
          body: nil,
          options: TransferOptions()
        )
      }
      await fixture.server.waitForIdle()
      #expect(fixture.server.activeThreads == 0)
    }

    @Test func shutdownCancelsEverythingInFlight() async throws {
      let fixture = try Fixture()
      let transfer = Task { try await fixture.fetch(fixture.request(.get, "/stall-head")) }
      while fixture.server.requests.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
      fixture.transport.shutdown()
      let error = await transportError { _ = try await transfer.value }
      #expect(error?.code == .cancelled)
      let after = await transportError { _ = try await fixture.fetch(fixture.request(.get, "/bytes")) }
      #expect(after?.code == .cancelled)
    }
  }
}
