import MalibuTestSupport
import Testing

@testable import Malibu

/// `inFlight` and `activity`: the count of requests started and not finished, for an activity indicator.
@Suite("In-flight count and activity")
struct ActivityTests {
  /// A transport whose `/api/held` requests wait until `release` is resolved.
  static func makeHeldTransport(release: Promise<Void>) -> MockTransport {
    let transport = makeTransport()
    transport.stub(.get, "/api/held") { _ in
      try await release.value
      return MockTransport.Reply(status: .ok, headerFields: jsonHeaders, body: boardsJSON)
    }
    transport.stub(.get, "/api/down", error: TransportError(code: .connectionRefused, message: "nothing listens"))
    return transport
  }

  /// Queued, at the gate and transferring all count; the count falls back to zero as they finish, failed or not.
  @Test func theCountCoversQueuedGatedAndTransferringRequests() async throws {
    let release = Promise<Void>()
    let gate = Promise<Void>()
    let transport = Self.makeHeldTransport(release: release)
    let networking = Networking<Probe>(mode: .limited(1), transport: .custom(transport))
    #expect(networking.inFlight == 0)
    let transferring = networking.request(Probe(.get("held")))  // holds the one slot
    await eventually("transferring") { transport.recordedRequests.count == 1 }
    #expect(networking.inFlight == 1)
    networking.middleware = { promise in gate.done { promise.resolve() } }
    let queued = networking.request(Probe(.get("held")))  // waits for the slot, then at the gate
    let failing = networking.request(Probe(.get("down")))
    #expect(networking.inFlight == 3)
    release.resolve()
    _ = try await transferring.value
    await eventually("the next one waits at the gate") { networking.inFlight == 2 }
    gate.resolve()
    _ = try await queued.value
    #expect(await networkError(failing)?.code == .transportFailed)
    await eventually("idle") { networking.inFlight == 0 }
    // The same networking serves the next request, and counts it.
    _ = try await networking.request(Probe(.get("held"))).value
    #expect(networking.inFlight == 0)
  }

  /// A request has left the count by the time its promise wakes the caller, however the transport answers (here
  /// from another task, as a real transport does), so reading `inFlight` after the last `await` says 0.
  @Test func aSettledRequestIsNoLongerCounted() async throws {
    let transport = makeTransport()
    transport.stub(.get, "/api/later") { _ in
      try await Task.sleep(for: .milliseconds(1))
      return MockTransport.Reply(status: .ok, headerFields: jsonHeaders, body: boardsJSON)
    }
    let networking = Networking<Probe>(transport: .custom(transport))
    for _ in 0..<50 {
      _ = try await networking.request(Probe(.get("later"))).value
      #expect(networking.inFlight == 0)
    }
  }

  /// `activity` starts with the current count and ends on the last one; `cancelAllRequests()` brings it to zero.
  @Test func activityStartsWithTheCurrentCountAndFollowsEveryChange() async throws {
    let release = Promise<Void>()
    let networking = Networking<Probe>(transport: .custom(Self.makeHeldTransport(release: release)))
    let first = networking.request(Probe(.get("held")))
    var counts = networking.activity.makeAsyncIterator()
    #expect(await counts.next() == 1)
    let second = networking.request(Probe(.get("held")))
    #expect(await counts.next() == 2)
    release.resolve()
    _ = try await first.value
    _ = try await second.value
    var last = networking.inFlight
    while last != 0, let count = await counts.next() { last = count }
    #expect(last == 0)

    let held = Promise<Void>()
    let other = Networking<Probe>(transport: .custom(Self.makeHeldTransport(release: held)))
    let stuck = [other.request(Probe(.get("held"))), other.request(Probe(.get("held")))]
    var changes = other.activity.makeAsyncIterator()
    #expect(await changes.next() == 2)
    other.cancelAllRequests()
    #expect(await changes.next() == 0)
    #expect(other.inFlight == 0)
    for promise in stuck { #expect(await networkError(promise)?.code == .cancelled) }
    held.resolve()
  }

  /// Two subscribers each see the changes; a subscriber that goes away is forgotten.
  @Test func subscribersAreIndependentAndForgottenWhenGone() async throws {
    let release = Promise<Void>()
    let networking = Networking<Probe>(transport: .custom(Self.makeHeldTransport(release: release)))
    var one = networking.activity.makeAsyncIterator()
    do {
      var two = networking.activity.makeAsyncIterator()
      #expect(await one.next() == 0)
      #expect(await two.next() == 0)
      let request = networking.request(Probe(.get("held")))
      #expect(await one.next() == 1)
      #expect(await two.next() == 1)
      release.resolve()
      _ = try await request.value
    }
    #expect(await one.next() == 0)
    await eventually("the second subscriber is removed") { networking.activitySubscriberCount == 1 }
  }

  /// Loops over `activity` and `failures` end when their networking goes away.
  @Test(.timeLimit(.minutes(1))) func subscriptionsEndWithTheNetworking() async throws {
    var networking: Networking<Probe>? = Networking<Probe>(transport: .custom(makeTransport()))
    let activity = try #require(networking?.activity)
    let failures = try #require(networking?.failures)
    networking = nil
    var counts: [Int] = []
    for await count in activity { counts.append(count) }
    var failed = 0
    for await _ in failures { failed += 1 }
    #expect(counts == [0] && failed == 0)
  }
}
