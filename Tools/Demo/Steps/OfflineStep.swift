import Foundation
import Malibu

/// `storePolicy: .offline`: a request that fails because the host cannot be reached is kept in an
/// `OfflineRequestStore` (here in a temporary directory) and sent again by `replay()` once the host is back.
enum OfflineStep {
  static func run(_ options: DemoOptions) async throws {
    let directory = try TemporaryDirectory(prefix: "malibu-demo-offline")
    defer { directory.remove() }
    let port = try LoopbackPort.free()
    ServiceAddresses.outbox = "http://127.0.0.1:\(port)"

    let store = OfflineRequestStore(directory: directory.url.appendingPathComponent("outbox"))
    let networking = Networking<OutboxEndpoint>(offlineStore: store)

    // 1. Nothing listens on the port: the request fails, and is kept.
    do {
      let response = try await networking.request(.send(note: "paddle out at six")).value
      throw TourFailure("127.0.0.1:\(port) answered \(response.statusCode) while nothing should listen there")
    } catch let error as NetworkError {
      let cause = (error.underlyingError as? TransportError)?.code.description ?? "\(error)"
      let stored = try store.all()
      try expect(stored.count == 1, "the store holds \(stored.count) requests after the failure (\(cause)), not 1")
      report(
        "POST /post to 127.0.0.1:\(port) (nothing listening) failed: \(error.code), \(cause) "
          + "→ kept in the OfflineRequestStore (\(stored.count) request)"
      )
    }

    // 2. The service comes up: a second httpbin on that very port.
    let server = try HttpbinServer.start(port: port, options: options, directory: directory.url)
    defer { server.stop() }
    let startup = try await waitUntilUp(networking, server: server)

    // 3. replay() sends what was stored, and empties the store.
    let (outcomes, elapsed) = try await timed { try await networking.replay().value }
    try expect(outcomes.count == 1, "replay() sent \(outcomes.count) requests, not 1")
    let response = try outcomes[0].get()
    let echo = try response.decode(HttpbinEcho<Note>.self)
    try expect(echo.json?.note == "paddle out at six", "httpbin received \(String(describing: echo.json))")
    let left = try store.all().count
    try expect(left == 0, "\(left) requests are still stored after a successful replay")
    report(
      "httpbin up on that port after \(startup.shortDescription); replay() → \(response.statusCode), httpbin got "
        + "note \"\(echo.json?.note ?? "")\" in \(elapsed.shortDescription); store empty"
    )
  }

  /// Pings the outbox until it answers; fails when its server exits or 20 s pass.
  private static func waitUntilUp(
    _ networking: Networking<OutboxEndpoint>,
    server: HttpbinServer
  ) async throws
    -> Duration
  {
    let start = ContinuousClock.now
    while ContinuousClock.now - start < .seconds(20) {
      guard server.isRunning else {
        throw TourFailure("the second httpbin exited before it answered:\n\(server.outputTail())")
      }
      if (try? await networking.request(.ping).validate().value) != nil {
        return ContinuousClock.now - start
      }
      try await Task.sleep(for: .milliseconds(100))
    }
    throw TourFailure("the second httpbin did not answer on port \(server.port) within 20 s:\n\(server.outputTail())")
  }
}
