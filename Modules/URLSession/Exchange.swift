import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuCore
import MalibuTransport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request and its response over one URLSession task: a single hop of a transfer.
///
/// The session's delegate routes the task's events here (on the session's serial delegate queue); the caller's task
/// waits in ``run(_:)`` for the response head; the watchdog (`Exchange+Watchdog.swift`) enforces the timeouts.
/// Where the exchange is, and what each event does, is its ``StateMachine`` (`Exchange+StateMachine.swift`), run under
/// the lock; the actions it returns are performed here, outside the lock. Whatever ends the exchange first — the task
/// completing, a timeout, a limit, the caller cancelling — wins; the others find it ended and do nothing.
final class Exchange: Sendable {
  /// What ``run(_:)`` returns: the response head and the channel its body arrives through.
  struct Hop: Sendable {
    var head: ResponseHead
    var channel: BodyChannel
    var exchange: Exchange
  }

  /// The exchange's state (``StateMachine``) and what its actions act on, under one lock.
  struct State {
    var machine: StateMachine
    /// The caller waiting in ``run(_:)``: set exactly while the machine waits for the response head. The
    /// continuation is an unsafe one (no allocation to check it): it is taken out under the lock before it is
    /// resumed, so it is resumed exactly once.
    var caller: UnsafeContinuation<Hop, any Error>?
    /// The hop's task, from ``run(_:)`` on.
    var task: URLSessionTask?
    /// The body's channel, from the response head on.
    var channel: BodyChannel?
    /// When the response head reached the delegate.
    var headArrived: ContinuousClock.Instant?
    /// Body bytes received, as URLSession hands them over (decoded, when it decodes), and whether it decodes them.
    var bodyBytes = 0
    var bodyDecoded = false
  }

  /// An action of the machine with what it acts on, taken out of the state under the lock.
  struct Step {
    var action: StateMachine.Action
    var caller: UnsafeContinuation<Hop, any Error>?
    var task: URLSessionTask?
    var channel: BodyChannel?
    /// The final metrics, for an action that ends the body well.
    var metrics: TransferMetrics?
  }

  /// What ``run(_:)`` throws when URLSession's connection died before the response and the transport must send the
  /// request again on a new task.
  struct Resend: Error {}

  let options: TransferOptions
  let method: HTTPRequest.Method
  let upload: Upload
  let started: ContinuousClock.Instant
  /// When the transfer's first hop started (redirects are hops of their own); this exchange's start on the first hop.
  let transferStarted: ContinuousClock.Instant
  let progress: ProgressTracker
  let watchdog: Watchdog
  let state: Locked<State>

  init(
    method: HTTPRequest.Method,
    options: TransferOptions,
    upload: Upload,
    totalDeadline: ContinuousClock.Instant?,
    transferStarted: ContinuousClock.Instant? = nil,
    collectLimit: Int? = nil,
    progress: ProgressTracker,
    watchdog: Watchdog
  ) {
    self.method = method
    self.options = options
    self.upload = upload
    self.progress = progress
    self.watchdog = watchdog
    started = .now
    self.transferStarted = transferStarted ?? started
    #if canImport(FoundationNetworking)
    let suspendsInPlace = false
    #else
    let suspendsInPlace = true
    #endif
    state = Locked(
      State(
        machine: StateMachine(
          started: started,
          timeouts: options.timeouts,
          totalDeadline: totalDeadline,
          decodedLimit: options.decompression.limit,
          collectLimit: collectLimit,
          suspendsInPlace: suspendsInPlace
        )
      )
    )
  }

  // MARK: Caller

