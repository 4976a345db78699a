import MalibuTestSupport
import Testing

@testable import Malibu

/// A networking over a cassette runs every hook as for real requests: retries replay the recorded 503 then the 200,
/// validation and decoding run on the replayed body, and a failure reaches the failure stream.
@Suite("Networking over a cassette")
struct CassetteNetworkingTests {
  @Test func retriesValidationAndTheFailureStreamRunOnAReplay() async throws {
    try await withTemporaryDirectory(named: "malibu-cassette") { directory in
      let server = makeTransport()
      let calls = Box(0)
      server.stub(.get, "/api/boards") { _ in
        let call = calls.update { count in
          count += 1
          return count
        }
        return call == 1
          ? MockTransport.Reply(status: .serviceUnavailable, headerFields: [.retryAfter: "0"])
          : MockTransport.Reply(headerFields: jsonHeaders, body: boardsJSON)
      }
      server.stub(.get, "/api/missing", status: .notFound, headerFields: jsonHeaders, body: Data("{}".utf8))

      var retrying = TransferOptions()
      retrying.retry = RetryPolicy(maxAttempts: 3, baseDelay: .zero)
      let recording = Networking<Probe>(
        transport: .custom(CassetteTransport(recording: directory, through: server))
      )
      recording.transferOptions = retrying
      let recorded = try await recording.request(Probe(.get("boards"))).validate().decode(using: [Board].self).value
      #expect(calls.value == 2)
      // Each attempt is an exchange of its own: the 503, then the 200.
      let statuses = try CassetteTransport(replaying: directory).recordings().map { $0.recording.response?.status }
      #expect(statuses == [503, 200])

      server.reset()
      let replaying = Networking<Probe>(transport: .custom(CassetteTransport(replaying: directory)))
      replaying.transferOptions = retrying
      let boards = try await replaying.request(Probe(.get("boards"))).validate().decode(using: [Board].self).value
      #expect(boards == recorded)
      #expect(server.recordedRequests.isEmpty)

      // A request the cassette lacks fails as a transport failure, published like any other.
      var failures = replaying.failures.makeAsyncIterator()
      let error = await networkError(replaying.request(Probe(.get("missing"))).validate())
      #expect(error?.code == .transportFailed)
      let failure = try #require(await failures.next())
      #expect(failure.request.resource.urlString == "missing")
      #expect("\(failure.error)".contains("the nearest is 0001-GET-api-boards.json"))
    }
  }
}
