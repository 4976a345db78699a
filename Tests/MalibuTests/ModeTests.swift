import Malibu
import Testing

/// The modes' queues and cancellation at every stage.
@Suite("Modes and cancellation")
struct ModeTests {
  /// A transport whose `/slow/*` requests wait until released (or cancelled), counting how many are in flight.
  final class Gatekeeper: Sendable {
    let transport = makeTransport()
    let inFlight = Box(0)
    let maximum = Box(0)
    let cancelled = Box(0)
    let open = Box(false)

    init() {
      transport.stub(.get, "/api/slow/*") { [self] _ in
        let now = inFlight.update { count in
          count += 1
          return count
        }
        maximum.update { $0 = max($0, now) }
        defer { inFlight.update { $0 -= 1 } }
        while !open.value {
          do {
            try await Task.sleep(for: .milliseconds(2))
          } catch {
            cancelled.update { $0 += 1 }
            throw TransportError(code: .cancelled, message: "cancelled while waiting")
          }
        }
        return MockTransport.Reply(status: .ok)
      }
    }
  }

  @Test func syncRunsOneAtATimeInOrder() async throws {
    let gate = Gatekeeper()
    let networking = Networking<Probe>(mode: .sync, transport: .custom(gate.transport))
    let promises = (0..<5).map { networking.request(Probe(.get("slow/\($0)"))) }
    await eventually { gate.transport.recordedRequests.count == 1 }
    gate.open.update { $0 = true }
    for promise in promises { _ = try await promise.value }
    #expect(gate.maximum.value == 1)
    #expect(gate.transport.recordedPaths == (0..<5).map { "/api/slow/\($0)" })
  }

  @Test func limitedNeverExceedsItsLimit() async throws {
    let gate = Gatekeeper()
    let networking = Networking<Probe>(mode: .limited(2), transport: .custom(gate.transport))
    let promises = (0..<8).map { networking.request(Probe(.get("slow/\($0)"))) }
    await eventually { gate.inFlight.value == 2 }
    #expect(gate.transport.recordedRequests.count == 2)
    gate.open.update { $0 = true }
    for promise in promises { _ = try await promise.value }
    #expect(gate.maximum.value == 2)
    #expect(gate.transport.recordedRequests.count == 8)
  }

  @Test func aLimitBelowOneMeansOne() async throws {
    let gate = Gatekeeper()
    let networking = Networking<Probe>(mode: .limited(0), transport: .custom(gate.transport))
    let promises = (0..<3).map { networking.request(Probe(.get("slow/\($0)"))) }
    await eventually { gate.inFlight.value == 1 }
    gate.open.update { $0 = true }
    for promise in promises { _ = try await promise.value }
    #expect(gate.maximum.value == 1)
  }

  @Test func asyncHasNoLimit() async throws {
    let gate = Gatekeeper()
    let networking = Networking<Probe>(mode: .async, transport: .custom(gate.transport))
    let promises = (0..<6).map { networking.request(Probe(.get("slow/\($0)"))) }
    await eventually { gate.inFlight.value == 6 }
    gate.open.update { $0 = true }
    for promise in promises { _ = try await promise.value }
  }

  @Test func syncRequestThatFailsToBuildFreesTheQueue() async throws {
    let transport = makeTransport()
    let networking = Networking<Probe>(mode: .sync, transport: .custom(transport))
    networking.beforeEach = { request in
      var request = request
      if request.resource.urlString == "broken" { request.resource = "http://" }
      return request
    }
    let broken = networking.request(Probe(.get("broken")))
    let next = networking.request(Probe(.get("next")))
    #expect(await networkError(broken)?.code == .invalidURL)
    #expect(try await next.value.statusCode == 200)
    #expect(transport.recordedPaths == ["/api/next"])
  }

