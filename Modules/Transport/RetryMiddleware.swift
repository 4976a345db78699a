package import Foundation
public import HTTPTypes

/// Sends a request again after a passing failure, by the ``RetryPolicy`` in ``TransferOptions/retry``.
///
/// ```swift
/// let transport = CurlTransport().with(middleware: [RetryMiddleware()])
/// var options = TransferOptions()
/// options.retry = .default
/// let (head, data, _) = try await transport.data(for: HTTPRequest(method: .get, url: url), options: options)
/// ```
///
/// The policy says which requests, outcomes and waits (see ``RetryPolicy``); with ``RetryPolicy/none`` (the
/// default) the middleware only passes the request on. Besides the policy:
/// - **Bodies.** A repeatable body is sent again as it is; a request whose body is not repeatable
///   (`RequestBody.isRepeatable` false, a stream) is sent once, and its first response or error returned.
/// - **Connections.** A response that is retried is not returned, so its body is let go before the wait (read to
///   the end when small and of known length, cancelled otherwise): it does not hold a connection.
/// - **Deadline.** ``Timeouts/total`` bounds the whole request, every attempt and every wait included, counted
///   once from the first attempt: each attempt gets only what remains as its total timeout, and a `Retry-After` or
///   backoff that would reach the deadline is not waited for: the response (or error) in hand is returned at once,
///   as it is. Should a wait end past the deadline anyway, no attempt is started: the last error is thrown, or,
///   after a response, ``TransportError/Code/totalTimeout``.
/// - **Cancellation.** Cancelling the task during a wait ends the request at once with
///   ``TransportError/Code/cancelled``; nothing more is sent.
/// - **Counting.** Each extra send is counted in `TransferAttempts.current`, so a logging middleware above reports
///   it as `http.request.resend_count`.
/// - **Place in the chain.** Put it innermost, right above the transport (or a mock transport): then every step
///   above it (logging, authentication, cookies, a cache) sees one request and one response, and every attempt
///   carries the same head. With `TokenRefreshMiddleware` (MalibuAuth) above it, a `401` is not the retry policy's
///   (it is not among its statuses): it goes up to the token refresh, whose one retry comes back down as a new
///   request with a budget of its own, so a refresh never uses up retries, a retry never triggers a refresh, and
///   each send is counted once.
/// - **One per request.** A `RetryMiddleware` below another one that is retrying the same request passes it
///   through, so a transport wrapped in one and handed to a `Networking` (whose chain has its own) does not multiply
///   the attempts. (Tasks started below a retrying `RetryMiddleware` inherit this, so a token refresh placed below
///   it would send its own request without retries: place the refresh above it, as said.)
public struct RetryMiddleware: Middleware {
  /// Whether a `RetryMiddleware` above is retrying the request being sent (bound around its calls to `next`).
  @TaskLocal private static var isRetrying = false

  private let random: @Sendable () -> Double
  private let sleep: @Sendable (Duration) async throws -> Void
  private let now: @Sendable () -> Date

  /// Creates the middleware; it reads its policy from each request's ``TransferOptions/retry``.
  public init() {
    self.init(
      random: { Double.random(in: 0...1) },
      sleep: { try await Task.sleep(for: $0) },
      now: { Date() }
    )
  }

  /// Creates the middleware with its sources of randomness, waiting and time replaced (for tests).
  /// - Parameters:
  ///   - random: A fraction in `0...1` for each backoff.
  ///   - sleep: Waits the given duration; throws when the task is cancelled.
  ///   - now: The current time, for `Retry-After` dates and the deadline that ``Timeouts/total`` sets.
  package init(
    random: @escaping @Sendable () -> Double,
    sleep: @escaping @Sendable (Duration) async throws -> Void,
    now: @escaping @Sendable () -> Date
  ) {
    self.random = random
    self.sleep = sleep
    self.now = now
  }

  /// Sends the request, and again while the policy says so.
  /// - Parameters:
  ///   - request: The request head, sent as it is by every attempt.
  ///   - body: The request body, if any.
  ///   - options: The transfer options; ``TransferOptions/retry`` is the policy.
  ///   - next: The rest of the chain.
  /// - Returns: The first response the policy does not retry, or the last attempt's.
  /// - Throws: The first error the policy does not retry, or the last attempt's; ``TransportError`` with code
  ///   ``TransportError/Code/cancelled`` when the task is cancelled while waiting to retry.
  public func intercept(
    _ request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions,
    next: Next
  ) async throws -> TransportResponse {
    let policy = options.retry
    guard policy.maxAttempts > 1, policy.methods.contains(request.method), body?.isRepeatable ?? true,
      !Self.isRetrying
    else {
      return try await next(request, body, options)
    }
    return try await Self.$isRetrying.withValue(true) {
      try await retry(request, body: body, options: options, policy: policy, next: next)
    }
  }

  /// Sends the request until the policy's state machine says to deliver.
  private func retry(
    _ request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions,
    policy: RetryPolicy,
    next: Next
  ) async throws -> TransportResponse {
    var state = StateMachine(policy: policy, total: options.timeouts.total, now: now())
    var attemptOptions = options
    while true {
      let wait: Duration
      let lastError: (any Error)?
      let lastStatus: HTTPResponse.Status?
      do {
        let response = try await next(request, body, attemptOptions)
        guard case .retry(let delay) = state.next(after: .response(response.head), now: now(), random: random) else {
          return response
        }
        await response.body.discard()
        (wait, lastError, lastStatus) = (delay, nil, response.head.status)
      } catch {
        guard case .retry(let delay) = state.next(after: .failure(error), now: now(), random: random) else {
          throw error
        }
        (wait, lastError, lastStatus) = (delay, error, nil)
      }
      try await pause(wait)
      switch state.attempt(now: now()) {
      case .send(let total):
        attemptOptions.timeouts.total = total
      case .expired:
        // The wait overran the deadline (a late wake-up): no attempt starts with no time left.
        if let lastError { throw lastError }
        throw TransportError(
          code: .totalTimeout,
          message: "the total timeout ran out while waiting to retry after a \(lastStatus?.code ?? 0) response"
        )
      }
      TransferAttempts.current?.recordResend()
    }
  }

  /// Waits before the next attempt; a cancelled task ends the wait, and the request, at once.
  private func pause(_ wait: Duration) async throws(TransportError) {
    do {
      if wait > .zero { try await sleep(wait) }
      try Task.checkCancellation()
    } catch {
      throw TransportError(
        code: .cancelled,
        message: "the request was cancelled while waiting to be retried",
        underlyingError: error
      )
    }
  }
}
