import Foundation
import HTTPTypes
import MalibuTransport
import Testing

@testable import MalibuURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The exchange's state machine, driven event by event without a server or a session.
@Suite("Exchange.StateMachine: every transition without a server")
struct ExchangeStateMachineTests {
  typealias Machine = Exchange.StateMachine

  /// Where a test starts, each reached through the machine's own events.
  enum Stage: String, CaseIterable, CustomStringConvertible {
    case created, waitingForHead, receiving, paused, discarding, finished, failed, resent
    var description: String { rawValue }
  }

  static let start = ContinuousClock.now
  static let noTimeouts = Timeouts(connect: nil, idle: nil, total: nil)

  static func instant(_ milliseconds: Int) -> ContinuousClock.Instant {
    start + .milliseconds(milliseconds)
  }

  static func machine(
    timeouts: Timeouts = noTimeouts,
    decodedLimit: Int? = nil,
    collectLimit: Int? = nil,
    suspendsInPlace: Bool = true
  ) -> Machine {
    Machine(
      started: start,
      timeouts: timeouts,
      totalDeadline: timeouts.total.map { start + $0 },
      decodedLimit: decodedLimit,
      collectLimit: collectLimit,
      suspendsInPlace: suspendsInPlace
    )
  }

  /// A machine at `stage`. The failed one failed with an idle timeout; the body's head announced 100 bytes.
  static func machine(at stage: Stage, timeouts: Timeouts = noTimeouts, decoded: Bool = false) -> Machine {
    var machine = Self.machine(timeouts: timeouts, decodedLimit: 100)
    if stage == .created { return machine }
    _ = machine.start()
    switch stage {
    case .created, .waitingForHead:
      break
    case .receiving, .paused, .discarding, .finished:
      _ = machine.headReceived(expectedLength: 100, decoded: decoded, reportsProgress: true, now: instant(10))
      if stage == .paused { _ = machine.readerBehind() }
      if stage == .discarding { _ = machine.discard() }
      if stage == .finished { _ = machine.completed(nil) }
    case .failed:
      _ = machine.fail(TransportError(code: .idleTimeout, message: "no data moved"))
    case .resent:
      _ = machine.connectionLostBeforeResponse(method: .get)
    }
    #expect(machine.state.name == stage.rawValue)
    return machine
  }

  // MARK: Every state

  @Test(arguments: [
    (Stage.created, "failUnstarted(cancelled)", "failed"),
    (.waitingForHead, "failCaller(cancelled, now)", "failed"),
    (.receiving, "failReader(cancelled, now)", "failed"),
    (.paused, "failReader(cancelled, now)", "failed"),
    (.discarding, "failReader(cancelled, now)", "failed"),
    (.finished, "none", "finished"),
    (.failed, "none", "failed"),
    (.resent, "none", "resent"),
  ])
  func cancelInEveryState(stage: Stage, action: String, after: String) {
    var machine = Self.machine(at: stage)
    #expect(machine.fail(TransportError(code: .cancelled, message: "the transfer was cancelled")).summary == action)
    #expect(machine.state.name == after)
    // A failure that came first stays the exchange's outcome.
    if case .failed(let error) = machine.state, stage == .failed { #expect(error.code == .idleTimeout) }
  }

  @Test(arguments: [
    (Stage.created, "startTask", "waitingForHead"),
    (.waitingForHead, "refuseStart(cancelled)", "waitingForHead"),
    (.receiving, "refuseStart(cancelled)", "receiving"),
    (.finished, "refuseStart(cancelled)", "finished"),
    (.failed, "refuseStart(idleTimeout)", "failed"),
    (.resent, "refuseStart(cancelled)", "resent"),
  ])
  func startInEveryState(stage: Stage, action: String, after: String) {
    var machine = Self.machine(at: stage)
    #expect(machine.start().summary == action)
    #expect(machine.state.name == after)
    #expect(machine.isWaitingForHead == (after == "waitingForHead"))
  }

  @Test func cancelledBeforeTheTaskStartsRefusesTheStartWithThatError() {
    var machine = Self.machine()
    #expect(
      machine.fail(TransportError(code: .cancelled, message: "the body was cancelled")).summary
        == "failUnstarted(cancelled)"
    )
    guard case .refuseStart(let error) = machine.start() else {
      Issue.record("the start was not refused")
      return
    }
    #expect(error.message == "the body was cancelled")
  }

