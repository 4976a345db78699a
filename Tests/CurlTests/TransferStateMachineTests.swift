import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuTransport
import Testing

@testable import MalibuCurl

/// The curl transfer's state machine, driven event by event without libcurl or a server.
@Suite struct TransferStateMachineTests {
  typealias Machine = Transfer.StateMachine

  // MARK: Helpers

  /// A state the machine can be in, reached from a fresh machine by the events a transfer sees.
  enum Stage: String, CaseIterable, CustomTestStringConvertible {
    case idle, starting, awaitingHead, discarding, streaming, streamingPaused, collecting, failingBeforeHead
    case failingWhileStreaming, betweenHops, finished

    var testDescription: String { rawValue }

    /// A machine in this stage.
    func machine() -> Machine {
      var machine = Machine(totalDeadline: nil, idleTimeout: nil)
      switch self {
      case .idle:
        break
      case .starting:
        _ = machine.startHop(now: 0)
      case .awaitingHead:
        machine.run()
      case .discarding:
        machine.run()
        machine.redirect(to: TransferStateMachineTests.redirect)
      case .streaming:
        machine.run(.stream)
      case .streamingPaused:
        machine.run(.stream)
        _ = machine.bodyArrived()
        _ = machine.bodyWritten(.pause)
      case .collecting:
        machine.run(.collect(limit: 100))
      case .failingBeforeHead:
        machine.run()
        machine.refuse(TransferStateMachineTests.problem)
      case .failingWhileStreaming:
        machine.run(.stream)
        machine.refuse(TransferStateMachineTests.problem)
      case .betweenHops:
        machine.run()
        machine.redirect(to: TransferStateMachineTests.redirect)
        _ = machine.hopEnded(libcurlError: nil)
      case .finished:
        machine.run(.stream)
        _ = machine.hopEnded(libcurlError: nil)
      }
      return machine
    }
  }

  static let redirect = Machine.Redirect(
    request: HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1", path: "/next"),
    body: nil
  )
  static let problem = TransportError(code: .protocolError, message: "a malformed header line")
  static let reset = TransportError(code: .connectionReset, message: "the connection was reset")
  static let writeError = TransportError(code: .other, message: "failure writing received data")

  var redirect: Machine.Redirect { Self.redirect }

  /// An action in words, to compare in a table (errors by code and message).
  static func describe(_ action: Machine.Action) -> String {
    switch action {
    case .none: "none"
    case .pause(let pause): "pause(receive: \(pause.receive), send: \(pause.send))"
    case .followRedirect(let next): "follow \(next.request.path ?? "")"
    case .finish(let ending, let removeHandle): "finish \(describe(ending))\(removeHandle ? ", remove handle" : "")"
    }
  }

  static func describe(_ ending: Machine.Ending) -> String {
    switch ending {
    case .deliverCollected: "deliver collected"
    case .endStream(nil): "end stream"
    case .endStream(let error?): "end stream with \(describe(error))"
    case .fail(let error): "fail with \(describe(error))"
    case .noResponseHead: "no response head"
    }
  }

  static func describe(_ error: TransportError) -> String { "\(error.code): \(error.message)" }

  static func isFinished(_ machine: Machine) -> Bool {
    if case .finished = machine.state { return true }
    return false
  }

  static func hop(_ machine: Machine) -> Machine.Hop? {
    switch machine.state {
    case .awaitingHead(let hop), .receivingBody(let hop, _), .failing(let hop, _, _): hop
    case .idle, .starting, .finished: nil
    }
  }

  // MARK: Cancel

  static let cancelled = TransportError(code: .cancelled, message: "the transfer was cancelled")

