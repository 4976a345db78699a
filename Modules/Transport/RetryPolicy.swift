public import HTTPTypes

/// When and how often ``RetryMiddleware`` sends a request again: after a connection failure or a response whose
/// status says "try again", for idempotent methods only unless told otherwise, waiting longer before each attempt.
///
/// ```swift
/// var options = TransferOptions()
/// options.retry = .default                          // 3 attempts, 0.5 s base, no retry past Retry-After: 30
/// options.retry.maxAttempts = 5
/// options.retry.methods.insert(.post)               // only when the server dedupes (an idempotency key, say)
/// options.retry.statuses.remove(.internalServerError)
/// let transport = CurlTransport().with(middleware: [RetryMiddleware()])
/// ```
///
/// The rules, in the order they are applied after each attempt:
/// - **Attempts.** At most ``maxAttempts`` sends in all, the first included; `1` (``none``) never retries.
/// - **Method.** Only requests whose method is in ``methods`` are retried: by default the idempotent ones of
///   RFC 9110 §9.2.2 (`GET`, `HEAD`, `PUT`, `DELETE`, `OPTIONS`, `TRACE`). `POST` and `PATCH` may create or change
///   something twice, so they are retried only when added.
/// - **Body.** A body that cannot be sent twice (a stream, `RequestBody.isRepeatable` false) is never re-sent:
///   the first response or error is returned as it is.
/// - **What is retried.** A response whose status is in ``statuses`` (408, 429, 500, 502, 503 and 504 by default),
///   or a ``TransportError`` whose code is in ``errorCodes`` (see ``defaultErrorCodes`` for which and why). Any other
///   response or error is returned at once. Only what happens before the response head is seen: a failure while
///   the returned body streams is the caller's.
/// - **How long to wait.** A `Retry-After` field on a retried response is honoured, in seconds (`120`) or as an
///   HTTP-date; a date in the past means at once. When it asks for more than ``noRetryIfRetryAfterExceeds``, the request is
///   not retried (the wait is never cut short to that length): that response is returned as it is, `Retry-After` and all, so that the caller can decide, rather than
///   parking the request for as long as the server asks or knocking again before the server said it would be ready.
///   A value that is neither form is ignored. Without one, the wait is exponential backoff with full jitter: before
///   retry *n* (1 for the first), a uniformly random duration between zero and
///   `min(maxDelay, baseDelay × 2^(n-1))`.
/// - **Deadline.** When the request has a ``Timeouts/total``, it bounds all attempts and waits together, from the
///   first attempt: a wait (`Retry-After` or backoff) at least as long as what remains is not taken, and the last
///   response or error is returned at once; each attempt's own total timeout is what remains.
///
/// Cancelling the task during a wait ends the request at once with ``TransportError/Code/cancelled``.
public struct RetryPolicy: Hashable, Sendable {
  /// The most times a request is sent, the first send included; `1` or less never retries.
  public var maxAttempts: Int
  /// The ceiling of the first backoff; each further retry doubles it, up to ``maxDelay``.
  public var baseDelay: Duration
  /// The largest backoff ceiling.
  public var maxDelay: Duration
  /// The longest `Retry-After` waited for. It is not a cap on the wait: a response asking for longer is not retried
  /// at all, and is returned as it is, `Retry-After` and all.
  public var noRetryIfRetryAfterExceeds: Duration
  /// The methods that are retried.
  public var methods: Set<HTTPRequest.Method>
  /// The response statuses that are retried.
  public var statuses: Set<HTTPResponse.Status>
  /// The transport errors that are retried.
  public var errorCodes: Set<TransportError.Code>

  /// Creates a policy; every argument has the value of ``default``.
  /// - Parameters:
  ///   - maxAttempts: The most sends in all; 3 by default.
  ///   - baseDelay: The first backoff ceiling; 0.5 s by default.
  ///   - maxDelay: The largest backoff ceiling; 10 s by default.
  ///   - noRetryIfRetryAfterExceeds: The longest `Retry-After` waited for; a response asking for longer is returned
  ///     without a retry. 30 s by default.
  ///   - methods: The methods retried; ``idempotentMethods`` by default.
  ///   - statuses: The statuses retried; ``defaultStatuses`` by default.
  ///   - errorCodes: The transport errors retried; ``defaultErrorCodes`` by default.
  public init(
    maxAttempts: Int = 3,
    baseDelay: Duration = .milliseconds(500),
    maxDelay: Duration = .seconds(10),
    noRetryIfRetryAfterExceeds: Duration = .seconds(30),
    methods: Set<HTTPRequest.Method> = RetryPolicy.idempotentMethods,
    statuses: Set<HTTPResponse.Status> = RetryPolicy.defaultStatuses,
    errorCodes: Set<TransportError.Code> = RetryPolicy.defaultErrorCodes
  ) {
    self.maxAttempts = maxAttempts
    self.baseDelay = baseDelay
    self.maxDelay = maxDelay
    self.noRetryIfRetryAfterExceeds = noRetryIfRetryAfterExceeds
    self.methods = methods
    self.statuses = statuses
    self.errorCodes = errorCodes
  }

