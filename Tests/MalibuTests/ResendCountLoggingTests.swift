import Malibu
import MalibuTestSupport
import Testing

/// `http.request.resend_count` on the final record of a request through the facade: the logging middleware sits
/// above token refresh, whose retry after a 401 is a resend it counts.
@Suite struct ResendCountLoggingTests {
  static let key = LogMetadataKey.resendCount

  /// 401 for `/api/item/...` unless it carries `Bearer fresh`, throws for `/api/broken/...` once a fresh token is
  /// sent, 200 with `[]` otherwise.
  static func makeGuardedTransport() -> MockTransport {
    let transport = MockTransport()
    transport.stub(.get, "/api/**") { request in
      let fresh = request.headerFields[.authorization] == "Bearer fresh"
      let path = request.path ?? ""
      if path.hasPrefix("/api/broken/") && fresh {
        throw TransportError(code: .connectionRefused, message: "nothing listens")
      }
      guard fresh || path.hasPrefix("/api/open/") else { return MockTransport.Reply(status: .unauthorized) }
      return MockTransport.Reply(status: .ok, headerFields: jsonHeaders, body: Data("[]".utf8))
    }
    return transport
  }

  /// The final records (`response received` / `request failed`) as (message, URL, resend count).
  fileprivate static func finalRecords(_ log: LogCapture) -> [(message: String, url: String, resends: String?)] {
    log.all.filter { $0.message != "request sent" }.map {
      ($0.message, $0.values[LogMetadataKey.url] ?? "", $0.values[key])
    }
  }

  @Test func aRequestSentOnceLogsResendCountZeroAndTheSentRecordHasNone() async throws {
    let log = LogCapture()
    let networking = Networking<Probe>(transport: .custom(makeTransport()), logger: log.makeLogger())
    #expect(try await networking.request(Probe(.get("boards"))).value.statusCode == 200)
    let records = log.all
    #expect(records.map(\.message) == ["request sent", "response received"])
    #expect(records.map { $0.values[Self.key] } == [nil, "0"])
  }

  @Test func aRetryAfterA401AndARefreshLogsOneFinalRecordWithResendCountOne() async throws {
    let log = LogCapture()
    let transport = Self.makeGuardedTransport()
    let networking = Networking<Probe>(transport: .custom(transport), logger: log.makeLogger())
    networking.authenticate(bearerToken: "stale") { "fresh" }
    #expect(try await networking.request(Probe(.get("item/1"))).value.statusCode == 200)
    #expect(transport.recordedRequests.count == 2)
    let records = Self.finalRecords(log)
    #expect(records.map(\.message) == ["response received"])
    #expect(records.map(\.resends) == ["1"])
    #expect(log.all.last?.values[LogMetadataKey.status] == "200")

    // The token is fresh now: the next request is sent once.
    #expect(try await networking.request(Probe(.get("item/2"))).value.statusCode == 200)
    #expect(Self.finalRecords(log).map(\.resends) == ["1", "0"])
  }

  @Test func aRetryThatFailsLogsRequestFailedWithResendCountOneAndTheNetworkingKeepsWorking() async throws {
    let log = LogCapture()
    let networking = Networking<Probe>(transport: .custom(Self.makeGuardedTransport()), logger: log.makeLogger())
    networking.authenticate(bearerToken: "stale") { "fresh" }
    let error = await networkError(networking.request(Probe(.get("broken/1"))))
    #expect((error?.underlyingError as? TransportError)?.code == .connectionRefused)
    #expect(Self.finalRecords(log).map(\.message) == ["request failed"])
    #expect(Self.finalRecords(log).map(\.resends) == ["1"])
    #expect(log.all.last?.values[LogMetadataKey.errorCode] != nil)

    #expect(try await networking.request(Probe(.get("item/1"))).value.statusCode == 200)
    #expect(Self.finalRecords(log).map(\.resends) == ["1", "0"])
  }

  @Test func aRefreshThatFailsLogsRequestFailedWithResendCountZero() async throws {
    let log = LogCapture()
    let networking = Networking<Probe>(transport: .custom(Self.makeGuardedTransport()), logger: log.makeLogger())
    networking.authenticate(bearerToken: "stale") { throw RefreshFailure() }
    let error = await networkError(networking.request(Probe(.get("item/1"))))
    #expect(error?.code == .requestRejected)
    #expect(Self.finalRecords(log).map(\.message) == ["request failed"])
    #expect(Self.finalRecords(log).map(\.resends) == ["0"])

    #expect(try await networking.request(Probe(.get("open/1"))).value.statusCode == 200)
    #expect(Self.finalRecords(log).map(\.resends) == ["0", "0"])
  }

  @Test func concurrentRequestsCountTheirOwnResends() async throws {
    let log = LogCapture()
    let transport = Self.makeGuardedTransport()
    let networking = Networking<Probe>(transport: .custom(transport), logger: log.makeLogger())
    networking.authenticate(bearerToken: "stale") {
      // Hold the refresh until every first attempt went out, so the retries overlap the plain requests.
      while transport.recordedRequests.count < 20 {
        try await Task.sleep(for: .milliseconds(5))
      }
      return "fresh"
    }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for index in 0..<10 {
        group.addTask { _ = try await networking.request(Probe(.get("item/\(index)"))).value }
        group.addTask { _ = try await networking.request(Probe(.get("open/\(index)"))).value }
      }
      try await group.waitForAll()
    }
    #expect(transport.recordedRequests.count == 30)
    let records = Self.finalRecords(log)
    #expect(records.count == 20)
    #expect(records.allSatisfy { $0.message == "response received" })
    for record in records {
      #expect(record.resends == (record.url.contains("/api/item/") ? "1" : "0"), "\(record.url)")
    }
  }
}