  /// Cancel (or a timeout, or shutdown) in every state: the caller learns it once, as a failure of the call when it
  /// has no response yet and as the end of the stream when it has one; a handle in libcurl is taken out.
  @Test(arguments: [
    (Stage.idle, "finish fail with cancelled: the transfer was cancelled"),
    (.starting, "finish fail with cancelled: the transfer was cancelled"),
    (.awaitingHead, "finish fail with cancelled: the transfer was cancelled, remove handle"),
    (.discarding, "finish fail with cancelled: the transfer was cancelled, remove handle"),
    (.streaming, "finish end stream with cancelled: the transfer was cancelled, remove handle"),
    (.streamingPaused, "finish end stream with cancelled: the transfer was cancelled, remove handle"),
    (.collecting, "finish fail with cancelled: the transfer was cancelled, remove handle"),
    (.failingBeforeHead, "finish fail with cancelled: the transfer was cancelled, remove handle"),
    (.failingWhileStreaming, "finish end stream with cancelled: the transfer was cancelled, remove handle"),
    (.betweenHops, "finish fail with cancelled: the transfer was cancelled"),
    (.finished, "none"),
  ])
  func cancelInEveryState(stage: Stage, expected: String) {
    var machine = stage.machine()
    #expect(Self.describe(machine.cancel(Self.cancelled)) == expected)
    #expect(Self.isFinished(machine))
    #expect(!machine.isRunning)
    // Once: a second cancel, or libcurl's late report, does nothing.
    #expect(Self.describe(machine.cancel(Self.cancelled)) == "none")
    #expect(Self.describe(machine.hopEnded(libcurlError: nil)) == "none")
  }

  // MARK: Hops

  @Test func aHopStartsOnlyFromIdleAndRunsOnceAdded() {
    var machine = Machine(totalDeadline: nil, idleTimeout: nil)
    #expect(!machine.isRunning)
    machine.hopAdded()  // nothing was starting
    guard case .idle = machine.state else {
      Issue.record("expected idle, got \(machine.state)")
      return
    }
    #expect(machine.startHop(now: 10) == .configure)
    #expect(machine.startHop(now: 11) == .none)
    #expect(!machine.isRunning)
    machine.hopAdded()
    #expect(machine.isRunning)
    #expect(machine.isAwaitingHead)
    #expect(Self.hop(machine) == Machine.Hop(start: 10))
    #expect(machine.startHop(now: 12) == .none)
  }

  @Test func aHopThatCannotBeConfiguredFailsTheCallerWithoutTouchingLibcurl() {
    var machine = Machine(totalDeadline: nil, idleTimeout: nil)
    #expect(machine.startHop(now: 0) == .configure)
    let error = TransportError(code: .invalidRequest, message: "the request body cannot be read")
    #expect(Self.describe(machine.cancel(error)) == "finish fail with invalidRequest: the request body cannot be read")
  }

  @Test(arguments: [
    (Machine.Delivery.stream, 2, "finish end stream"),
    (.collect(limit: 10), 2, "finish deliver collected"),
    (.collect(limit: 10), 0, "finish deliver collected"),
  ])
  func aBodyRunsToItsEnd(delivery: Machine.Delivery, chunks: Int, expected: String) {
    var machine = Machine(totalDeadline: nil, idleTimeout: nil)
    machine.run(delivery)
    for _ in 0..<chunks {
      #expect(machine.headerLine() == .ignore)  // a trailer
      switch machine.bodyArrived() {
      case .stream, .collect: break
      case let route: Issue.record("unexpected route \(route)")
      }
      #expect(machine.bodyWritten(.proceed) == .accept)
    }
    #expect(Self.describe(machine.hopEnded(libcurlError: nil)) == expected)
    #expect(Self.isFinished(machine))
  }

