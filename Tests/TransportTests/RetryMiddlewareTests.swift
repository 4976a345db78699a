import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuCore
import MalibuTestSupport
import MalibuTransport
import Testing

@Suite("Retry middleware")
struct RetryMiddlewareTests {
  /// Sends one request through the middleware, counting resends as a logging middleware would.
  private func send(
    _ request: HTTPRequest = .retryTest(),
    body: RequestBody? = nil,
    through transport: ScriptedTransport,
    retry: RetryMiddleware,
    policy: RetryPolicy
  ) async throws -> (response: TransportResponse, resends: Int) {
    let attempts = TransferAttempts()
    let response = try await TransferAttempts.$current.withValue(attempts) {
      try await transport.with(middleware: [retry]).send(request, body: body, options: .retrying(policy))
    }
    return (response, attempts.resendCount)
  }

  @Test func transferOptionsRetryNothingByDefault() async throws {
    #expect(TransferOptions().retry == .none)
    let transport = ScriptedTransport([.status(.serviceUnavailable, [("Retry-After", "0")])])
    let sleeper = SleepRecorder()
    let response = try await transport.with(middleware: [RetryMiddleware.scripted(sleeper: sleeper)])
      .send(.retryTest(), body: nil, options: TransferOptions())
    #expect(response.head.status == .serviceUnavailable)
    #expect(transport.requests.count == 1)
    #expect(sleeper.waits.isEmpty)
  }

  @Test(arguments: [408, 429, 500, 502, 503, 504])
  func eachDefaultStatusIsRetried(_ code: Int) async throws {
    let transport = ScriptedTransport([.status(HTTPResponse.Status(code: code))])
    let sleeper = SleepRecorder()
    let (response, resends) = try await send(
      through: transport,
      retry: .scripted(sleeper: sleeper),
      policy: .default
    )
    #expect(response.head.status == .ok)
    #expect(try await response.body.collect(upTo: 100) == Data("ok".utf8))
    #expect(transport.requests.count == 2)
    #expect(resends == 1)
    #expect(sleeper.waits == [.milliseconds(500)])
  }

  @Test(arguments: [200, 201, 301, 400, 401, 403, 404, 409, 501, 505])
  func otherStatusesAreReturnedAtOnce(_ code: Int) async throws {
    let transport = ScriptedTransport([.status(HTTPResponse.Status(code: code))])
    let sleeper = SleepRecorder()
    let (response, resends) = try await send(
      through: transport,
      retry: .scripted(sleeper: sleeper),
      policy: .default
    )
    #expect(response.head.status.code == code)
    #expect(transport.requests.count == 1)
    #expect(resends == 0)
    #expect(sleeper.waits.isEmpty)
  }

  @Test func statusesAreConfigurable() async throws {
    var policy = RetryPolicy.default
    policy.statuses.remove(.internalServerError)
    policy.statuses.insert(HTTPResponse.Status(code: 418))
    let teapot = ScriptedTransport([.status(HTTPResponse.Status(code: 418))])
    let teapotResponse = try await send(through: teapot, retry: .scripted(sleeper: SleepRecorder()), policy: policy)
    #expect(teapotResponse.response.head.status == .ok)
    #expect(teapot.requests.count == 2)
    let failing = ScriptedTransport([.status(.internalServerError)])
    let failingResponse = try await send(through: failing, retry: .scripted(sleeper: SleepRecorder()), policy: policy)
    #expect(failingResponse.response.head.status == .internalServerError)
    #expect(failing.requests.count == 1)
  }

  @Test(arguments: 1...5)
  func attemptsAreCountedAndCapped(_ maxAttempts: Int) async throws {
    let transport = ScriptedTransport(Array(repeating: .status(.serviceUnavailable), count: 10))
    let sleeper = SleepRecorder()
    var policy = RetryPolicy.default
    policy.maxAttempts = maxAttempts
    let (response, resends) = try await send(through: transport, retry: .scripted(sleeper: sleeper), policy: policy)
    #expect(response.head.status == .serviceUnavailable)
    #expect(try await response.body.collect(upTo: 100) == Data("status 503".utf8))
    #expect(transport.requests.count == maxAttempts)
    #expect(resends == maxAttempts - 1)
    #expect(sleeper.waits.count == maxAttempts - 1)
  }

  @Test func zeroOrNegativeAttemptsSendOnce() async throws {
    for maxAttempts in [0, -3] {
      let transport = ScriptedTransport([.status(.serviceUnavailable)])
      var policy = RetryPolicy.default
      policy.maxAttempts = maxAttempts
      let (response, _) = try await send(through: transport, retry: .scripted(sleeper: SleepRecorder()), policy: policy)
      #expect(response.head.status == .serviceUnavailable)
      #expect(transport.requests.count == 1)
    }
  }

