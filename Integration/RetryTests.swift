import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuCore
import MalibuTestSupport
import MalibuTransport
import Testing

/// `RetryMiddleware` over both transports against the scripted test server, which counts the requests that reach it.
@Suite("Retries", .serialized)
struct RetryTests {
  /// The default policy with short backoffs (what is measured here is what reaches the server, not the waits).
  private static let policy = RetryPolicy(baseDelay: .milliseconds(20), maxDelay: .milliseconds(100))

  private func exchange(
    _ backend: Backend,
    _ url: URL,
    method: HTTPRequest.Method = .get,
    body: RequestBody? = nil,
    policy: RetryPolicy = RetryTests.policy,
    total: Duration? = nil,
    retry: RetryMiddleware = RetryMiddleware()
  ) async throws -> Exchange {
    var options = TransferOptions()
    options.retry = policy
    options.timeouts.total = total
    let transport = backend.transport.with(middleware: [retry])
    let (head, data, finalURL) = try await transport.data(
      for: HTTPRequest(method: method, url: url),
      body: body,
      options: options,
      upTo: 1 << 20
    )
    return Exchange(head: head, data: data, url: finalURL)
  }

  private func flakyCount(_ server: TestServer) -> Int {
    server.requests.filter { $0.path == "/flaky" }.count
  }

  @Test(arguments: Backend.allCases)
  func a503WithRetryAfterZeroIsRetried(_ backend: Backend) async throws {
    let server = try TestServer()
    let exchange = try await exchange(backend, server.url("/flaky?fail=2&retry-after=0"))
    #expect(exchange.status == 200)
    #expect(exchange.text == "ok")
    #expect(flakyCount(server) == 3)
    // The 503s' bodies were read to the end, so their connection served the next attempt.
    #expect(server.acceptedConnections == 1)
  }

  @Test(arguments: Backend.allCases)
  func a429WithAnHTTPDateInThePastIsRetried(_ backend: Backend) async throws {
    let server = try TestServer()
    let date = "Sun, 06 Nov 1994 08:49:37 GMT".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    let waits = Locked<[Duration]>([])
    let retry = RetryMiddleware(
      random: { 1 },
      sleep: { duration in waits.withLock { $0.append(duration) } },
      now: { Date() }
    )
    let url = server.url("/flaky?fail=1&status=429&retry-after=\(date)")
    let exchange = try await exchange(backend, url, retry: retry)
    #expect(exchange.status == 200)
    #expect(flakyCount(server) == 2)
    // The date was read (a backoff would have waited): a date in the past means at once.
    #expect(waits.withLock { $0 }.isEmpty)
  }

  @Test(arguments: Backend.allCases)
  func withoutAPolicyA503ReachesTheServerOnce(_ backend: Backend) async throws {
    let server = try TestServer()
    let exchange = try await exchange(backend, server.url("/flaky?fail=2&retry-after=0"), policy: .none)
    #expect(exchange.status == 503)
    #expect(flakyCount(server) == 1)
  }

  @Test(arguments: Backend.allCases)
  func theLast503IsReturnedOnceTheAttemptsAreUsedUp(_ backend: Backend) async throws {
    let server = try TestServer()
    let exchange = try await exchange(backend, server.url("/flaky?fail=10&retry-after=0"))
    #expect(exchange.status == 503)
    #expect(exchange.head.headerFields[.retryAfter] == "0")
    #expect(exchange.text == "try again")
    #expect(flakyCount(server) == 3)
    #expect(try await self.exchange(backend, server.url("/status/200")).status == 200)
  }

  @Test(arguments: Backend.allCases)
  func aRetryAfterBeyondTheCapIsReturnedWithoutWaiting(_ backend: Backend) async throws {
    let server = try TestServer()
    let exchange = try await exchange(backend, server.url("/flaky?fail=1&retry-after=3600"))
    #expect(exchange.status == 503)
    #expect(exchange.head.headerFields[.retryAfter] == "3600")
    #expect(flakyCount(server) == 1)
  }

