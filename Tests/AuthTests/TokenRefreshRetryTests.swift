import Foundation
import HTTPTypes
import MalibuAuth
@_spi(Malibu) import MalibuCore
import MalibuTransport
import Testing

/// The token refresh's one retry after a 401 together with `RetryMiddleware`: neither spends the other's attempts,
/// and every send is counted once in `TransferAttempts`.
@Suite struct TokenRefreshRetryTests {
  /// Answers with the statuses given, in order, then 200; records the `Authorization` of every request.
  final class StatusScript: Transport {
    private let state: Locked<(statuses: [HTTPResponse.Status], sent: [String?])>

    init(_ statuses: [HTTPResponse.Status]) {
      state = Locked((statuses, []))
    }

    /// The `Authorization` values sent, in order.
    var authorizations: [String?] { state.withLock { $0.sent } }

    func send(
      _ request: HTTPRequest,
      body: RequestBody?,
      options: TransferOptions
    ) async throws -> TransportResponse {
      let status = state.withLock { state in
        state.sent.append(request.headerFields[.authorization])
        return state.statuses.isEmpty ? .ok : state.statuses.removeFirst()
      }
      return TransportResponse(
        head: HTTPResponse(status: status),
        url: nil,
        body: ResponseBody(data: Data("status \(status.code)".utf8))
      )
    }
  }

  /// What one request through a chain did.
  struct Run {
    var status: HTTPResponse.Status
    var resends: Int
    var waits: Int
  }

  /// Sends a GET through `middleware` (built with a retry middleware that waits for nothing), counting resends.
  private func run(
    _ transport: StatusScript,
    maxAttempts: Int,
    body: RequestBody? = nil,
    chain: (RetryMiddleware) -> [any Middleware]
  ) async throws -> Run {
    let waits = Locked(0)
    let retry = RetryMiddleware(random: { 1 }, sleep: { _ in waits.withLock { $0 += 1 } }, now: { Date() })
    var options = TransferOptions()
    options.retry = .default
    options.retry.maxAttempts = maxAttempts
    let attempts = TransferAttempts()
    let response = try await TransferAttempts.$current.withValue(attempts) {
      try await transport.with(middleware: chain(retry)).send(.get("\(api)/boards"), body: body, options: options)
    }
    return Run(status: response.head.status, resends: attempts.resendCount, waits: waits.withLock { $0 })
  }

  private func tokens(_ counter: RefreshCounter) -> TokenRefreshMiddleware {
    TokenRefreshMiddleware(token: "stale", origin: URL(string: api)) {
      _ = counter.record()
      return "fresh"
    }
  }

  @Test func theRefreshRetryDoesNotSpendTheRetryBudget() async throws {
    // Two attempts per request: 503 then 401 use them up; the refresh's retry comes down as a new request with two
    // attempts of its own, so its 503 is retried too.
    let transport = StatusScript([.serviceUnavailable, .unauthorized, .serviceUnavailable])
    let counter = RefreshCounter()
    let outcome = try await run(transport, maxAttempts: 2) { [tokens(counter), $0] }
    #expect(outcome.status == .ok)
    #expect(counter.calls == 1)
    #expect(transport.authorizations == ["Bearer stale", "Bearer stale", "Bearer fresh", "Bearer fresh"])
    #expect(outcome.resends == 3)
    #expect(outcome.waits == 2)
  }

  @Test func retriedStatusesNeverTriggerARefresh() async throws {
    let transport = StatusScript([.serviceUnavailable, .badGateway])
    let counter = RefreshCounter()
    let outcome = try await run(transport, maxAttempts: 3) { [tokens(counter), $0] }
    #expect(outcome.status == .ok)
    #expect(counter.calls == 0)
    #expect(transport.authorizations == ["Bearer stale", "Bearer stale", "Bearer stale"])
    #expect(outcome.resends == 2)
    #expect(outcome.waits == 2)
  }

  @Test func a401IsLeftToTheRefreshAndItsRetry() async throws {
    // The retry policy does not retry a 401; the refresh retries once, and a second 401 is returned as it is.
    let transport = StatusScript([.unauthorized, .unauthorized])
    let counter = RefreshCounter()
    let outcome = try await run(transport, maxAttempts: 3) { [tokens(counter), $0] }
    #expect(outcome.status == .unauthorized)
    #expect(counter.calls == 1)
    #expect(transport.authorizations == ["Bearer stale", "Bearer fresh"])
    #expect(outcome.resends == 1)
    #expect(outcome.waits == 0)
  }

  @Test func aStreamedBodyIsSentOnceByBoth() async throws {
    let transport = StatusScript([.unauthorized])
    let counter = RefreshCounter()
    let chunks = AsyncStream<Data> { continuation in
      continuation.yield(Data("live".utf8))
      continuation.finish()
    }
    let outcome = try await run(transport, maxAttempts: 3, body: .stream(chunks, length: nil)) {
      [tokens(counter), $0]
    }
    #expect(outcome.status == .unauthorized)
    #expect(counter.calls == 1)
    #expect(transport.authorizations == ["Bearer stale"])
    #expect(outcome.resends == 0)
  }

  @Test func retryAboveTheRefreshCountsEachSendOnce() async throws {
    // The other order: the 401 is refreshed and retried inside the first attempt, whose 503 the retry policy then
    // retries with the fresh token.
    let transport = StatusScript([.unauthorized, .serviceUnavailable])
    let counter = RefreshCounter()
    let outcome = try await run(transport, maxAttempts: 3) { [$0, tokens(counter)] }
    #expect(outcome.status == .ok)
    #expect(counter.calls == 1)
    #expect(transport.authorizations == ["Bearer stale", "Bearer fresh", "Bearer fresh"])
    #expect(outcome.resends == 2)
    #expect(outcome.waits == 1)
  }
}
