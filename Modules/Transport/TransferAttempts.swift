@_spi(Malibu) import MalibuCore

/// How many times one request has been sent through the middleware below the one that counts.
///
/// ``current`` is a task-local counter: a counting middleware (MalibuLogging's `LoggingMiddleware`) binds a fresh
/// one around its call to the rest of the chain, and every middleware below it that sends the request again — token
/// refresh retrying after a 401 (MalibuAuth), ``RetryMiddleware`` after a passing failure — calls
/// `TransferAttempts.current?.recordResend()` before each extra send, and only the middleware that makes a send
/// counts it, so one send is never counted twice however those middleware nest. When nothing counts, ``current`` is
/// `nil` and nothing is recorded. Each request gets a counter of its own, so concurrent requests never share one.
///
/// ```swift
/// let attempts = TransferAttempts()
/// let response = try await TransferAttempts.$current.withValue(attempts) { try await next(request, body, options) }
/// print(attempts.resendCount)  // 0 when the request was sent once, 1 after a retry
/// ```
public final class TransferAttempts: Sendable {
  /// The counter of the request being sent, bound by the middleware that reports it; `nil` when none does.
  @TaskLocal public static var current: TransferAttempts?

  private let resends = Locked(0)

  /// Creates a counter at one attempt, no resend.
  public init() {}

  /// How many times the request was sent again after its first send (OpenTelemetry's
  /// `http.request.resend_count`): `0` when it was sent once.
  public var resendCount: Int { resends.withLock { $0 } }

  /// How many times the request was sent in all: ``resendCount`` plus one.
  public var attemptCount: Int { resendCount + 1 }

  /// Counts one more send of the same request.
  public func recordResend() {
    resends.withLock { $0 += 1 }
  }
}