  @Test func backoffIsExponentialWithFullJitterUpToTheCap() async throws {
    let transport = ScriptedTransport(Array(repeating: .error(.connectionReset), count: 5))
    let sleeper = SleepRecorder()
    let random = FixedRandom([1, 0.5, 0.25, 1, 0.5])
    let policy = RetryPolicy(maxAttempts: 6, baseDelay: .seconds(1), maxDelay: .seconds(5))
    let (response, resends) = try await send(
      through: transport,
      retry: .scripted(sleeper: sleeper, random: random),
      policy: policy
    )
    #expect(response.head.status == .ok)
    #expect(resends == 5)
    // Ceilings 1, 2, 4, 5 (8 capped), 5 (16 capped) s, times the fractions.
    #expect(sleeper.waits == [.seconds(1), .seconds(1), .seconds(1), .seconds(5), .milliseconds(2500)])
    #expect(random.reads == 5)
  }

  @Test(
    arguments: [
      (1, 0.0, Duration.zero),
      (1, 0.5, .milliseconds(250)),
      (2, 1.0, .seconds(1)),
      (3, 0.75, .milliseconds(1500)),
      (7, 1.0, .seconds(10)),
      (1000, 0.5, .seconds(5)),
      (Int.max, 1.0, .seconds(10)),
      (1, 7.0, .milliseconds(500)),
      (1, -1.0, .zero),
      (1, .nan, .zero),
    ] as [(Int, Double, Duration)]
  )
  func backoffFormula(retry: Int, fraction: Double, expected: Duration) {
    #expect(RetryPolicy.default.backoff(beforeRetry: retry, fraction: fraction) == expected)
  }