  @Test(arguments: Backend.allCases)
  func aRetryAfterBeyondTheTotalTimeoutReturnsThe503AtOnce(_ backend: Backend) async throws {
    // Issue 31: 503 + Retry-After: 25 under total = 2 s and the default policy took 3 sends and 50 s.
    let server = try TestServer()
    let clock = ContinuousClock()
    let started = clock.now
    let exchange = try await exchange(
      backend,
      server.url("/flaky?fail=10&retry-after=25"),
      policy: .default,
      total: .seconds(2)
    )
    let elapsed = clock.now - started
    #expect(exchange.status == 503)
    #expect(exchange.head.headerFields[.retryAfter] == "25")
    #expect(exchange.text == "try again")
    #expect(flakyCount(server) == 1)
    // A generous bound that only proves the request did not wait for the Retry-After.
    #expect(elapsed < .seconds(3), "took \(elapsed)")
    #expect(try await self.exchange(backend, server.url("/status/200"), total: .seconds(2)).status == 200)
  }

  @Test(arguments: Backend.allCases)
  func aPostIsNotRetried(_ backend: Backend) async throws {
    let server = try TestServer()
    let exchange = try await exchange(
      backend,
      server.url("/flaky?fail=1&retry-after=0"),
      method: .post,
      body: .data(Data("board".utf8))
    )
    #expect(exchange.status == 503)
    #expect(flakyCount(server) == 1)
  }

  @Test(arguments: Backend.allCases)
  func aRepeatableBodyIsSentAgain(_ backend: Backend) async throws {
    let server = try TestServer()
    let board = Data(#"{"title":"Balsa Fish"}"#.utf8)
    let exchange = try await exchange(
      backend,
      server.url("/flaky?fail=1&retry-after=0"),
      method: .put,
      body: .data(board)
    )
    #expect(exchange.status == 200)
    let bodies = server.requests.filter { $0.path == "/flaky" }.map(\.body)
    #expect(bodies == [board, board])
  }

  @Test(arguments: Backend.allCases)
  func aConnectionResetIsRetried(_ backend: Backend) async throws {
    let server = try TestServer()
    let exchange = try await exchange(backend, server.url("/flaky?fail=1&reset=1"))
    #expect(exchange.status == 200)
    #expect(exchange.text == "ok")
    #expect(flakyCount(server) == 2)
  }

  @Test(arguments: Backend.allCases)
  func resetsBeyondTheAttemptsEndWithTheResetError(_ backend: Backend) async throws {
    let server = try TestServer()
    let error = await #expect(throws: TransportError.self) {
      try await exchange(backend, server.url("/flaky?fail=10&reset=1"))
    }
    #expect(error?.code == .connectionReset)
    #expect(flakyCount(server) == 3)
    #expect(try await exchange(backend, server.url("/status/200")).status == 200)
  }

  @Test(arguments: Backend.allCases)
  func cancellingDuringTheWaitEndsTheRequestAtOnce(_ backend: Backend) async throws {
    let server = try TestServer()
    let waiting = Locked(false)
    let retry = RetryMiddleware(
      random: { Double.random(in: 0...1) },
      sleep: { duration in
        waiting.withLock { $0 = true }
        try await Task.sleep(for: duration)
      },
      now: { Date() }
    )
    let started = ContinuousClock.now
    let task = Task { try await exchange(backend, server.url("/flaky?fail=5&retry-after=20"), retry: retry) }
    for _ in 0..<5000 where !waiting.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
    #expect(waiting.withLock { $0 })
    task.cancel()
    let error = await #expect(throws: TransportError.self) { try await task.value }
    #expect(error?.code == .cancelled)
    // Ends well before the 20 s the server asked for, and nothing more reaches the server.
    #expect(ContinuousClock.now - started < .seconds(10))
    #expect(flakyCount(server) == 1)
    #expect(try await exchange(backend, server.url("/status/200")).status == 200)
  }
}