  /// Starts the task and waits for the response head.
  func run(_ task: URLSessionTask) async throws -> Hop {
    defer { HandOff.acquire() }
    return try await withTaskCancellationHandler {
      try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Hop, any Error>) in
        let step = state.withLock { state -> Step in
          let action = state.machine.start()
          guard case .startTask = action else { return Step(action: action, caller: continuation, task: task) }
          state.caller = continuation
          state.task = task
          return Step(action: action, task: task)
        }
        perform(step)
      }
    } onCancel: {
      fail(TransportError(code: .cancelled, message: "the transfer was cancelled"))
    }
  }

  /// The caller follows a redirect instead of returning this response: drop its body without waiting for it.
  func discard() {
    perform(handle { $0.discard() })
  }

  /// Ends the exchange with `error` at once: the waiting caller or the body's reader gets it, the task is cancelled.
  /// - Parameters:
  ///   - error: What the waiting caller or the body's reader gets.
  ///   - cancellingLater: Cancel the task from another queue, so that the caller — the session's delegate queue —
  ///     goes on at once (`cancel()` waits for the session's work queue, which may be busy for long).
  func fail(_ error: TransportError, cancellingLater: Bool = false) {
    perform(handle { $0.fail(error, cancel: cancellingLater ? .later : .now) })
  }

  // MARK: Delegate events

  func didReceive(_ response: URLResponse) {
    guard let http = response as? HTTPURLResponse else {
      fail(TransportError(code: .protocolError, message: "URLSession returned a response that is not HTTP"))
      return
    }
    // An interim head (`100 Continue`, `103 Early Hints`): the final head follows on the same task. `101` is final.
    if (100..<200).contains(http.statusCode) && http.statusCode != 101 {
      state.withLock { $0.machine.connectionActive(now: .now) }
      return
    }
    // Foundation joins repeated fields with ", ": the framing check sees every value the server sent.
    if let length = http.value(forHTTPHeaderField: "Content-Length"),
      let problem = ResponseFraming.problem(contentLengths: [length])
    {
      fail(problem)
      return
    }
    let head = ResponseHead(http, method: method)
    let channel = BodyChannel(expectedLength: head.expectedLength)
    let status = http.statusCode
    let mayRedirect =
      options.redirects.maxRedirects > 0 && Redirects.isFollowed(status)
      && head.head.headerFields.contains(.location)
    let expectedLength = head.expectedLength.map { Int64($0) }
    let step = state.withLock { state -> Step in
      let action = state.machine.headReceived(
        expectedLength: expectedLength,
        decoded: head.isDecoded,
        reportsProgress: !mayRedirect,
        now: .now
      )
      if case .deliverHead = action {
        state.channel = channel
        state.headArrived = .now
        state.bodyDecoded = head.isDecoded
      }
      return self.step(action, &state)
    }
    guard case .deliverHead = step.action, let caller = step.caller else { return perform(step) }
    channel.setHandlers(
      onDemand: { [weak self] in self?.resumeReading() },
      onCancel: { [weak self] in self?.fail(TransportError(code: .cancelled, message: "the body was cancelled")) }
    )
    if !mayRedirect { progress.received(0, of: expectedLength) }
    HandOff.release()
    caller.resume(returning: Hop(head: head, channel: channel, exchange: self))
  }

  /// Hands received body bytes to the body's channel without waking its reader.
  /// - Returns: The channel written to, for the delegate to flush (at once, or once the events already queued for the
  ///   delegate have run); `nil` when nothing was written.
  func didReceive(_ data: Data) -> BodyChannel? {
    let step = state.withLock { state in
      state.bodyBytes += data.count
      return self.step(state.machine.received(data.count, now: .now), &state)
    }
    guard case .write(let report) = step.action, let channel = step.channel else {
      perform(step)
      return nil
    }
    let result = channel.write(data)
    if let report { progress.received(report.received, of: report.expected) }
    switch result {
    case .proceed:
      return channel
    case .pause:
      channel.flush()
      perform(handle { $0.readerBehind() })
      return nil
    case .stop:
      fail(TransportError(code: .cancelled, message: "the body's reader stopped the transfer"))
      return nil
    }
  }

  func didSend(total: Int64, expected: Int64) {
    state.withLock { $0.machine.connectionActive(now: .now) }
    progress.sent(total, of: expected > 0 ? expected : nil)
  }

  func didComplete(_ error: (any Error)?) {
    perform(handle { $0.completed(error) })
  }

  /// FoundationNetworking turns a 401 with `WWW-Authenticate` into an authentication challenge only after it has
  /// delivered that response and its whole body, and then waits for a credential forever unless the challenge is
  /// cancelled. The response is complete at that point: its body ends normally here, before the task is cancelled.
  func finishBeforeChallenge() {
    perform(handle { $0.challengeReceived() })
  }

  /// The request body's source failed: the error the task ends with is replaced by this one.
  func bodyFailed(_ error: any Error) {
    state.withLock { $0.machine.requestBodyFailed(error) }
  }

  private func resumeReading() {
    perform(handle { $0.readerDemands(now: .now) })
  }

  // MARK: Performing the machine's actions

  /// Runs `event` on the machine under the lock; returns its action with what it acts on.
  func handle(_ event: (inout StateMachine) -> StateMachine.Action) -> Step {
    state.withLock { state in self.step(event(&state.machine), &state) }
  }

  /// `action` with what it acts on. The caller's continuation is taken out as soon as the machine no longer waits for
  /// the head, whatever ended the wait.
  func step(_ action: StateMachine.Action, _ state: inout State) -> Step {
    var step = Step(action: action, task: state.task, channel: state.channel)
    switch action {
    case .finishReader, .completeReader(nil, _): step.metrics = metrics(of: state, final: true)
    default: break
    }
    if !state.machine.isWaitingForHead, let caller = state.caller {
      step.caller = caller
      state.caller = nil
    }
    return step
  }

  /// Performs an action outside the lock. Handing the head over and writing body bytes are performed where those
  /// events arrive (the `didReceive` methods), which hold the head and the bytes.
  func perform(_ step: Step) {
    switch step.action {
    case .none, .deliverHead, .write:
      break
    case .startTask:
      watchdog.watch(self)
      step.task?.resume()
    case .refuseStart(let error):
      resumeCaller(step.caller, throwing: error)
      step.task?.cancel()
    case .suspendTask:
      step.task?.suspend()
    case .resumeTask:
      step.task?.resume()
    case .cancelDiscarded:
      upload.feed?.close(TransportError(code: .cancelled, message: "the transfer was cancelled"))
      step.task?.cancel()
    case .failUnstarted(let error):
      watchdog.forget(self)
      upload.feed?.close(error)
    case .failCaller(let error, let cancel):
      watchdog.forget(self)
      // Stop the producer of a streamed body first, so that no reader is left waiting on it while the task is torn
      // down (`cancel()` waits for the session's queue).
      upload.feed?.close(error)
      resumeCaller(step.caller, throwing: error)
      Self.cancel(step.task, cancel)
    case .failReader(let error, let cancel):
      watchdog.forget(self)
      upload.feed?.close(error)
      step.channel?.finish(error)
      Self.cancel(step.task, cancel)
    case .resend:
      watchdog.forget(self)
      resumeCaller(step.caller, throwing: Resend())
      step.task?.cancel()
    case .completeCaller(let error, let cleanUp):
      watchdog.forget(self)
      upload.cleanUp(cleanUp)
      resumeCaller(step.caller, throwing: error)
    case .completeReader(let error, let cleanUp):
      watchdog.forget(self)
      upload.cleanUp(cleanUp)
      step.channel?.finish(error, metrics: step.metrics)
    case .completeEnded(let cleanUp):
      watchdog.forget(self)
      if let cleanUp { upload.cleanUp(cleanUp) }
    case .finishReader:
      watchdog.forget(self)
      step.channel?.finish(nil, metrics: step.metrics)
    }
  }

  // MARK: Metrics

  /// What this transport measures of the transfer up to now: FoundationNetworking reports no `URLSessionTaskMetrics`
  /// (its delegate's `didFinishCollecting` is never called), so only what the transport sees itself is filled.
  func metrics(final: Bool) -> TransferMetrics {
    state.withLock { metrics(of: $0, final: final) }
  }

  /// The metrics of `state`: the redirect share, the head's arrival as the first byte, and once the body has ended,
  /// the total and the body's size (decoded; the size on the wire too when nothing was decoded).
  private func metrics(of state: State, final: Bool) -> TransferMetrics {
    // The exchange is the final hop when this is asked: the hops before it are the redirect share.
    var metrics = TransferMetrics(redirect: transferStarted.duration(to: started))
    metrics.firstByte = state.headArrived.map { transferStarted.duration(to: $0) }
    if final {
      metrics.total = transferStarted.duration(to: .now)
      metrics.decodedBodyBytes = state.bodyBytes
      if !state.bodyDecoded { metrics.responseBodyBytes = state.bodyBytes }
    }
    return metrics
  }

  private func resumeCaller(_ caller: UnsafeContinuation<Hop, any Error>?, throwing error: any Error) {
    guard let caller else { return }
    HandOff.release()
    caller.resume(throwing: error)
  }

  private static func cancel(_ task: URLSessionTask?, _ when: StateMachine.Cancel) {
    guard let task else { return }
    switch when {
    case .now: task.cancel()
    case .later: DispatchQueue.global().async { task.cancel() }
    }
  }
}
