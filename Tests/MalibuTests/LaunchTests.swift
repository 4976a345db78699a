import Foundation
import HTTPTypes
import MalibuTestSupport
import Testing

@testable import Malibu

/// Every public entry point of `Networking` that starts work: refused after `shutdown(gracePeriod:)`, and out of the
/// in-flight count before its outcome reaches the caller.
@Suite("Launching requests")
struct LaunchTests {
  struct Boards: TypedRequest {
    typealias RawResource = [Board]
    var method: HTTPRequest.Method { .get }
    var path: String { "boards" }
  }

  struct Count: Decodable, Sendable {
    let count: Int
  }

  struct CountQuery: GraphQLRequest {
    typealias RawResource = Count
    var query: GraphQLQuery { "{ count }" }
  }

  /// One entry point: `run` starts it and calls `settled` at the moment its outcome reaches the caller (a promise's
  /// handler, or the return of the awaited call).
  struct EntryPoint: Sendable, CustomTestStringConvertible {
    let name: String
    let run: @Sendable (Networking<Probe>, _ settled: @escaping @Sendable () -> Void) async throws -> Void

    var testDescription: String { name }

    /// An entry point that hands back a promise.
    static func promise<Value: Sendable>(
      _ name: String,
      _ start: @escaping @Sendable (Networking<Probe>) -> Promise<Value>
    ) -> EntryPoint {
      EntryPoint(name: name) { networking, settled in
        let promise = start(networking)
        promise.always { _ in settled() }
        _ = try await promise.value
      }
    }

    /// An entry point that is awaited.
    static func awaited(
      _ name: String,
      _ start: @escaping @Sendable (Networking<Probe>) async throws -> Void
    ) -> EntryPoint {
      EntryPoint(name: name) { networking, settled in
        try await start(networking)
        settled()
      }
    }
  }

  static let destination = FileManager.default.temporaryDirectory
    .appendingPathComponent("malibu-launch-\(UUID().uuidString)")

  static let entryPoints: [EntryPoint] = [
    .promise("request(_:)") { $0.request(Probe(.get("boards"))) },
    .promise("request(_:options:)") { $0.request(Probe(.get("boards")), options: { _ in }) },
    .promise("request(_:logger:)") {
      $0.request(Probe(.get("boards")), logger: LogCapture().makeLogger(label: "launch"))
    },
    .awaited("send(_:)") { _ = try await $0.send(Boards()) },
    .awaited("send(_:options:)") { _ = try await $0.send(Boards(), options: { _ in }) },
    .promise("request(typed:)") { $0.request(typed: Boards()) },
    .promise("request(typed:options:)") { $0.request(typed: Boards(), options: { _ in }) },
    .awaited("send(_:) GraphQL") { _ = try await $0.send(CountQuery()) },
    .promise("request(typed:) GraphQL") { $0.request(typed: CountQuery()) },
    .promise("download(_:to:)") {
      $0.download(Probe(.get("boards")), to: destination.appendingPathComponent(UUID().uuidString))
    },
    .awaited("stream(_:)") { _ = try await $0.stream(Probe(.get("boards"))) },
    .promise("replay()") { $0.replay() },
  ]

  /// A networking on a mock transport, with one request in its offline store (so that a replay has one to send).
  private func makeNetworking() async throws -> (Networking<Probe>, MockTransport) {
    try FileManager.default.createDirectory(at: Self.destination, withIntermediateDirectories: true)
    let transport = makeTransport()
    transport.stub(.delete, "/api/boards/1", error: refused)
    let networking = makeOfflineNetworking(transport)
    _ = await outcome(networking.request(Probe(.delete("boards/1", storePolicy: .offline))))
    #expect(try networking.offlineStore.all().count == 1)
    transport.reset()
    transport.stub(.post, "/api/graphql", headerFields: jsonHeaders, body: Data(#"{"data":{"count":2}}"#.utf8))
    transport.stub(.delete, "/api/boards/1", status: .noContent)
    return (networking, transport)
  }

  @Test(arguments: entryPoints)
  func isRefusedAfterShutdown(_ entryPoint: EntryPoint) async throws {
    let (networking, transport) = try await makeNetworking()
    await networking.shutdown(gracePeriod: .seconds(60))
    let settledCount = Box(0)
    let error = await #expect(throws: NetworkError.self) {
      try await entryPoint.run(networking) { settledCount.update { $0 += 1 } }
    }
    #expect(error?.code == .shutDown)
    #expect(transport.recordedRequests.isEmpty)
    #expect(networking.inFlight == 0)
    #expect(try networking.offlineStore.all().count == 1)
  }

  /// Each request is held at the middleware gate until its handlers are in place, so that it settles after them.
  @Test(arguments: entryPoints)
  func leavesTheFlightsBeforeItsOutcomeReachesTheCaller(_ entryPoint: EntryPoint) async throws {
    let (networking, transport) = try await makeNetworking()
    let gates = Box<[Promise<Void>]>([])
    networking.middleware = { gate in gates.update { $0.append(gate) } }
    let seen = Box<[Int]>([])
    let run = Task {
      try await entryPoint.run(networking) { seen.update { $0.append(networking.inFlight) } }
    }
    await eventually("the request reached the gate") { gates.value.count == 1 }
    #expect(networking.inFlight == 1)
    gates.value.first?.resolve()
    try await run.value
    #expect(transport.recordedRequests.count == 1)
    if entryPoint.name == "stream(_:)" {
      // A stream holds its slot until its body is read: the call returns with it still counted.
      #expect(seen.value == [1])
      await eventually("the stream's flight ended") { networking.inFlight == 0 }
    } else {
      #expect(seen.value == [0])
    }
  }

  /// A stream's body read to its end lets go of the stream's flight.
  @Test func aStreamLeavesTheFlightsWhenItsBodyIsRead() async throws {
    let (networking, _) = try await makeNetworking()
    let response = try await networking.stream(Probe(.get("boards")))
    #expect(networking.inFlight == 1)
    var body = Data()
    for try await chunk in response.body { body.append(chunk) }
    #expect(body == Data("[]".utf8))
    await eventually("the stream's flight ended") { networking.inFlight == 0 }
  }
}