  @Test(arguments: [
    (Stage.created, "completeEnded(cleanUp: cancelled)", "finished"),
    (.waitingForHead, "completeCaller(other, cleanUp: cancelled)", "finished"),
    (.receiving, "completeReader(nil, cleanUp: cancelled)", "finished"),
    (.paused, "completeReader(nil, cleanUp: cancelled)", "finished"),
    (.discarding, "completeReader(nil, cleanUp: cancelled)", "finished"),
    (.finished, "completeEnded(cleanUp: cancelled)", "finished"),
    (.failed, "completeEnded(cleanUp: cancelled)", "failed"),
    (.resent, "completeEnded(cleanUp: nil)", "resent"),
  ])
  func completionWithoutErrorInEveryState(stage: Stage, action: String, after: String) {
    var machine = Self.machine(at: stage)
    let completion = machine.completed(nil)
    #expect(completion.summary == action)
    #expect(machine.state.name == after)
    if case .completeCaller(let error, _) = completion {
      #expect(error.message.contains("without delivering a response"))
    }
  }

  @Test(arguments: [Stage.finished, .failed, .resent])
  func eventsAfterTheEndAreIgnored(stage: Stage) {
    var machine = Self.machine(
      at: stage,
      timeouts: Timeouts(connect: .seconds(1), idle: .seconds(1), total: .seconds(1))
    )
    let far = Self.instant(60_000)
    #expect(machine.headReceived(expectedLength: 5, decoded: false, reportsProgress: true, now: far).summary == "none")
    #expect(machine.received(5, now: far).summary == "none")
    #expect(machine.readerBehind().summary == "none")
    #expect(machine.readerDemands(now: far).summary == "none")
    #expect(machine.discard().summary == "none")
    #expect(machine.challengeReceived().summary == "none")
    #expect(machine.connectionLostBeforeResponse(method: .get).summary == "none")
    #expect(machine.connectionLostBeforeResponse(method: .post).summary == "none")
    #expect(machine.fail(TransportError(code: .tls, message: "late")).summary == "none")
    machine.connectionActive(now: far)
    #expect(machine.earliestDeadline(now: far) == nil)
    #expect(machine.checkDeadlines(now: far).summary == "none")
    #expect(machine.state.name == stage.rawValue)
  }

  // MARK: The head

