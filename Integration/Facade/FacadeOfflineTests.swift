import Foundation
import Malibu
import Testing

/// `storePolicy: .offline` through the facade: a request to a port nothing listens on is stored; after a "restart"
/// (a new networking and a new store on the same directory) it is replayed once the server is up on that port.
@Suite("Facade: offline store and replay")
struct FacadeOfflineTests {
  @Test(arguments: Backend.allCases)
  func storedRequestIsReplayedAfterARestart(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let directory = try TemporaryDirectory("malibu-facade-offline")
    defer { directory.remove() }
    let port = try refusedPort()
    let target = "http://127.0.0.1:\(port)/post"
    let request = Request.post(
      target,
      parameters: ["board": "Balsa Fish", "size": 7],
      headers: ["X-Offline": "yes"],
      storePolicy: .offline
    )

    // First run: the host refuses the connection, the request is stored.
    do {
      let networking = Networking<HttpbinProbe>(
        transport: backend.kind,
        offlineStore: OfflineRequestStore(directory: directory.url)
      )
      let error = try #require(await rejection(networking.request(HttpbinProbe(request))))
      #expect(error.code == .transportFailed)
      #expect((error.underlyingError as? TransportError)?.code == .connectionRefused)
      let stored = try networking.offlineStore.all()
      #expect(stored.count == 1)
      #expect(stored.first?.url?.absoluteString == target)
      // A request without the offline policy is not stored.
      _ = await rejection(networking.request(HttpbinProbe(.post(target, parameters: ["not": "stored"]))))
      #expect(try networking.offlineStore.all().count == 1)
      networking.offlineStore.close()  // as the first run's exit would: one instance owns a directory at a time
    }

    // The server comes up on that port.
    let spare = try await SpareHttpbin.start(port: port)
    defer { spare.stop() }

    // Second run: a new store on the same directory and a new networking replay the request.
    let store = OfflineRequestStore(directory: directory.url)
    #expect(try store.all().count == 1)
    let networking = Networking<HttpbinProbe>(transport: backend.kind, offlineStore: store)
    let outcomes = try await networking.replay().value
    #expect(outcomes.count == 1)
    let response = try #require(try outcomes.first?.get())
    #expect(response.statusCode == 200)
    let echo = try response.toJsonDictionary()
    let json = try #require(echo["json"] as? [String: any Sendable])
    #expect(json["board"] as? String == "Balsa Fish")
    #expect(json["size"] as? Int == 7)
    #expect((echo["headers"] as? [String: any Sendable])?["X-Offline"] as? String == "yes")
    #expect(try store.all().isEmpty)
    // Replaying an empty store does nothing.
    #expect(try await networking.replay().value.isEmpty)
  }

  @Test(arguments: Backend.allCases)
  func aStillUnreachableHostKeepsTheRequestStored(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let directory = try TemporaryDirectory("malibu-facade-offline-kept")
    defer { directory.remove() }
    let target = "http://127.0.0.1:\(try refusedPort())/post"
    let first = Networking<HttpbinProbe>(
      transport: backend.kind,
      offlineStore: OfflineRequestStore(directory: directory.url)
    )
    _ = await rejection(first.request(HttpbinProbe(.post(target, parameters: ["a": 1], storePolicy: .offline))))
    first.offlineStore.close()  // one instance owns a directory at a time: as after a restart
    let second = Networking<HttpbinProbe>(
      transport: backend.kind,
      offlineStore: OfflineRequestStore(directory: directory.url)
    )
    let outcomes = try await second.replay().value
    #expect(outcomes.count == 1)
    guard case .failure(let error) = outcomes.first else {
      Issue.record("expected a failure, got \(String(describing: outcomes.first))")
      return
    }
    #expect((error.underlyingError as? TransportError)?.code == .connectionRefused)
    #expect(try second.offlineStore.all().count == 1)
    try second.clearOfflineRequestStorage()
    #expect(try second.offlineStore.all().isEmpty)
  }
}