  @Test(
    arguments: [
      ([("Retry-After", "0")], RetryPolicy.RetryAfter.wait(.zero)),
      ([("Retry-After", "7")], .wait(.seconds(7))),
      ([("Retry-After", "30")], .wait(.seconds(30))),
      ([("Retry-After", "31")], .tooLong),
      ([("Retry-After", "3600")], .tooLong),
      ([("Retry-After", "99999999999999999999999999")], .tooLong),
      ([("Retry-After", "Sun, 06 Nov 1994 08:49:47 GMT")], .wait(.seconds(10))),
      ([("Retry-After", "Sunday, 06-Nov-94 08:50:07 GMT")], .wait(.seconds(30))),
      ([("Retry-After", "Sun Nov  6 08:49:38 1994")], .wait(.seconds(1))),
      ([("Retry-After", "Sun, 06 Nov 1994 08:49:00 GMT")], .wait(.zero)),
      ([("Retry-After", "Sun, 06 Nov 1994 09:49:37 GMT")], .tooLong),
      ([("Retry-After", "soon")], .absent),
      ([("Retry-After", "-1")], .absent),
      ([("Retry-After", "1.5")], .absent),
      ([("Retry-After", "+5")], .absent),
      ([("Retry-After", "")], .absent),
      ([("Retry-After", "5"), ("Retry-After", "6")], .absent),
      ([], .absent),
    ] as [([(String, String)], RetryPolicy.RetryAfter)]
  )
  func retryAfterValues(fields: [(String, String)], expected: RetryPolicy.RetryAfter) {
    var head = HTTPFields()
    for (name, value) in fields { head.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
    #expect(RetryPolicy.default.retryAfter(head, now: retryTestNow) == expected)
  }

  @Test func retryAfterSecondsAndDatesReplaceTheBackoff() async throws {
    let transport = ScriptedTransport([
      .status(.serviceUnavailable, [("Retry-After", "3")]),
      .status(.tooManyRequests, [("Retry-After", "Sun, 06 Nov 1994 08:49:47 GMT")]),
      .status(.serviceUnavailable, [("Retry-After", "0")]),
      .status(.serviceUnavailable, [("Retry-After", "Sun, 06 Nov 1994 08:00:00 GMT")]),
    ])
    let sleeper = SleepRecorder()
    let random = FixedRandom([0.5])
    var policy = RetryPolicy.default
    policy.maxAttempts = 5
    let (response, resends) = try await send(
      through: transport,
      retry: .scripted(sleeper: sleeper, random: random),
      policy: policy
    )
    #expect(response.head.status == .ok)
    #expect(transport.requests.count == 5)
    #expect(resends == 4)
    // `0` and a date in the past retry at once, without a wait.
    #expect(sleeper.waits == [.seconds(3), .seconds(10)])
    #expect(random.reads == 0)
  }

  @Test(arguments: ["31", "3600", "Sun, 06 Nov 1994 09:49:37 GMT"])
  func retryAfterBeyondTheCapReturnsTheResponse(_ value: String) async throws {
    let transport = ScriptedTransport([.status(.serviceUnavailable, [("Retry-After", value)])])
    let sleeper = SleepRecorder()
    let (response, resends) = try await send(
      through: transport,
      retry: .scripted(sleeper: sleeper),
      policy: .default
    )
    #expect(response.head.status == .serviceUnavailable)
    #expect(response.head.headerFields[.retryAfter] == value)
    #expect(try await response.body.collect(upTo: 100) == Data("status 503".utf8))
    #expect(transport.requests.count == 1)
    #expect(resends == 0)
    #expect(sleeper.waits.isEmpty)
  }

  @Test func theRetryAfterCapIsConfigurable() async throws {
    let transport = ScriptedTransport([.status(.serviceUnavailable, [("Retry-After", "3600")])])
    let sleeper = SleepRecorder()
    var policy = RetryPolicy.default
    policy.noRetryIfRetryAfterExceeds = .seconds(7200)
    let (response, _) = try await send(through: transport, retry: .scripted(sleeper: sleeper), policy: policy)
    #expect(response.head.status == .ok)
    #expect(sleeper.waits == [.seconds(3600)])
  }

  @Test(arguments: ["soon", "-1", "Sun, 06 Nov 1994 08:49:37 CET"])
  func anInvalidRetryAfterFallsBackToTheBackoff(_ value: String) async throws {
    let transport = ScriptedTransport([.status(.serviceUnavailable, [("Retry-After", value)])])
    let sleeper = SleepRecorder()
    let random = FixedRandom([0.5])
    let (response, _) = try await send(
      through: transport,
      retry: .scripted(sleeper: sleeper, random: random),
      policy: .default
    )
    #expect(response.head.status == .ok)
    #expect(sleeper.waits == [.milliseconds(250)])
    #expect(random.reads == 1)
  }

  @Test(
    arguments: [
      (HTTPRequest.Method.get, RetryPolicy.idempotentMethods, 2),
      (.head, RetryPolicy.idempotentMethods, 2),
      (.put, RetryPolicy.idempotentMethods, 2),
      (.delete, RetryPolicy.idempotentMethods, 2),
      (.options, RetryPolicy.idempotentMethods, 2),
      (.trace, RetryPolicy.idempotentMethods, 2),
      (.post, RetryPolicy.idempotentMethods, 1),
      (.patch, RetryPolicy.idempotentMethods, 1),
      (.connect, RetryPolicy.idempotentMethods, 1),
      (.post, RetryPolicy.idempotentMethods.union([.post]), 2),
      (.patch, RetryPolicy.idempotentMethods.union([.patch]), 2),
      (.get, [.post], 1),
    ] as [(HTTPRequest.Method, Set<HTTPRequest.Method>, Int)]
  )
  func onlyTheMethodsOfThePolicyAreRetried(
    method: HTTPRequest.Method,
    methods: Set<HTTPRequest.Method>,
    sends: Int
  ) async throws {
    let transport = ScriptedTransport([.status(.serviceUnavailable)])
    var policy = RetryPolicy.default
    policy.methods = methods
    let (response, resends) = try await send(
      .retryTest(method),
      body: .data(Data("board".utf8)),
      through: transport,
      retry: .scripted(sleeper: SleepRecorder()),
      policy: policy
    )
    #expect(response.head.status == (sends == 2 ? .ok : .serviceUnavailable))
    #expect(transport.requests.count == sends)
    #expect(resends == sends - 1)
  }

  @Test func aRepeatableBodyIsSentAgainWhole() async throws {
    let transport = ScriptedTransport([.error(.connectionReset), .status(.badGateway)])
    let board = Data(#"{"title":"Balsa Fish"}"#.utf8)
    let (response, _) = try await send(
      .retryTest(.put),
      body: .data(board),
      through: transport,
      retry: .scripted(sleeper: SleepRecorder()),
      policy: .default
    )
    #expect(response.head.status == .ok)
    #expect(transport.bodies == [board, board, board])
  }

  @Test(arguments: [false, true])
  func aStreamedBodyIsNeverSentAgain(afterError: Bool) async throws {
    let transport = ScriptedTransport([
      afterError ? .error(.connectionReset) : .status(.serviceUnavailable, [("Retry-After", "0")])
    ])
    let sleeper = SleepRecorder()
    let chunks = AsyncStream<Data> { continuation in
      continuation.yield(Data("live".utf8))
      continuation.finish()
    }
    let body = RequestBody.stream(chunks, length: nil)
    if afterError {
      let error = await #expect(throws: TransportError.self) {
        try await send(
          .retryTest(.put),
          body: body,
          through: transport,
          retry: .scripted(sleeper: sleeper),
          policy: .default
        )
      }
      #expect(error?.code == .connectionReset)
    } else {
      let (response, resends) = try await send(
        .retryTest(.put),
        body: body,
        through: transport,
        retry: .scripted(sleeper: sleeper),
        policy: .default
      )
      #expect(response.head.status == .serviceUnavailable)
      #expect(resends == 0)
    }
    #expect(transport.requests.count == 1)
    #expect(transport.bodies == [Data("live".utf8)])
    #expect(sleeper.waits.isEmpty)
  }

  @Test(arguments: [TransportError.Code.connectionRefused, .connectTimeout, .connectionReset, .idleTimeout])
  func connectionFailuresAreRetried(_ code: TransportError.Code) async throws {
    let transport = ScriptedTransport([.error(code)])
    let sleeper = SleepRecorder()
    let (response, resends) = try await send(through: transport, retry: .scripted(sleeper: sleeper), policy: .default)
    #expect(response.head.status == .ok)
    #expect(transport.requests.count == 2)
    #expect(resends == 1)
    #expect(sleeper.waits == [.milliseconds(500)])
  }

  @Test(
    arguments: [
      TransportError.Code.totalTimeout, .dnsFailure, .tls, .protocolError, .cancelled, .invalidRequest,
      .tooManyRedirects, .bodyTooLarge, .decodingFailed, .unsupportedOption, .other,
    ]
  )
  func otherTransportErrorsAreThrownAtOnce(_ code: TransportError.Code) async throws {
    let transport = ScriptedTransport([.error(code)])
    let sleeper = SleepRecorder()
    let error = await #expect(throws: TransportError.self) {
      try await send(through: transport, retry: .scripted(sleeper: sleeper), policy: .default)
    }
    #expect(error?.code == code)
    #expect(transport.requests.count == 1)
    #expect(sleeper.waits.isEmpty)
  }