  @Test func theFinalHeadGoesToTheWaitingCallerOnce() {
    var machine = Self.machine(at: .waitingForHead)
    #expect(machine.isWaitingForHead)
    #expect(
      machine.headReceived(expectedLength: 7, decoded: false, reportsProgress: true, now: Self.instant(5)).summary
        == "deliverHead"
    )
    #expect(!machine.isWaitingForHead)
    #expect(
      machine.headReceived(expectedLength: 7, decoded: false, reportsProgress: true, now: Self.instant(6)).summary
        == "none"
    )
    #expect(machine.received(3, now: Self.instant(7)).summary == "write(3 of 7)")
  }

  @Test func aHeadBeforeTheStartIsIgnored() {
    var machine = Self.machine()
    #expect(
      machine.headReceived(expectedLength: nil, decoded: false, reportsProgress: true, now: Self.instant(1)).summary
        == "none"
    )
    #expect(machine.state.name == "created")
  }

  // MARK: The body

  @Test func bodyBytesAreCountedForProgressUnlessTheResponseMayBeARedirect() {
    var reporting = Self.machine(at: .waitingForHead)
    _ = reporting.headReceived(expectedLength: nil, decoded: false, reportsProgress: true, now: Self.instant(1))
    #expect(reporting.received(10, now: Self.instant(2)).summary == "write(10 of ?)")
    #expect(reporting.received(15, now: Self.instant(3)).summary == "write(25 of ?)")
    var redirect = Self.machine(at: .waitingForHead)
    _ = redirect.headReceived(expectedLength: 4, decoded: false, reportsProgress: false, now: Self.instant(1))
    #expect(redirect.received(4, now: Self.instant(2)).summary == "write(no progress)")
  }

  @Test(arguments: [
    // (decoded, chunks, the action of the last chunk)
    (true, [60, 40], "write(100 of 100)"),
    (true, [60, 41], "failReader(bodyTooLarge, later)"),
    (true, [101], "failReader(bodyTooLarge, later)"),
    (false, [60, 500], "write(560 of 100)"),
  ])
  func decodedBodyLimit(decoded: Bool, chunks: [Int], last: String) {
    var machine = Self.machine(at: .receiving, decoded: decoded)
    var action = Machine.Action.none
    for (index, chunk) in chunks.enumerated() { action = machine.received(chunk, now: Self.instant(20 + index)) }
    #expect(action.summary == last)
    if case .failReader(let error, _) = action {
      #expect(error.message.contains("100"))
      #expect(machine.state.name == "failed")
      #expect(machine.received(1, now: Self.instant(40)).summary == "none")
    } else {
      #expect(machine.state.name == "receiving")
    }
  }

  @Test func theLimitAlsoHoldsWhileSuspended() {
    var machine = Self.machine(at: .paused, decoded: true)
    #expect(machine.received(100, now: Self.instant(20)).summary == "write(100 of 100)")
    #expect(machine.state.name == "paused")
    #expect(machine.received(1, now: Self.instant(21)).summary == "failReader(bodyTooLarge, later)")
  }

  @Test func theReaderStoppingTheBodyFailsTheExchange() {
    var machine = Self.machine(at: .receiving)
    _ = machine.received(10, now: Self.instant(20))
    let stopped = TransportError(code: .cancelled, message: "the body's reader stopped the transfer")
    #expect(machine.fail(stopped).summary == "failReader(cancelled, now)")
    #expect(machine.received(10, now: Self.instant(21)).summary == "none")
  }

  @Test func aFailedTaskAfterPartOfTheBodyEndsTheBodyWithItsError() {
    var machine = Self.machine(at: .receiving)
    #expect(machine.received(40, now: Self.instant(20)).summary == "write(40 of 100)")
    let action = machine.completed(URLError(.networkConnectionLost))
    #expect(action.summary == "completeReader(connectionReset, cleanUp: connectionReset)")
    #expect(machine.state.name == "finished")
  }

  @Test(arguments: [
    (TransportError(code: .tls, message: "the source failed") as any Error, "completeCaller(tls, cleanUp: tls)"),
    (CocoaError(.fileReadNoSuchFile) as any Error, "completeCaller(invalidRequest, cleanUp: invalidRequest)"),
  ])
  func aRequestBodyThatFailedReplacesTheTasksError(bodyError: any Error, action: String) {
    var machine = Self.machine(at: .waitingForHead)
    machine.requestBodyFailed(bodyError)
    #expect(machine.completed(URLError(.cancelled)).summary == action)
  }

  // MARK: Back-pressure

  @Test func pauseAndResume() {
    var machine = Self.machine(at: .receiving)
    #expect(machine.readerBehind().summary == "suspendTask")
    #expect(machine.state.name == "paused")
    #expect(machine.readerBehind().summary == "none")
    // Bytes already on their way still arrive while suspended.
    #expect(machine.received(5, now: Self.instant(20)).summary == "write(5 of 100)")
    #expect(machine.state.name == "paused")
    #expect(machine.readerDemands(now: Self.instant(30)).summary == "resumeTask")
    #expect(machine.state.name == "receiving")
    #expect(machine.readerDemands(now: Self.instant(31)).summary == "none")
  }

  @Test func withoutSuspendingInPlaceTheBodyIsBuffered() {
    var machine = Self.machine(suspendsInPlace: false)
    _ = machine.start()
    _ = machine.headReceived(expectedLength: nil, decoded: false, reportsProgress: true, now: Self.instant(1))
    #expect(machine.readerBehind().summary == "none")
    #expect(machine.state.name == "receiving")
    #expect(machine.readerDemands(now: Self.instant(2)).summary == "none")
  }

  @Test(arguments: [Stage.created, .waitingForHead, .discarding])
  func pauseAndResumeOutsideTheBodyDoNothing(stage: Stage) {
    var machine = Self.machine(at: stage)
    #expect(machine.readerBehind().summary == "none")
    #expect(machine.readerDemands(now: Self.instant(50)).summary == "none")
    #expect(machine.state.name == stage.rawValue)
  }

  // MARK: A redirect's body

  @Test func aDroppedBodyIsReadToItsEndUpToTheDiscardLimit() {
    var machine = Self.machine(at: .receiving)
    #expect(machine.discard().summary == "none")
    #expect(machine.received(Machine.discardLimit, now: Self.instant(20)).summary == "none")
    #expect(machine.state.name == "discarding")
    #expect(machine.received(1, now: Self.instant(21)).summary == "cancelDiscarded")
    #expect(machine.received(1, now: Self.instant(22)).summary == "none")
    #expect(machine.discard().summary == "none")
    #expect(machine.completed(URLError(.cancelled)).summary == "completeReader(cancelled, cleanUp: cancelled)")
  }

  @Test func aSuspendedBodyThatIsDroppedIsCancelled() {
    var machine = Self.machine(at: .paused)
    #expect(machine.discard().summary == "cancelDiscarded")
    #expect(machine.state.name == "discarding")
    #expect(machine.readerDemands(now: Self.instant(30)).summary == "none")
  }

  // MARK: Collect limit

  /// A collecting caller's limit stops the task as soon as more arrived (FoundationNetworking cannot pause it, so the
  /// rest would pile up in the channel), decoded or not; a redirect's dropped body does not count.
  @Test(arguments: [false, true])
  func theCollectLimitStopsTheTaskAtOnce(decoded: Bool) {
    var machine = Self.machine(collectLimit: 100, suspendsInPlace: false)
    _ = machine.start()
    _ = machine.headReceived(expectedLength: nil, decoded: decoded, reportsProgress: false, now: Self.instant(1))
    #expect(machine.received(60, now: Self.instant(2)).summary == "write(no progress)")
    #expect(machine.received(40, now: Self.instant(3)).summary == "write(no progress)")
    let past = machine.received(1, now: Self.instant(4))
    #expect(past.summary == "failReader(bodyTooLarge, later)")
    if case .failReader(let error, _) = past { #expect(error.message.contains("limit of 100 bytes")) }
    #expect(machine.state.name == "failed")

    var redirect = Self.machine(collectLimit: 100, suspendsInPlace: false)
    _ = redirect.start()
    _ = redirect.headReceived(expectedLength: nil, decoded: false, reportsProgress: false, now: Self.instant(1))
    _ = redirect.discard()
    #expect(redirect.received(200, now: Self.instant(2)).summary == "none")
    #expect(redirect.state.name == "discarding")
  }

  // MARK: Resend and challenge

  @Test(arguments: [
    (Stage.created, "failUnstarted(connectionReset)", "failed"),
    (.waitingForHead, "resend", "resent"),
    (.receiving, "failReader(connectionReset, now)", "failed"),
    (.paused, "failReader(connectionReset, now)", "failed"),
    (.discarding, "failReader(connectionReset, now)", "failed"),
  ])
  func connectionLostBeforeTheResponse(stage: Stage, action: String, after: String) {
    var machine = Self.machine(at: stage)
    #expect(machine.connectionLostBeforeResponse(method: .get).summary == action)
    #expect(machine.state.name == after)
  }

  /// A request that is not idempotent is never sent again by the transport: the caller learns at once that the
  /// connection closed and the request may have reached the server; an idempotent one is resent.
  @Test(arguments: [
    (HTTPRequest.Method.post, "failCaller(connectionReset, now)", "failed"),
    (.patch, "failCaller(connectionReset, now)", "failed"),
    (HTTPRequest.Method("PURGE")!, "failCaller(connectionReset, now)", "failed"),
    (.get, "resend", "resent"), (.head, "resend", "resent"), (.put, "resend", "resent"),
    (.delete, "resend", "resent"), (.options, "resend", "resent"), (.trace, "resend", "resent"),
  ])
  func onlyAnIdempotentRequestIsResent(method: HTTPRequest.Method, action: String, after: String) {
    var machine = Self.machine(at: .waitingForHead)
    let result = machine.connectionLostBeforeResponse(method: method)
    #expect(result.summary == action)
    #expect(machine.state.name == after)
    if case .failCaller(let error, _) = result {
      #expect(error.message.contains("this \(method.rawValue) request; the request may have reached the server"))
      #expect(error.message.contains("was not sent again"))
    }
  }

  @Test(arguments: [
    (Stage.created, "none", "created"),
    (.waitingForHead, "none", "waitingForHead"),
    (.receiving, "finishReader", "finished"),
    (.paused, "finishReader", "finished"),
    (.discarding, "finishReader", "finished"),
  ])
  func challengeEndsACompleteBody(stage: Stage, action: String, after: String) {
    var machine = Self.machine(at: stage)
    #expect(machine.challengeReceived().summary == action)
    #expect(machine.state.name == after)
  }

  // MARK: Deadlines

  @Test func withoutTimeoutsNothingIsWatched() {
    let machine = Self.machine(at: .waitingForHead)
    #expect(machine.earliestDeadline(now: Self.instant(0)) == nil)
  }

  @Test func idleExpiryWhileWaitingForTheHead() {
    var machine = Self.machine(at: .waitingForHead, timeouts: Timeouts(connect: nil, idle: .seconds(1), total: nil))
    #expect(machine.earliestDeadline(now: Self.instant(500)) == .idle(Self.instant(1000)))
    #expect(machine.checkDeadlines(now: Self.instant(999)).summary == "none")
    // Request-body bytes sent (or an interim head) count as activity.
    machine.connectionActive(now: Self.instant(800))
    #expect(machine.earliestDeadline(now: Self.instant(900)) == .idle(Self.instant(1800)))
    #expect(machine.checkDeadlines(now: Self.instant(1000)).summary == "none")
    let expired = machine.checkDeadlines(now: Self.instant(1800))
    #expect(expired.summary == "failCaller(idleTimeout, now)")
    if case .failCaller(let error, _) = expired { #expect(error.message == "no data moved for 1.0 seconds") }
    #expect(machine.earliestDeadline(now: Self.instant(1800)) == nil)
  }

  @Test func idleExpiryWhileTheBodyArrives() {
    var machine = Self.machine(at: .receiving, timeouts: Timeouts(connect: nil, idle: .seconds(1), total: nil))
    _ = machine.received(10, now: Self.instant(900))
    #expect(machine.checkDeadlines(now: Self.instant(1500)).summary == "none")
    #expect(machine.checkDeadlines(now: Self.instant(1900)).summary == "failReader(idleTimeout, now)")
  }

  @Test func theIdleTimeoutIsPausedWhileSuspended() {
    var machine = Self.machine(at: .paused, timeouts: Timeouts(connect: nil, idle: .seconds(1), total: nil))
    // Nothing is due: look again a second later.
    #expect(machine.earliestDeadline(now: Self.instant(5000)) == .idle(Self.instant(6000)))
    #expect(machine.checkDeadlines(now: Self.instant(60_000)).summary == "none")
    // Resumed: idle counts from the demand.
    _ = machine.readerDemands(now: Self.instant(60_000))
    #expect(machine.earliestDeadline(now: Self.instant(60_000)) == .idle(Self.instant(61_000)))
    #expect(machine.checkDeadlines(now: Self.instant(61_000)).summary == "failReader(idleTimeout, now)")
  }

  @Test(arguments: [Stage.waitingForHead, .receiving, .paused, .discarding])
  func totalDeadline(stage: Stage) {
    var machine = Self.machine(at: stage, timeouts: Timeouts(connect: nil, idle: .seconds(1), total: .seconds(2)))
    _ = machine.received(1, now: Self.instant(1500))
    machine.connectionActive(now: Self.instant(1500))
    #expect(machine.checkDeadlines(now: Self.instant(1999)).summary == "none")
    let expired = machine.checkDeadlines(now: Self.instant(2000))
    #expect(expired.summary.hasSuffix("(totalTimeout, now)"))
    #expect(machine.state.name == "failed")
  }

  @Test func theConnectTimeoutRunsUntilTheFirstSignOfAConnection() {
    let timeouts = Timeouts(connect: .seconds(1), idle: .seconds(10), total: nil)
    var silent = Self.machine(at: .waitingForHead, timeouts: timeouts)
    #expect(silent.earliestDeadline(now: Self.instant(0)) == .connect(Self.instant(1000)))
    let expired = silent.checkDeadlines(now: Self.instant(1000))
    #expect(expired.summary == "failCaller(connectTimeout, now)")
    // Request-body bytes sent: connected, only idle counts.
    var sending = Self.machine(at: .waitingForHead, timeouts: timeouts)
    sending.connectionActive(now: Self.instant(500))
    #expect(sending.earliestDeadline(now: Self.instant(600)) == .idle(Self.instant(10_500)))
    // The head: connected too.
    let answered = Self.machine(at: .receiving, timeouts: timeouts)
    #expect(answered.earliestDeadline(now: Self.instant(600)) == .idle(Self.instant(10_010)))
  }
}

extension Exchange.StateMachine.State {
  /// The case's name, for the tables.
  var name: String {
    switch self {
    case .created: "created"
    case .waitingForHead: "waitingForHead"
    case .receiving: "receiving"
    case .paused: "paused"
    case .discarding: "discarding"
    case .finished: "finished"
    case .failed: "failed"
    case .resent: "resent"
    }
  }
}

extension Exchange.StateMachine.Action {
  /// The action with its errors' codes, for the tables.
  var summary: String {
    func code(_ error: TransportError?) -> String { error.map { "\($0.code)" } ?? "nil" }
    switch self {
    case .none: return "none"
    case .startTask: return "startTask"
    case .refuseStart(let error): return "refuseStart(\(code(error)))"
    case .deliverHead: return "deliverHead"
    case .write(let progress):
      guard let progress else { return "write(no progress)" }
      return "write(\(progress.received) of \(progress.expected.map { "\($0)" } ?? "?"))"
    case .suspendTask: return "suspendTask"
    case .resumeTask: return "resumeTask"
    case .cancelDiscarded: return "cancelDiscarded"
    case .failUnstarted(let error): return "failUnstarted(\(code(error)))"
    case .failCaller(let error, let cancel): return "failCaller(\(code(error)), \(cancel))"
    case .failReader(let error, let cancel): return "failReader(\(code(error)), \(cancel))"
    case .resend: return "resend"
    case .completeCaller(let error, let cleanUp): return "completeCaller(\(code(error)), cleanUp: \(code(cleanUp)))"
    case .completeReader(let error, let cleanUp): return "completeReader(\(code(error)), cleanUp: \(code(cleanUp)))"
    case .completeEnded(let cleanUp): return "completeEnded(cleanUp: \(code(cleanUp)))"
    case .finishReader: return "finishReader"
    }
  }
}