  @Test func aHeadThatNeverComesFailsTheCaller() {
    var machine = Machine(totalDeadline: nil, idleTimeout: nil)
    machine.run()
    #expect(machine.headerLine() == .parse)
    #expect(machine.bodyArrived() == .refuse)  // no body before the head
    #expect(Self.describe(machine.hopEnded(libcurlError: nil)) == "finish no response head")

    var failed = Machine(totalDeadline: nil, idleTimeout: nil)
    failed.run()
    #expect(
      Self.describe(failed.hopEnded(libcurlError: Self.reset))
        == "finish fail with connectionReset: the connection was reset"
    )
  }

  // MARK: Redirects

  @Test func aRedirectIsFollowedAndItsBodyDropped() {
    var machine = Machine(totalDeadline: nil, idleTimeout: nil)
    machine.run()
    machine.redirect(to: redirect)
    #expect(!machine.isAwaitingHead)
    #expect(machine.bodyArrived() == .discard)
    #expect(machine.bodyWritten(.proceed) == .accept)
    #expect(machine.headerLine() == .ignore)
    #expect(machine.flush() == false)  // nothing was written to a channel
    #expect(Self.describe(machine.hopEnded(libcurlError: nil)) == "follow /next")
    #expect(machine.redirectsFollowed == 1)
    #expect(!machine.isRunning)

    // The next hop: its own head, then the body the caller gets.
    #expect(machine.startHop(now: 5) == .configure)
    machine.hopAdded()
    #expect(Self.hop(machine) == Machine.Hop(start: 5))
    #expect(machine.headerLine() == .parse)
    #expect(machine.finalHead(delivery: .stream, expectedLength: 3) == .stream)
    #expect(machine.bodyArrived() == .stream(markDirty: true))
    #expect(machine.bodyWritten(.proceed) == .accept)
    #expect(Self.describe(machine.hopEnded(libcurlError: nil)) == "finish end stream")
    #expect(machine.redirectsFollowed == 1)
  }

  @Test func aRedirectHopThatFailsIsNotFollowed() {
    var machine = Machine(totalDeadline: nil, idleTimeout: nil)
    machine.run()
    machine.redirect(to: redirect)
    _ = machine.bodyArrived()
    #expect(
      Self.describe(machine.hopEnded(libcurlError: Self.reset))
        == "finish fail with connectionReset: the connection was reset"
    )
    #expect(machine.redirectsFollowed == 0)
  }

  @Test func aRedirectCountsEveryHop() {
    var machine = Machine(totalDeadline: nil, idleTimeout: nil)
    for hop in 1...3 {
      machine.run()
      machine.redirect(to: redirect)
      _ = machine.hopEnded(libcurlError: nil)
      #expect(machine.redirectsFollowed == hop)
    }
  }

  // MARK: Limits

  /// A `Content-Length` past a collected body's limit is refused with the head; a streamed body has no limit here
  /// (its reader applies one).
  @Test(arguments: [
    (Machine.Delivery.collect(limit: 10), Int?.some(11), Machine.HeadAction.refuse),
    (.collect(limit: 10), 10, .collect),
    (.collect(limit: 10), nil, .collect),
    (.collect(limit: 0), 0, .collect),
    (.stream, Int.max, .stream),
    (.stream, nil, .stream),
  ])
  func theAnnouncedLengthMeetsTheLimit(delivery: Machine.Delivery, length: Int?, expected: Machine.HeadAction) {
    var machine = Machine(totalDeadline: nil, idleTimeout: nil)
    machine.run()
    #expect(machine.finalHead(delivery: delivery, expectedLength: length) == expected)
    guard expected == .refuse else { return }
    #expect(machine.headerLine() == .refuse)
    #expect(machine.bodyArrived() == .refuse)
    // libcurl reports the refused header line as its own error: the limit is what the caller learns.
    let action = Self.describe(machine.hopEnded(libcurlError: Self.writeError))
    #expect(action.hasPrefix("finish fail with bodyTooLarge: the response body (11 bytes, by its Content-Length)"))
  }

  @Test func theLimitReachedWhileCollectingFailsTheCaller() {
    var machine = Machine(totalDeadline: nil, idleTimeout: nil)
    machine.run(.collect(limit: 10))
    #expect(machine.bodyArrived() == .collect)
    #expect(machine.bodyWritten(.proceed) == .accept)
    #expect(machine.bodyArrived() == .collect)
    #expect(machine.bodyWritten(.stop, failure: .bodyTooLarge(limit: 10)) == .refuse)
    #expect(machine.isRunning)  // until libcurl ends the hop
    #expect(machine.bodyArrived() == .refuse)
    let action = Self.describe(machine.hopEnded(libcurlError: Self.writeError))
    #expect(action.hasPrefix("finish fail with bodyTooLarge: the response body is larger than the limit of 10 bytes"))
  }

  /// A streamed body's channel stops the transfer when its reader's limit is reached or the reader is gone: the
  /// stream ends as cancelled (the reader has its own error already).
  @Test func theLimitReachedWhileStreamingEndsTheStream() {
    var machine = Machine(totalDeadline: nil, idleTimeout: nil)
    machine.run(.stream)
    #expect(machine.bodyArrived() == .stream(markDirty: true))
    #expect(machine.bodyWritten(.stop) == .refuse)
    #expect(machine.flush() == true)  // what was written before still reaches the reader
    #expect(
      Self.describe(machine.hopEnded(libcurlError: Self.writeError))
        == "finish end stream with cancelled: the transfer was cancelled"
    )
  }

  // MARK: Failures

  /// libcurl's error after part of the body: the stream ends with it, or the collecting caller fails with it.
  @Test(arguments: [
    (Machine.Delivery.stream, "finish end stream with connectionReset: the connection was reset"),
    (.collect(limit: 100), "finish fail with connectionReset: the connection was reset"),
  ])
  func anErrorAfterAPartialBodyReachesTheCaller(delivery: Machine.Delivery, expected: String) {
    var machine = Machine(totalDeadline: nil, idleTimeout: nil)
    machine.run(delivery)
    _ = machine.bodyArrived()
    #expect(machine.bodyWritten(.proceed) == .accept)
    #expect(Self.describe(machine.hopEnded(libcurlError: Self.reset)) == expected)
  }

  /// A callback's refusal wins over what libcurl then reports, and the first refusal of a hop is kept.
  @Test(arguments: [Stage.awaitingHead, .discarding, .streaming, .collecting])
  func aRefusalWinsOverLibcurlsError(stage: Stage) {
    var machine = stage.machine()
    machine.refuse(Self.problem)
    machine.refuse(Self.reset)
    #expect(machine.headerLine() == .refuse)
    #expect(machine.bodyArrived() == .refuse)
    let ending = stage == .streaming ? "end stream with" : "fail with"
    #expect(
      Self.describe(machine.hopEnded(libcurlError: Self.writeError))
        == "finish \(ending) protocolError: a malformed header line"
    )
  }

  @Test(arguments: [Stage.idle, .starting, .betweenHops, .finished])
  func aRefusalOutsideAHopChangesNothing(stage: Stage) {
    var machine = stage.machine()
    let before = "\(machine.state)"
    machine.refuse(Self.problem)
    #expect("\(machine.state)" == before)
  }

  @Test func aFailingUploadRefusesTheHop() {
    var machine = Machine(totalDeadline: nil, idleTimeout: nil)
    machine.run()
    machine.uploadRead(.bytes(10))
    machine.refuse(TransportError(code: .invalidRequest, message: "the request body could not be read"))
    #expect(
      Self.describe(machine.hopEnded(libcurlError: nil))
        == "finish fail with invalidRequest: the request body could not be read"
    )
  }

  // MARK: Pausing

  @Test func backPressurePausesReceivingUntilTheReaderDrains() {
    var machine = Machine(totalDeadline: nil, idleTimeout: 100)
    machine.run(.stream)
    #expect(machine.bodyArrived() == .stream(markDirty: true))
    #expect(machine.bodyWritten(.pause) == .pause(.init(receive: true, send: false)))
    // Already paused: libcurl is not asked again.
    #expect(machine.bodyArrived() == .stream(markDirty: false))
    #expect(machine.bodyWritten(.pause) == .accept)
    #expect(machine.flush() == true)
    #expect(machine.flush() == true)  // a flush is always passed on while streaming
    #expect(machine.bodyArrived() == .stream(markDirty: true))  // a new round
    // A paused transfer is not idle, however long the reader takes.
    #expect(machine.deadline(now: 1_000) == .at(1_100))
    #expect(machine.deadline(now: 5_000) == .at(5_100))
    #expect(Self.describe(machine.resumeReceiving(now: 5_050)) == "pause(receive: false, send: false)")
    #expect(Self.hop(machine)?.lastActivity == 5_050)
    #expect(Self.describe(machine.resumeReceiving(now: 5_060)) == "none")
    #expect(machine.deadline(now: 5_100) == .at(5_150))
    #expect(Self.describe(machine.hopEnded(libcurlError: nil)) == "finish end stream")
  }

  @Test func aStreamedUploadPausesSendingUntilItsProducerCatchesUp() {
    var machine = Machine(totalDeadline: nil, idleTimeout: nil)
    machine.run()
    #expect(Self.describe(machine.resumeSending(now: 1)) == "none")
    machine.uploadRead(.wait)
    #expect(Self.hop(machine)?.sendPaused == true)
    #expect(machine.finalHead(delivery: .stream, expectedLength: nil) == .stream)
    _ = machine.bodyArrived()
    // Both directions held back at once: the mask keeps the upload's pause.
    #expect(machine.bodyWritten(.pause) == .pause(.init(receive: true, send: true)))
    #expect(Self.describe(machine.resumeSending(now: 2)) == "pause(receive: true, send: false)")
    #expect(Self.describe(machine.resumeSending(now: 3)) == "none")
    machine.uploadRead(.end)
    #expect(Self.describe(machine.resumeReceiving(now: 4)) == "pause(receive: false, send: false)")
  }

  @Test(arguments: [Stage.idle, .starting, .betweenHops, .finished])
  func resumingOutsideAHopDoesNothing(stage: Stage) {
    var machine = stage.machine()
    #expect(Self.describe(machine.resumeReceiving(now: 1)) == "none")
    #expect(Self.describe(machine.resumeSending(now: 1)) == "none")
  }

  // MARK: Deadlines

  @Test func theTotalDeadlineEndsATransferInAnyHop() {
    var machine = Machine(totalDeadline: 1_000, idleTimeout: nil)
    #expect(machine.deadline(now: 0) == .none)  // not in libcurl yet
    #expect(machine.startHop(now: 999) == .configure)
    machine.hopAdded()
    #expect(machine.deadline(now: 999) == .at(1_000))
    #expect(machine.deadline(now: 1_000) == .expired(.total))

    // A redirect's next hop does not start past the deadline.
    var redirected = Machine(totalDeadline: 1_000, idleTimeout: nil)
    redirected.run()
    redirected.redirect(to: redirect)
    _ = redirected.hopEnded(libcurlError: nil)
    #expect(redirected.startHop(now: 1_000) == .expired)
    #expect(!redirected.isRunning)
  }

  @Test func theIdleDeadlineMovesWithActivity() {
    var machine = Machine(totalDeadline: 10_000, idleTimeout: 100)
    machine.run()
    #expect(machine.deadline(now: 50) == .at(100))
    #expect(machine.headerLine() == .parse)
    #expect(machine.deadline(now: 80) == .at(180))
    machine.uploadRead(.bytes(1))
    #expect(machine.deadline(now: 150) == .at(250))
    #expect(machine.finalHead(delivery: .collect(limit: 10), expectedLength: nil) == .collect)
    _ = machine.bodyArrived()
    #expect(machine.deadline(now: 200) == .at(300))
    // The total deadline is the nearer one.
    var late = Machine(totalDeadline: 120, idleTimeout: 100)
    late.run()
    #expect(late.deadline(now: 10) == .at(100))
    late.uploadRead(.bytes(1))
    #expect(late.deadline(now: 50) == .at(120))
  }

  /// When the idle deadline seems past, the connection is asked: before it is connected the connect timeout
  /// governs; bytes the socket received (a head trickling in) count as activity; otherwise the transfer expires.
  @Test(arguments: [
    // connectedAfter, lastReceived, expected
    (UInt64?.none, UInt64?.none, Machine.DeadlineCheck.at(300)),
    (10, nil, .expired(.idle)),
    (10, 150, .at(250)),
    (150, nil, .at(250)),  // connected 150 after the start: the idle clock starts then
    (10, 20, .expired(.idle)),
    (100, 100, .expired(.idle)),
  ])
  func idleExpiryAsksTheConnection(connectedAfter: UInt64?, lastReceived: UInt64?, expected: Machine.DeadlineCheck) {
    var machine = Machine(totalDeadline: nil, idleTimeout: 100)
    machine.run(at: 0)
    #expect(machine.deadline(now: 200) == .probeConnection)
    #expect(machine.connectionProbed(now: 200, connectedAfter: connectedAfter, lastReceived: lastReceived) == expected)
  }

  @Test func idleExpiryWhileConnectingWaitsAnotherPeriod() {
    var machine = Machine(totalDeadline: nil, idleTimeout: 100)
    machine.run(at: 0)
    #expect(machine.deadline(now: 100) == .probeConnection)
    #expect(machine.connectionProbed(now: 100, connectedAfter: nil, lastReceived: nil) == .at(200))
    #expect(machine.deadline(now: 199) == .at(200))
    #expect(machine.deadline(now: 200) == .probeConnection)
    #expect(machine.connectionProbed(now: 200, connectedAfter: 30, lastReceived: nil) == .expired(.idle))
    #expect(
      Self.describe(machine.cancel(TransportError(code: .idleTimeout, message: "idle")))
        == "finish fail with idleTimeout: idle, remove handle"
    )
  }

  @Test(arguments: [Stage.idle, .starting, .betweenHops, .finished])
  func noDeadlineOutsideAHop(stage: Stage) {
    var machine = stage.machine()
    #expect(machine.deadline(now: .max) == .none)
    #expect(machine.connectionProbed(now: .max, connectedAfter: nil, lastReceived: nil) == .none)
  }

  @Test func noDeadlinesNoCheck() {
    var machine = Machine(totalDeadline: nil, idleTimeout: nil)
    machine.run()
    #expect(machine.deadline(now: .max) == .none)
  }

  // MARK: After the end

  /// Every event after the transfer finished is ignored: nothing is paused, written, flushed or delivered again.
  @Test(arguments: [Stage.finished, .failingWhileStreaming, .collecting, .awaitingHead])
  func eventsAfterTheEndAreIgnored(stage: Stage) {
    var machine = stage.machine()
    _ = machine.cancel(Self.cancelled)
    #expect(Self.isFinished(machine))
    #expect(machine.startHop(now: 0) == .none)
    machine.hopAdded()
    #expect(machine.headerLine() == .ignore)
    machine.redirect(to: redirect)
    #expect(machine.finalHead(delivery: .stream, expectedLength: nil) == .refuse)
    #expect(machine.bodyArrived() == .refuse)
    #expect(machine.bodyWritten(.proceed) == .accept)
    #expect(machine.bodyWritten(.pause) == .accept)
    #expect(machine.bodyWritten(.stop) == .refuse)
    #expect(machine.flush() == false)
    machine.refuse(Self.problem)
    machine.uploadRead(.wait)
    machine.uploadRead(.bytes(1))
    #expect(Self.describe(machine.resumeReceiving(now: 1)) == "none")
    #expect(Self.describe(machine.resumeSending(now: 1)) == "none")
    #expect(machine.deadline(now: .max) == .none)
    #expect(machine.connectionProbed(now: .max, connectedAfter: 1, lastReceived: 1) == .none)
    #expect(Self.describe(machine.hopEnded(libcurlError: Self.reset)) == "none")
    #expect(Self.describe(machine.cancel(Self.cancelled)) == "none")
    #expect(Self.isFinished(machine))
  }

  // MARK: Head size

  /// Head lines past 300 KiB in all (libcurl's cap, counted by the machine) refuse the hop with `protocolError`;
  /// up to the cap they are parsed, and the count is per hop.
  @Test func aHeadPastTheLimitInAllIsAProtocolError() {
    var machine = Machine(totalDeadline: nil, idleTimeout: nil)
    machine.run()
    let field = 40 << 10
    for _ in 0..<(Machine.headLimit / field) { #expect(machine.headerLine(length: field) == .parse) }
    #expect(machine.headerLine(length: Machine.headLimit % field) == .parse)
    #expect(machine.headerLine(length: 1) == .refuse)
    let ending = Self.describe(machine.hopEnded(libcurlError: TransportError(code: .other, message: "write error")))
    #expect(ending.hasPrefix("finish fail with protocolError: the response head is larger in all than libcurl accepts"))

    var next = Machine(totalDeadline: nil, idleTimeout: nil)
    next.run()
    #expect(next.headerLine(length: Machine.headLimit) == .parse)
    next.redirect(to: redirect)
    _ = next.hopEnded(libcurlError: nil)
    next.run()
    #expect(next.headerLine(length: Machine.headLimit) == .parse)
  }

  // MARK: Sent once

  /// libcurl sends a request again on a new connection when the reused one died before the response: a method that
  /// is not idempotent is refused the second send (the hop fails with `connectionReset`, saying the request may
  /// have reached the server); an idempotent one is sent again.
  @Test(arguments: [
    (HTTPRequest.Method.post, false), (.patch, false), (.connect, false), (HTTPRequest.Method("PURGE")!, false),
    (.get, true), (.head, true), (.put, true), (.delete, true), (.options, true), (.trace, true),
  ])
  func aRequestIsSentAgainOnlyWhenIdempotent(method: HTTPRequest.Method, sentAgain: Bool) {
    var machine = Machine(totalDeadline: nil, idleTimeout: nil)
    machine.run()
    #expect(machine.sendingRequest(method: method) == .proceed)
    #expect(machine.sendingRequest(method: method) == (sentAgain ? .proceed : .abort))
    let ending = Self.describe(machine.hopEnded(libcurlError: TransportError(code: .other, message: "aborted")))
    if sentAgain {
      #expect(ending == "finish fail with other: aborted")
    } else {
      #expect(ending.hasPrefix("finish fail with connectionReset: the connection closed before any response"))
      #expect(ending.contains("this \(method.rawValue) request; the request may have reached the server"))
    }
  }

  @Test func eachHopMaySendItsRequestOnce() {
    var machine = Machine(totalDeadline: nil, idleTimeout: nil)
    machine.run()
    #expect(machine.sendingRequest(method: .post) == .proceed)
    #expect(Self.hop(machine)?.sends == 1)
    machine.redirect(to: redirect)
    #expect(machine.hopEnded(libcurlError: nil).isFollowRedirect)
    // The next hop, on the same handle: its first send is its own.
    machine.run()
    #expect(Self.hop(machine)?.sends == 0)
    #expect(machine.sendingRequest(method: .post) == .proceed)
  }

  @Test(arguments: [Stage.idle, .starting, .betweenHops, .finished])
  func aSendOutsideAHopIsLeftToLibcurl(stage: Stage) {
    var machine = stage.machine()
    #expect(machine.sendingRequest(method: .post) == .proceed)
    #expect(machine.sendingRequest(method: .post) == .proceed)
  }

  @Test func flushIsPassedOnOnlyWhileAChannelHoldsTheBody() {
    for stage in Stage.allCases {
      var machine = stage.machine()
      let expected = [.streaming, .streamingPaused, .failingWhileStreaming].contains(stage)
      #expect(machine.flush() == expected, "\(stage)")
    }
  }
}

