package import Foundation
package import HTTPTypes

extension RetryMiddleware {
  /// The retry state of one request: how many times it was sent, and what to do after each attempt.
  ///
  /// Pure and synchronous: the middleware feeds it each attempt's outcome, with the time and a source of random
  /// fractions, and performs the action it returns.
  ///
  /// It also keeps the request's deadline: ``Timeouts/total``, counted once from the first attempt, bounds every
  /// attempt and every wait together. Before each attempt ``attempt(now:)`` gives it only what remains; a wait (a
  /// `Retry-After` or a backoff) that would reach the deadline is not taken, and the last answer is delivered at once.
  package struct StateMachine: Sendable {
    /// How an attempt ended.
    package enum Outcome: Sendable {
      /// A response head arrived.
      case response(HTTPResponse)
      /// The rest of the chain threw.
      case failure(any Error)
    }

    /// What to do next.
    package enum Action: Hashable, Sendable {
      /// Hand this attempt's response or error to the caller.
      case deliver
      /// Wait this long, then send the request again.
      case retry(after: Duration)
    }

    /// What to do when an attempt is about to start.
    package enum Attempt: Hashable, Sendable {
      /// Send it, with this total timeout (`nil`: none).
      case send(total: Duration?)
      /// The deadline has passed (the wait overran it): send nothing more; the last answer is the caller's.
      case expired
    }

    private let policy: RetryPolicy
    /// When the whole request must be over: the first attempt's start plus ``Timeouts/total``; `nil` without one.
    package let deadline: Date?
    /// How many times the request was sent so far.
    package private(set) var attempts = 1

    /// The state of a request about to be sent for the first time, under `policy` (its method and body already found
    /// retryable).
    /// - Parameters:
    ///   - policy: The request's policy.
    ///   - total: The request's ``Timeouts/total``, which bounds all its attempts and waits; `nil` for none.
    ///   - now: The time of the first attempt.
    package init(policy: RetryPolicy, total: Duration? = nil, now: Date = Date()) {
      self.policy = policy
      self.deadline = total.map { now.addingTimeInterval($0.secondsValue) }
    }

    /// The total timeout of the attempt starting now: what remains until the deadline.
    /// - Parameter now: The current time.
    /// - Returns: Send with what remains, or ``Attempt/expired`` when nothing does.
    package func attempt(now: Date) -> Attempt {
      guard let deadline else { return .send(total: nil) }
      let remaining = deadline.timeIntervalSince(now)
      guard remaining > 0 else { return .expired }
      return .send(total: .seconds(remaining))
    }

    /// The action after the latest attempt; a retry counts the next attempt.
    /// - Parameters:
    ///   - outcome: How the latest attempt ended.
    ///   - now: The current time, against which a `Retry-After` date is measured.
    ///   - random: A fraction in `0...1`, read once per backoff (not for a `Retry-After` wait).
    /// - Returns: Deliver, or retry after a wait.
    package mutating func next(after outcome: Outcome, now: Date, random: () -> Double) -> Action {
      guard attempts < policy.maxAttempts else { return .deliver }
      let wait: Duration
      switch outcome {
      case .response(let head):
        guard policy.statuses.contains(head.status) else { return .deliver }
        switch policy.retryAfter(head.headerFields, now: now) {
        case .tooLong: return .deliver
        case .wait(let delay): wait = delay
        case .absent: wait = policy.backoff(beforeRetry: attempts, fraction: random())
        }
      case .failure(let error):
        guard let error = error as? TransportError, policy.errorCodes.contains(error.code) else { return .deliver }
        wait = policy.backoff(beforeRetry: attempts, fraction: random())
      }
      // A wait that reaches the deadline would leave the next attempt no time: the answer in hand is the last.
      if let deadline, wait.secondsValue >= deadline.timeIntervalSince(now) { return .deliver }
      attempts += 1
      return .retry(after: wait)
    }
  }
}

extension RetryPolicy {
  /// What a response's `Retry-After` asks for.
  package enum RetryAfter: Hashable, Sendable {
    /// No usable value (none, several, or neither form): back off as usual.
    case absent
    /// Wait this long (zero for a date in the past).
    case wait(Duration)
    /// Longer than ``RetryPolicy/noRetryIfRetryAfterExceeds``: do not retry.
    case tooLong
  }

  /// Reads `Retry-After` (RFC 9110 §10.2.3): delay-seconds (digits only) or an HTTP-date.
  /// - Parameters:
  ///   - fields: The response's header fields.
  ///   - now: The current time.
  /// - Returns: The wait it asks for, measured against ``noRetryIfRetryAfterExceeds``.
  package func retryAfter(_ fields: HTTPFields, now: Date) -> RetryAfter {
    let values = fields[values: .retryAfter]
    guard values.count == 1, let value = values.first, !value.isEmpty else { return .absent }
    let seconds: Double
    if value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
      // Too many digits for an Int is too long by any measure.
      seconds = Int(value).map(Double.init) ?? .infinity
    } else if let date = HTTPDate.parse(value) {
      seconds = max(0, date.timeIntervalSince(now))
    } else {
      return .absent
    }
    guard seconds <= noRetryIfRetryAfterExceeds.secondsValue else { return .tooLong }
    return .wait(.seconds(seconds))
  }

  /// The full-jitter backoff before retry `retry` (1 for the first): `fraction` of
  /// `min(maxDelay, baseDelay × 2^(retry-1))`.
  /// - Parameters:
  ///   - retry: Which retry this is, from 1.
  ///   - fraction: A random fraction in `0...1` (clamped).
  /// - Returns: The wait.
  package func backoff(beforeRetry retry: Int, fraction: Double) -> Duration {
    let base = max(0, baseDelay.secondsValue)
    let cap = max(0, maxDelay.secondsValue)
    // Doubles in floating point: a large exponent saturates at infinity, which the cap then bounds.
    let ceiling = min(cap, base * pow(2, Double(min(max(retry - 1, 0), 1024))))
    let share = fraction.isNaN ? 0 : min(max(fraction, 0), 1)
    return .seconds(ceiling * share)
  }
}

extension Duration {
  /// The duration in seconds, as a floating-point number.
  fileprivate var secondsValue: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }
}