  /// The old name of ``noRetryIfRetryAfterExceeds``, which read like a cap on the wait: a longer `Retry-After` is
  /// not shortened to it, the request is not retried.
  @available(*, deprecated, renamed: "noRetryIfRetryAfterExceeds")
  public var maxRetryAfter: Duration {
    get { noRetryIfRetryAfterExceeds }
    set { noRetryIfRetryAfterExceeds = newValue }
  }

  /// Creates a policy with the old name of ``noRetryIfRetryAfterExceeds``.
  /// - Parameters:
  ///   - maxAttempts: The most sends in all.
  ///   - baseDelay: The first backoff ceiling.
  ///   - maxDelay: The largest backoff ceiling.
  ///   - maxRetryAfter: The longest `Retry-After` waited for; a response asking for longer is returned without a
  ///     retry.
  ///   - methods: The methods retried.
  ///   - statuses: The statuses retried.
  ///   - errorCodes: The transport errors retried.
  @available(
    *,
    deprecated,
    renamed: "init(maxAttempts:baseDelay:maxDelay:noRetryIfRetryAfterExceeds:methods:statuses:errorCodes:)"
  )
  public init(
    maxAttempts: Int = 3,
    baseDelay: Duration = .milliseconds(500),
    maxDelay: Duration = .seconds(10),
    maxRetryAfter: Duration,
    methods: Set<HTTPRequest.Method> = RetryPolicy.idempotentMethods,
    statuses: Set<HTTPResponse.Status> = RetryPolicy.defaultStatuses,
    errorCodes: Set<TransportError.Code> = RetryPolicy.defaultErrorCodes
  ) {
    self.init(
      maxAttempts: maxAttempts,
      baseDelay: baseDelay,
      maxDelay: maxDelay,
      noRetryIfRetryAfterExceeds: maxRetryAfter,
      methods: methods,
      statuses: statuses,
      errorCodes: errorCodes
    )
  }

  /// No retry: every request is sent once. The default of ``TransferOptions/retry``.
  public static let none = RetryPolicy(maxAttempts: 1)

  /// Three attempts of idempotent requests, backoff from 0.5 s up to 10 s, `Retry-After` waited for up to 30 s (no
  /// retry when it asks for longer), on
  /// ``defaultStatuses`` and ``defaultErrorCodes``.
  public static let `default` = RetryPolicy()

  /// The methods RFC 9110 §9.2.2 calls idempotent: `GET`, `HEAD`, `PUT`, `DELETE`, `OPTIONS` and `TRACE`.
  public static let idempotentMethods: Set<HTTPRequest.Method> = [.get, .head, .put, .delete, .options, .trace]

  /// The statuses that say "try again later": 408 Request Timeout, 429 Too Many Requests, 500 Internal Server
  /// Error, 502 Bad Gateway, 503 Service Unavailable and 504 Gateway Timeout.
  public static let defaultStatuses: Set<HTTPResponse.Status> = [
    .requestTimeout, .tooManyRequests, .internalServerError, .badGateway, .serviceUnavailable, .gatewayTimeout,
  ]

  /// The transport errors after which the server may not have processed the request, or which are usually
  /// passing:
  /// - ``TransportError/Code/connectionRefused`` and ``TransportError/Code/connectTimeout``: no connection, so
  ///   nothing was sent (a server restarting, a full backlog).
  /// - ``TransportError/Code/connectionReset``: the connection ended before the response head, such as a kept-alive
  ///   connection the server had closed; the request may have been processed, which an idempotent method allows.
  /// - ``TransportError/Code/idleTimeout``: the server went silent; the same holds.
  ///
  /// Left out: ``TransportError/Code/totalTimeout`` (the caller's own deadline for the transfer),
  /// ``TransportError/Code/dnsFailure`` and ``TransportError/Code/tls`` (usually a wrong name or configuration, which
  /// waiting does not fix; add them for networks that drop out), ``TransportError/Code/protocolError`` (a server
  /// that breaks HTTP), ``TransportError/Code/cancelled``, and every error raised before sending or while reading a
  /// body.
  public static let defaultErrorCodes: Set<TransportError.Code> = [
    .connectionRefused, .connectTimeout, .connectionReset, .idleTimeout,
  ]
}

extension HTTPRequest.Method {
  /// Whether the method is one of ``RetryPolicy/idempotentMethods``, without hashing it (the transports ask for
  /// every request).
  package var isIdempotent: Bool {
    switch self {
    case .get, .head, .put, .delete, .options, .trace: true
    default: false
    }
  }
}