  @Test func errorCodesAreConfigurable() async throws {
    var policy = RetryPolicy.default
    policy.errorCodes = [.dnsFailure]
    let dns = ScriptedTransport([.error(.dnsFailure)])
    #expect(
      try await send(through: dns, retry: .scripted(sleeper: SleepRecorder()), policy: policy).response.head
        .status == .ok
    )
    #expect(dns.requests.count == 2)
    let reset = ScriptedTransport([.error(.connectionReset)])
    await #expect(throws: TransportError.self) {
      try await send(through: reset, retry: .scripted(sleeper: SleepRecorder()), policy: policy)
    }
    #expect(reset.requests.count == 1)
  }

  @Test func errorsThatAreNotTransportErrorsAreThrownAtOnce() async throws {
    struct Refused: Error {}
    let transport = ScriptedTransport([.thrown(Refused()), .thrown(CancellationError())])
    for _ in 0..<2 {
      await #expect(throws: (any Error).self) {
        try await send(through: transport, retry: .scripted(sleeper: SleepRecorder()), policy: .default)
      }
    }
    #expect(transport.requests.count == 2)
  }

  @Test func theLastErrorIsThrownOnceTheAttemptsAreUsedUp() async throws {
    let transport = ScriptedTransport([.error(.connectionRefused), .error(.connectTimeout), .error(.connectionReset)])
    let sleeper = SleepRecorder()
    let error = await #expect(throws: TransportError.self) {
      try await send(through: transport, retry: .scripted(sleeper: sleeper), policy: .default)
    }
    #expect(error?.code == .connectionReset)
    #expect(transport.requests.count == 3)
    #expect(sleeper.waits == [.milliseconds(500), .seconds(1)])
    // The same transport then serves a good request.
    let (response, _) = try await send(through: transport, retry: .scripted(sleeper: sleeper), policy: .default)
    #expect(response.head.status == .ok)
  }

  @Test func aRetriedResponsesBodyIsLetGo() async throws {
    let watch = BodyWatch()
    let transport = ScriptedTransport([.endless(.serviceUnavailable, watch)])
    let (response, _) = try await send(through: transport, retry: .scripted(sleeper: SleepRecorder()), policy: .default)
    #expect(response.head.status == .ok)
    try await eventually { watch.isCancelled }
  }

  @Test(arguments: [false, true])
  func cancellationDuringTheWaitEndsAtOnce(afterError: Bool) async throws {
    let transport = ScriptedTransport([afterError ? .error(.connectionReset) : .status(.serviceUnavailable)])
    let sleeper = SleepRecorder(blocks: true)
    let retry = RetryMiddleware.scripted(sleeper: sleeper)
    let task = Task { try await send(through: transport, retry: retry, policy: .default) }
    try await eventually { sleeper.started == 1 }
    task.cancel()
    let error = await #expect(throws: TransportError.self) { try await task.value }
    #expect(error?.code == .cancelled)
    #expect(error?.underlyingError is CancellationError)
    #expect(transport.requests.count == 1)
    #expect(sleeper.started == 1)
    // The same middleware and transport then serve a good request.
    let ok = try await send(through: transport, retry: .scripted(sleeper: SleepRecorder()), policy: .default)
    #expect(ok.response.head.status == .ok)
    #expect(transport.requests.count == 2)
  }

  @Test func aTaskCancelledBeforeAnImmediateRetrySendsNothingMore() async throws {
    let transport = ScriptedTransport([.status(.serviceUnavailable, [("Retry-After", "0")])])
    let sleeper = SleepRecorder()
    let started = Gate()
    let task = Task {
      await started.wait()
      return try await send(through: transport, retry: .scripted(sleeper: sleeper), policy: .default)
    }
    task.cancel()
    started.open()
    let error = await #expect(throws: TransportError.self) { try await task.value }
    #expect(error?.code == .cancelled)
    #expect(transport.requests.count == 1)
    #expect(sleeper.waits.isEmpty)
  }

  @Test func aRetryMiddlewareBelowARetryingOneDoesNotMultiplyTheAttempts() async throws {
    let transport = ScriptedTransport(Array(repeating: .status(.serviceUnavailable), count: 20))
    let outer = SleepRecorder()
    let inner = SleepRecorder()
    let attempts = TransferAttempts()
    let response = try await TransferAttempts.$current.withValue(attempts) {
      try await transport.with(middleware: [.scripted(sleeper: outer), RetryMiddleware.scripted(sleeper: inner)])
        .send(.retryTest(), body: nil, options: .retrying(.default))
    }
    #expect(response.head.status == .serviceUnavailable)
    #expect(transport.requests.count == 3)
    #expect(attempts.resendCount == 2)
    #expect(outer.waits.count == 2)
    #expect(inner.waits.isEmpty)
    // Each request starts afresh: the next one is retried again.
    let next = try await transport.with(middleware: [RetryMiddleware.scripted(sleeper: inner)])
      .send(.retryTest(), body: nil, options: .retrying(.default))
    #expect(next.head.status == .serviceUnavailable)
    #expect(transport.requests.count == 6)
    #expect(inner.waits.count == 2)
  }

  @Test func theStateMachineCountsAttemptsAndStopsAtTheLast() {
    var state = RetryMiddleware.StateMachine(policy: RetryPolicy(maxAttempts: 3, baseDelay: .seconds(1)))
    #expect(state.attempts == 1)
    let busy = HTTPResponse(status: .serviceUnavailable, headerFields: [.retryAfter: "2"])
    #expect(state.next(after: .response(busy), now: retryTestNow, random: { 1 }) == .retry(after: .seconds(2)))
    #expect(state.attempts == 2)
    let reset = TransportError(code: .connectionReset, message: "reset")
    #expect(state.next(after: .failure(reset), now: retryTestNow, random: { 0.5 }) == .retry(after: .seconds(1)))
    #expect(state.attempts == 3)
    #expect(state.next(after: .failure(reset), now: retryTestNow, random: { 1 }) == .deliver)
    #expect(state.next(after: .response(busy), now: retryTestNow, random: { 1 }) == .deliver)
    #expect(state.attempts == 3)
  }

  @Test func policiesAreHashable() {
    #expect(RetryPolicy.default == RetryPolicy())
    #expect(RetryPolicy.none != RetryPolicy.default)
    #expect(Set([RetryPolicy.none, .default, RetryPolicy()]).count == 2)
  }

  /// The transports' quick check agrees with the policy's set, for every method a request may carry.
  @Test(arguments: [
    HTTPRequest.Method.get, .head, .put, .delete, .options, .trace, .post, .patch, .connect,
    HTTPRequest.Method("PURGE")!, HTTPRequest.Method("get")!,
  ])
  func isIdempotentIsTheSetOfIdempotentMethods(_ method: HTTPRequest.Method) {
    #expect(method.isIdempotent == RetryPolicy.idempotentMethods.contains(method))
  }
}
