import Foundation
import Malibu
@_spi(Malibu) import MalibuCore
import Testing

/// Transfer options set per request, on both transports against httpbin.
@Suite("Facade: per-request options")
struct FacadeRequestOptionsTests {
  /// A request's own total timeout ends it long before the server answers; the networking's options, untouched,
  /// serve the next request.
  @Test(arguments: Backend.allCases)
  func aRequestsOwnTimeoutAppliesToItAlone(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let networking = Networking<HttpbinProbe>(transport: backend.kind)
    let clock = ContinuousClock()
    let start = clock.now
    let error = await rejection(
      networking.request(HttpbinProbe(.get("delay/4"))) { options in options.timeouts.total = .seconds(1) }
    )
    // Fails by the configured 1 s, not after the server's 4 s.
    #expect(start.duration(to: clock.now) < .seconds(3))
    #expect(error?.code == .timedOut)
    #expect((error?.underlyingError as? TransportError)?.code == .totalTimeout)
    #expect(networking.transferOptions.timeouts.total == nil)
    let response = try await networking.request(HttpbinProbe(.get("delay/1"))).validate().value
    #expect(response.statusCode == 200)
  }

  /// Redirects turned off for one request: it gets the 302 itself; the next one follows it.
  @Test(arguments: Backend.allCases)
  func aRequestsOwnRedirectPolicy(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let networking = Networking<HttpbinProbe>(transport: backend.kind)
    let own = try await networking.request(HttpbinProbe(.get("redirect/1"))) { $0.redirects = .none }.value
    #expect(own.statusCode == 302)
    let shared = try await networking.request(HttpbinProbe(.get("redirect/1"))).value
    #expect(shared.statusCode == 200)
  }

  /// The networking's progress handler hears every request, each event naming its endpoint and request.
  @Test(arguments: Backend.allCases)
  func progressNamesItsRequest(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let networking = Networking<HttpbinProbe>(transport: backend.kind)
    let events = Locked<[String: Int64]>([:])
    networking.progress = { event in
      let name = event.endpoint?.request.resource.urlString ?? "?"
      events.withLock { $0[name] = max($0[name] ?? 0, event.progress.uploaded) }
    }
    let big = Data(repeating: UInt8(ascii: "a"), count: 256 * 1024)
    async let first = networking.request(HttpbinProbe(.upload(data: big, to: "anything/one"))).validate().value
    async let second = networking.request(HttpbinProbe(.post("anything/two", body: ["board": "Balsa"]))).validate()
      .value
    _ = try await (first, second)
    let seen = events.withLock { $0 }
    #expect(seen["anything/one"] == Int64(big.count))
    #expect(seen["anything/two"] == Int64(#"{"board":"Balsa"}"#.utf8.count))
  }
}
