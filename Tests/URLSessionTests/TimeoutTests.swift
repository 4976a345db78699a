import Foundation
import HTTPTypes
import MalibuTestSupport
import MalibuTransport
import Testing

@testable import MalibuURLSession

extension URLSessionTransportTests {
  @Suite struct Timeouts {
    @Test(arguments: ["/stall-head", "/stall-body"])
    func silenceEndsAsIdleTimeout(path: String) async throws {
      let fixture = try Fixture()
      let error = await transportError {
        _ = try await fixture.fetch(fixture.request(.get, path), options: timeouts(idle: .milliseconds(300)))
      }
      #expect(error?.code == .idleTimeout)
      #expect(try await fixture.fetch(fixture.request(.get, "/bytes?size=4")).body == pattern(4))
    }

    @Test func idleTimeoutIsResetByEveryByte() async throws {
      let fixture = try Fixture()
      let response = try await fixture.fetch(
        fixture.request(.get, "/drip?chunks=6&size=10&delay=100"),
        options: timeouts(idle: .milliseconds(600))
      )
      #expect(response.body.count == 60)
    }

    @Test func totalTimeoutStopsATransferThatKeepsMoving() async throws {
      let fixture = try Fixture()
      let error = await transportError {
        _ = try await fixture.fetch(
          fixture.request(.get, "/drip?chunks=50&size=10&delay=50"),
          options: timeouts(idle: .seconds(5), total: .milliseconds(500))
        )
      }
      #expect(error?.code == .totalTimeout)
    }

    @Test func totalTimeoutWhileStreamingTheBody() async throws {
      let fixture = try Fixture()
      let response = try await fixture.transport.send(
        fixture.request(.get, "/drip?chunks=50&size=10&delay=50"),
        body: nil,
        options: timeouts(idle: .seconds(5), total: .seconds(1))
      )
      let error = await transportError {
        for try await _ in response.body {}
      }
      #expect(error?.code == .totalTimeout)
    }

    /// URLSession has no connect event: the connect timeout runs until the response head or the first request-body
    /// bytes sent (see the catalog).
    @Test func connectTimeoutRunsUntilTheFirstSignOfLife() async throws {
      let fixture = try Fixture()
      let error = await transportError {
        _ = try await fixture.fetch(
          fixture.request(.get, "/stall-head"),
          options: timeouts(connect: .milliseconds(300), idle: .seconds(10))
        )
      }
      #expect(error?.code == .connectTimeout)
      // Once the head is there, only idle and total count.
      let response = try await fixture.fetch(
        fixture.request(.get, "/drip?chunks=5&size=5&delay=300"),
        options: timeouts(connect: .seconds(1), idle: .seconds(10))
      )
      #expect(response.body.count == 25)
    }

    /// One watchdog serves every exchange of a transport: a later exchange with an earlier deadline must not wait
    /// for the deadline of the one before it. The first exchange's idle timeout is two minutes; the second's 300 ms.
    /// The bound of 30 s only keeps a broken watchdog from hanging the test.
    @Test func laterExchangeWithEarlierDeadlineFiresFirst() async throws {
      let fixture = try Fixture()
      let slow = Task {
        try await fixture.fetch(fixture.request(.get, "/stall-head"), options: timeouts(idle: .seconds(120)))
      }
      defer { slow.cancel() }
      try await Task.sleep(for: .milliseconds(200))  // the slow exchange is watched before the quick one starts
      let outcome = await withTaskGroup(of: TransportError?.self) { group in
        group.addTask {
          await transportError {
            _ = try await fixture.fetch(
              fixture.request(.get, "/stall-head"),
              options: timeouts(idle: .milliseconds(300))
            )
          }
        }
        group.addTask {
          try? await Task.sleep(for: .seconds(30))
          return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
      }
      #expect(outcome?.code == .idleTimeout)
      slow.cancel()
      let error = await transportError { _ = try await slow.value }
      #expect(error?.code == .cancelled)
      #expect(try await fixture.fetch(fixture.request(.get, "/bytes?size=4")).body == pattern(4))
    }

    @Test func defaultOptionsWork() async throws {
      let fixture = try Fixture()
      let response = try await fixture.fetch(fixture.request(.get, "/bytes?size=100"), options: TransferOptions())
      #expect(response.body == pattern(100))
    }
  }
}
