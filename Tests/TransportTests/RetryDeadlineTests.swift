import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuCore
import MalibuTransport
import Testing

/// `Timeouts.total` bounds a retried request as a whole: attempts and waits together, from the first attempt.
/// No test sleeps: the clock is a value the tests (and the fake waits and transport) move.
@Suite("Retry deadline")
struct RetryDeadlineTests {
  static let start = Date(timeIntervalSince1970: 1_800_000_000)

  static func response(_ status: HTTPResponse.Status, retryAfter: String? = nil) -> HTTPResponse {
    var head = HTTPResponse(status: status)
    if let retryAfter { head.headerFields[.retryAfter] = retryAfter }
    return head
  }

  static func seconds(_ duration: Duration?) -> Double? {
    duration.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 }
  }

  // MARK: - The state machine

  struct Case: Sendable, CustomTestStringConvertible {
    var name: String
    var total: Duration?
    /// Seconds after the start at which the attempt ended.
    var endedAt: Double
    var outcome: RetryMiddleware.StateMachine.Outcome
    var expected: RetryMiddleware.StateMachine.Action
    var testDescription: String { name }
  }

  static let cases: [Case] = [
    Case(
      name: "Retry-After 25 under total 2 s: the 503 at once",
      total: .seconds(2),
      endedAt: 0.01,
      outcome: .response(response(.serviceUnavailable, retryAfter: "25")),
      expected: .deliver
    ),
    Case(
      name: "Retry-After 25 without a total: waited for",
      total: nil,
      endedAt: 0.01,
      outcome: .response(response(.serviceUnavailable, retryAfter: "25")),
      expected: .retry(after: .seconds(25))
    ),
    Case(
      name: "Retry-After 1 with 1.5 s left: waited for",
      total: .seconds(2),
      endedAt: 0.5,
      outcome: .response(response(.serviceUnavailable, retryAfter: "1")),
      expected: .retry(after: .seconds(1))
    ),
    Case(
      name: "Retry-After 1 with 0.5 s left: the 503 at once",
      total: .seconds(2),
      endedAt: 1.5,
      outcome: .response(response(.serviceUnavailable, retryAfter: "1")),
      expected: .deliver
    ),
    Case(
      name: "a wait exactly as long as what remains: the answer at once",
      total: .seconds(2),
      endedAt: 1,
      outcome: .response(response(.serviceUnavailable, retryAfter: "1")),
      expected: .deliver
    ),
    Case(
      name: "a backoff (0.5 s) with 0.4 s left: the error at once",
      total: .seconds(2),
      endedAt: 1.6,
      outcome: .failure(TransportError(code: .connectionRefused, message: "refused")),
      expected: .deliver
    ),
    Case(
      name: "a backoff (0.5 s) with 1 s left: waited for",
      total: .seconds(2),
      endedAt: 1,
      outcome: .failure(TransportError(code: .connectionRefused, message: "refused")),
      expected: .retry(after: .seconds(0.5))
    ),
    Case(
      name: "the deadline already passed: the answer at once",
      total: .seconds(2),
      endedAt: 2.5,
      outcome: .response(response(.serviceUnavailable, retryAfter: "0")),
      expected: .deliver
    ),
  ]

  @Test(arguments: cases)
  func theDeadlineDecides(_ item: Case) {
    var state = RetryMiddleware.StateMachine(policy: .default, total: item.total, now: Self.start)
    let action = state.next(after: item.outcome, now: Self.start.addingTimeInterval(item.endedAt), random: { 1 })
    #expect(action == item.expected)
    #expect(state.attempts == (action == .deliver ? 1 : 2))
  }

  @Test func eachAttemptGetsWhatRemains() {
    let state = RetryMiddleware.StateMachine(policy: .default, total: .seconds(2), now: Self.start)
    #expect(state.deadline == Self.start.addingTimeInterval(2))
    guard case .send(let first) = state.attempt(now: Self.start) else {
      Issue.record("the first attempt was not sent")
      return
    }
    #expect(Self.seconds(first) == 2)
    guard case .send(let later) = state.attempt(now: Self.start.addingTimeInterval(1.25)) else {
      Issue.record("an attempt with time left was not sent")
      return
    }
    #expect(abs((Self.seconds(later) ?? 0) - 0.75) < 1e-6)
    #expect(state.attempt(now: Self.start.addingTimeInterval(2)) == .expired)
    #expect(state.attempt(now: Self.start.addingTimeInterval(9)) == .expired)
    let unbounded = RetryMiddleware.StateMachine(policy: .default, now: Self.start)
    #expect(unbounded.deadline == nil)
    #expect(unbounded.attempt(now: Self.start.addingTimeInterval(1e6)) == .send(total: nil))
  }

  // MARK: - The middleware, with a moved clock

  /// A clock, a transport that takes `attemptTime` per attempt and records the total it was given, and waits that
  /// move the clock by what they were asked for plus `oversleep`.
  final class Rig: Transport {
    private let state: Locked<(now: Date, totals: [Duration?], waits: [Duration])>
    let attemptTime: TimeInterval
    let oversleep: TimeInterval
    let answer: @Sendable () throws -> TransportResponse

    init(
      attemptTime: TimeInterval,
      oversleep: TimeInterval = 0,
      answer: @escaping @Sendable () throws -> TransportResponse
    ) {
      state = Locked((RetryDeadlineTests.start, [], []))
      self.attemptTime = attemptTime
      self.oversleep = oversleep
      self.answer = answer
    }

    var totals: [Duration?] { state.withLock { $0.totals } }
    var waits: [Duration] { state.withLock { $0.waits } }
    var now: Date { state.withLock { $0.now } }

    func send(_ request: HTTPRequest, body: RequestBody?, options: TransferOptions) async throws -> TransportResponse {
      state.withLock {
        $0.totals.append(options.timeouts.total)
        $0.now = $0.now.addingTimeInterval(attemptTime)
      }
      return try answer()
    }

    var middleware: RetryMiddleware {
      RetryMiddleware(
        random: { 1 },
        sleep: { duration in
          self.state.withLock {
            $0.waits.append(duration)
            $0.now = $0.now.addingTimeInterval(RetryDeadlineTests.seconds(duration)! + self.oversleep)
          }
        },
        now: { self.now }
      )
    }

    func run(total: Duration, policy: RetryPolicy = .default) async throws -> TransportResponse {
      var options = TransferOptions()
      options.retry = policy
      options.timeouts.total = total
      return try await with(middleware: [middleware]).send(
        .init(method: .get, scheme: "http", authority: "127.0.0.1:9", path: "/"),
        body: nil,
        options: options
      )
    }
  }

  static func unavailable(retryAfter: String) -> TransportResponse {
    TransportResponse(
      head: response(.serviceUnavailable, retryAfter: retryAfter),
      url: nil,
      body: ResponseBody(data: Data("try again".utf8))
    )
  }

  @Test func aRetryAfterLongerThanTheTotalReturnsThe503AtOnce() async throws {
    // The issue's case: 503 + Retry-After: 25, total 2 s, the default policy (3 sends in 50 s before).
    let rig = Rig(attemptTime: 0.01) { RetryDeadlineTests.unavailable(retryAfter: "25") }
    let response = try await rig.run(total: .seconds(2))
    #expect(response.head.status == .serviceUnavailable)
    #expect(response.head.headerFields[.retryAfter] == "25")
    #expect(try await response.body.collect(upTo: 100) == Data("try again".utf8))
    #expect(rig.totals == [.seconds(2)])
    #expect(rig.waits.isEmpty)
    #expect(rig.now.timeIntervalSince(Self.start) < 2)
  }

  @Test func attemptsAndBackoffsShareTheTotal() async throws {
    let rig = Rig(attemptTime: 0.8) { throw TransportError(code: .connectionRefused, message: "refused") }
    let policy = RetryPolicy(baseDelay: .milliseconds(100))
    let error = await #expect(throws: TransportError.self) { try await rig.run(total: .seconds(2), policy: policy) }
    #expect(error?.code == .connectionRefused)
    // 0.8 s attempt, 0.1 s wait, 0.8 s attempt, 0.2 s wait, then the last attempt gets what is left.
    let totals = rig.totals.map { Self.seconds($0) ?? -1 }
    #expect(totals.count == 3)
    let expected = [2, 1.1, 0.1]
    for (total, want) in zip(totals, expected) { #expect(abs(total - want) < 1e-6, "\(totals)") }
    #expect(rig.waits == [.milliseconds(100), .milliseconds(200)])
  }

  @Test func aBackoffThatWouldReachTheDeadlineIsNotTaken() async throws {
    let rig = Rig(attemptTime: 1.7) { throw TransportError(code: .connectTimeout, message: "slow") }
    let policy = RetryPolicy(baseDelay: .milliseconds(500))
    let error = await #expect(throws: TransportError.self) { try await rig.run(total: .seconds(2), policy: policy) }
    #expect(error?.code == .connectTimeout)
    #expect(rig.totals.count == 1)
    #expect(rig.waits.isEmpty)
  }

  @Test func noAttemptStartsOnceAWaitOverranTheDeadline() async throws {
    // A late wake-up: the wait ends after the deadline. Nothing more is sent.
    let failing = Rig(attemptTime: 0.5, oversleep: 5) {
      throw TransportError(code: .connectionReset, message: "reset")
    }
    let error = await #expect(throws: TransportError.self) { try await failing.run(total: .seconds(2)) }
    #expect(error?.code == .connectionReset)
    #expect(failing.totals.count == 1)

    let answering = Rig(attemptTime: 0.5, oversleep: 5) { RetryDeadlineTests.unavailable(retryAfter: "1") }
    let timeout = await #expect(throws: TransportError.self) { try await answering.run(total: .seconds(2)) }
    #expect(timeout?.code == .totalTimeout)
    #expect(timeout?.message.contains("503") == true)
    #expect(answering.totals.count == 1)
  }

  @Test func withoutATotalTheAttemptsKeepTheirOptions() async throws {
    let rig = Rig(attemptTime: 0.01) { RetryDeadlineTests.unavailable(retryAfter: "25") }
    var options = TransferOptions()
    options.retry = .default
    let response = try await rig.with(middleware: [rig.middleware]).send(
      .init(method: .get, scheme: "http", authority: "127.0.0.1:9", path: "/"),
      body: nil,
      options: options
    )
    #expect(response.head.status == .serviceUnavailable)
    #expect(rig.totals == [nil, nil, nil])
    #expect(rig.waits == [.seconds(25), .seconds(25)])
  }
}