extension Transfer.StateMachine.Action {
  fileprivate var isFollowRedirect: Bool {
    if case .followRedirect = self { return true }
    return false
  }
}

extension Transfer.StateMachine {
  /// Starts a hop at `now` and adds it, as the transfer does.
  fileprivate mutating func run(at now: UInt64 = 0) {
    #expect(startHop(now: now) == .configure)
    hopAdded()
    #expect(isAwaitingHead)
  }

  /// Starts a hop whose final head arrives at once.
  fileprivate mutating func run(_ delivery: Delivery) {
    run()
    #expect(headerLine() == .parse)
    switch delivery {
    case .stream: #expect(finalHead(delivery: delivery, expectedLength: nil) == .stream)
    case .collect: #expect(finalHead(delivery: delivery, expectedLength: nil) == .collect)
    }
  }
}

// MARK: Connection policy

extension TransferStateMachineTests {
  static let policyRefusal = TransportError(
    code: .addressNotAllowed,
    message: "the connection policy 'default' refused to connect to 169.254.169.254"
  )
  static let couldNotConnect = TransportError(code: .connectionRefused, message: "Couldn't connect to server")

  /// An address refused while the head is awaited is kept, and becomes the error when libcurl then fails the hop
  /// (no address connected): the caller sees the policy's error, not "could not connect".
  @Test func aRefusedAddressIsTheErrorWhenNoAddressConnects() {
    var machine = Stage.awaitingHead.machine()
    machine.addressRefused(Self.policyRefusal)
    #expect(machine.isAwaitingHead)
    #expect(machine.addressRefusal.map(Self.describe) == Self.describe(Self.policyRefusal))
    // A second refusal (the host's next address) does not replace the first.
    machine.addressRefused(Self.reset)
    #expect(machine.addressRefusal.map(Self.describe) == Self.describe(Self.policyRefusal))
    #expect(
      Self.describe(machine.hopEnded(libcurlError: Self.couldNotConnect))
        == "finish fail with \(Self.describe(Self.policyRefusal))"
    )
    #expect(Self.isFinished(machine))
  }

  /// An address refused, then another of the host's addresses connected: the hop goes on as any other.
  @Test func aRefusedAddressIsForgottenWhenAnotherConnects() {
    var machine = Stage.awaitingHead.machine()
    machine.addressRefused(Self.policyRefusal)
    #expect(machine.finalHead(delivery: .collect(limit: 100), expectedLength: 3) == .collect)
    #expect(Self.describe(machine.hopEnded(libcurlError: nil)) == "finish deliver collected")
  }

  /// A refusal outside the wait for a head (no hop, a body flowing, the transfer over) changes nothing.
  @Test(arguments: [Stage.idle, .starting, .streaming, .collecting, .discarding, .betweenHops, .finished])
  func aRefusedAddressOutsideTheWaitForAHeadIsIgnored(stage: Stage) {
    var machine = stage.machine()
    let before = Self.hop(machine)
    machine.addressRefused(Self.policyRefusal)
    #expect(Self.hop(machine) == before)
    #expect(machine.addressRefusal == nil)
  }

  /// Each hop keeps its own refusal: after a followed redirect, the next hop starts with none.
  @Test func aNewHopStartsWithoutARefusal() {
    var machine = Stage.awaitingHead.machine()
    machine.addressRefused(Self.policyRefusal)
    machine.redirect(to: Self.redirect)
    _ = machine.hopEnded(libcurlError: nil)
    #expect(machine.addressRefusal != nil, "kept until the next hop starts")
    machine.run()
    #expect(machine.addressRefusal == nil)
    #expect(machine.redirectsFollowed == 1)
  }
}