  @Test func cancelWhileWaitingInTheQueue() async throws {
    let gate = Gatekeeper()
    let networking = Networking<Probe>(mode: .sync, transport: .custom(gate.transport))
    let first = networking.request(Probe(.get("slow/1")))
    let waiting = networking.request(Probe(.get("slow/2")))
    await eventually { gate.inFlight.value == 1 }
    waiting.cancel()
    #expect(isCancellationError(await outcome(waiting).failureValue!))
    gate.open.update { $0 = true }
    _ = try await first.value
    _ = try await networking.request(Probe(.get("slow/3"))).value
    #expect(gate.transport.recordedPaths == ["/api/slow/1", "/api/slow/3"])
  }

  @Test func cancelWhileInMiddleware() async throws {
    let transport = makeTransport()
    let networking = Networking<Probe>(transport: .custom(transport))
    let held = Box<[Promise<Void>]>([])
    networking.middleware = { promise in held.update { $0.append(promise) } }
    let promise = networking.request(Probe(.get("boards")))
    await eventually { held.value.count == 1 }
    promise.cancel()
    #expect(isCancellationError(await outcome(promise).failureValue!))
    await eventually("the gate promise is cancelled") { !held.value[0].isPending }
    held.value[0].resolve()  // too late: ignored
    networking.middleware = nil
    #expect(try await networking.request(Probe(.get("after"))).value.statusCode == 200)
    #expect(transport.recordedPaths == ["/api/after"])
  }

  @Test func cancelInFlightCancelsTheTransfer() async throws {
    let gate = Gatekeeper()
    let networking = Networking<Probe>(transport: .custom(gate.transport))
    let promise = networking.request(Probe(.get("slow/1"))).validate().toData()
    await eventually { gate.inFlight.value == 1 }
    promise.cancel()  // travels up to the network promise
    let error = await outcome(promise).failureValue
    #expect(error.map(isCancellationError) == true)
    await eventually("the transfer is cancelled") { gate.cancelled.value == 1 }
  }

  @Test func cancellingTheAwaitingTaskCancelsTheRequest() async throws {
    let gate = Gatekeeper()
    let networking = Networking<Probe>(transport: .custom(gate.transport))
    let task = Task { try await networking.request(Probe(.get("slow/1"))).value }
    await eventually { gate.inFlight.value == 1 }
    task.cancel()
    let result = await task.result
    #expect(throws: (any Error).self) { try result.get() }
    await eventually("the transfer is cancelled") { gate.cancelled.value == 1 }
  }

  @Test func cancelAllRequestsReachesEveryStage() async throws {
    let gate = Gatekeeper()
    let networking = Networking<Probe>(mode: .limited(2), transport: .custom(gate.transport))
    let held = Box<[Promise<Void>]>([])
    let calls = Box(0)
    networking.middleware = { promise in
      let call = calls.update { count in
        count += 1
        return count
      }
      if call == 1 { promise.resolve() } else { held.update { $0.append(promise) } }
    }
    let inFlight = networking.request(Probe(.get("slow/1")))
    let inMiddleware = networking.request(Probe(.get("slow/2")))
    let queued = networking.request(Probe(.get("slow/3")))
    await eventually { gate.inFlight.value == 1 && held.value.count == 1 }
    networking.cancelAllRequests()
    for promise in [inFlight, inMiddleware, queued] {
      let error = await networkError(promise)
      #expect(error?.code == .cancelled)
      #expect(error.map(isCancellationError) == true)
    }
    await eventually("the transfer is cancelled") { gate.cancelled.value == 1 }
    #expect(gate.transport.recordedRequests.count == 1)
    networking.middleware = nil
    gate.open.update { $0 = true }
    #expect(try await networking.request(Probe(.get("slow/4"))).value.statusCode == 200)
  }

  @Test func failSkipsCancellationUnlessAskedForAllErrors() async throws {
    let gate = Gatekeeper()
    let networking = Networking<Probe>(transport: .custom(gate.transport))
    let reported = Box<[String]>([])
    let promise = networking.request(Probe(.get("slow/1")))
      .fail { _ in reported.update { $0.append("default") } }
      .fail(policy: .allErrors) { _ in reported.update { $0.append("all") } }
    await eventually { gate.inFlight.value == 1 }
    networking.cancelAllRequests()
    _ = await outcome(promise)
    #expect(reported.value == ["all"])
  }
}
