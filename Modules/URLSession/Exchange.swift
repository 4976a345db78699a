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
/// Whatever ends the exchange first — the task completing, a timeout, a limit, the caller cancelling — wins; the
/// others find it finished and do nothing.
final class Exchange: Sendable {
  /// What ``run(_:)`` returns: the response head and the channel its body arrives through.
  struct Hop: Sendable {
    var head: ResponseHead
    var channel: BodyChannel
    var exchange: Exchange
  }

  /// Where the exchange is. The waiting caller's continuation is an unsafe one (no allocation to check it): it is
  /// taken out of the state under the lock before it is resumed, so it is resumed exactly once.
  enum Phase {
    case created
    case waiting(UnsafeContinuation<Hop, any Error>)
    case streaming(BodyChannel)
    case finished
  }

  struct State {
    var phase = Phase.created
    var task: URLSessionTask?
    var bodyError: (any Error)?
    var failure: TransportError?
    var alive = false
    var lastActivity: ContinuousClock.Instant
    var paused = false
    var decoded = false
    var discarding = false
    var reportsDownload = false
    var received: Int64 = 0
    var discardedBytes = 0
    var expectedLength: Int64?
    /// The request is sent again on a new task (``resendOnNewTask()``): the body stays for that task.
    var resent = false
  }

  /// What ``run(_:)`` throws when URLSession's connection died before the response and the transport must send the
  /// request again on a new task.
  struct Resend: Error {}

  let options: TransferOptions
  let method: HTTPRequest.Method
  let upload: Upload
  let started: ContinuousClock.Instant
  let totalDeadline: ContinuousClock.Instant?
  let progress: ProgressTracker
  let watchdog: Watchdog
  let state: Locked<State>

  init(
    method: HTTPRequest.Method,
    options: TransferOptions,
    upload: Upload,
    totalDeadline: ContinuousClock.Instant?,
    progress: ProgressTracker,
    watchdog: Watchdog
  ) {
    self.method = method
    self.options = options
    self.upload = upload
    self.totalDeadline = totalDeadline
    self.progress = progress
    self.watchdog = watchdog
    started = .now
    state = Locked(State(lastActivity: started))
  }

  // MARK: Caller

  /// Starts the task and waits for the response head.
  func run(_ task: URLSessionTask) async throws -> Hop {
    defer { HandOff.acquire() }
    return try await withTaskCancellationHandler {
      try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Hop, any Error>) in
        let failure = state.withLock { state -> TransportError? in
          guard case .created = state.phase else {
            return state.failure ?? TransportError(code: .cancelled, message: "the transfer was cancelled")
          }
          state.phase = .waiting(continuation)
          state.task = task
          return nil
        }
        if let failure {
          HandOff.release()
          continuation.resume(throwing: failure)
          task.cancel()
          return
        }
        watchdog.watch(self)
        task.resume()
      }
    } onCancel: {
      fail(TransportError(code: .cancelled, message: "the transfer was cancelled"))
    }
  }

  /// The caller follows a redirect instead of returning this response: drop its body without waiting for it.
  func discard() {
    let cancel = state.withLock { state -> Bool in
      state.discarding = true
      return state.discardedBytes > Self.discardLimit
    }
    if cancel { stop() }
  }

  /// Redirect bodies larger than this are not worth reading to the end to keep the connection.
  static let discardLimit = 1 << 20

  /// Ends the exchange with `error` at once: the waiting caller or the body's reader gets it, the task is cancelled.
  /// - Parameters:
  ///   - error: What the waiting caller or the body's reader gets.
  ///   - cancellingLater: Cancel the task from another queue, so that the caller — the session's delegate queue —
  ///     goes on at once (`cancel()` waits for the session's work queue, which may be busy for long).
  func fail(_ error: TransportError, cancellingLater: Bool = false) {
    let (phase, task) = state.withLock { state -> (Phase, URLSessionTask?) in
      let phase = state.phase
      if case .finished = phase { return (phase, nil) }
      state.phase = .finished
      state.failure = error
      return (phase, state.task)
    }
    watchdog.forget(self)
    switch phase {
    case .created, .waiting, .streaming:
      // Stop the producer of a streamed body first, so that no reader is left waiting on it while the task is torn
      // down (`cancel()` waits for the session's queue).
      upload.feed?.close(error)
      if case .waiting(let continuation) = phase {
        HandOff.release()
        continuation.resume(throwing: error)
      }
      if case .streaming(let channel) = phase { channel.finish(error) }
      if cancellingLater, let task {
        DispatchQueue.global().async { task.cancel() }
      } else {
        task?.cancel()
      }
    case .finished:
      break
    }
  }

  /// Cancels the task of an exchange whose outcome no longer matters (a dropped redirect body).
  private func stop() {
    let task = state.withLock { $0.task }
    upload.feed?.close(TransportError(code: .cancelled, message: "the transfer was cancelled"))
    task?.cancel()
  }

  // MARK: Delegate events

  func didReceive(_ response: URLResponse) {
    guard let http = response as? HTTPURLResponse else {
      fail(TransportError(code: .protocolError, message: "URLSession returned a response that is not HTTP"))
      return
    }
    // An interim head (`100 Continue`, `103 Early Hints`): the final head follows on the same task. `101` is final.
    if (100..<200).contains(http.statusCode) && http.statusCode != 101 {
      state.withLock { state in
        state.alive = true
        state.lastActivity = .now
      }
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
      && head.head.headerFields[.location] != nil
    let continuation = state.withLock { state -> UnsafeContinuation<Hop, any Error>? in
      guard case .waiting(let continuation) = state.phase else { return nil }
      state.phase = .streaming(channel)
      state.alive = true
      state.lastActivity = .now
      state.decoded = head.isDecoded
      state.reportsDownload = !mayRedirect
      state.expectedLength = head.expectedLength.map { Int64($0) }
      return continuation
    }
    guard let continuation else { return }
    channel.setHandlers(
      onDemand: { [weak self] in self?.resumeReading() },
      onCancel: { [weak self] in self?.fail(TransportError(code: .cancelled, message: "the body was cancelled")) }
    )
    if !mayRedirect { progress.received(0, of: head.expectedLength.map { Int64($0) }) }
    HandOff.release()
    continuation.resume(returning: Hop(head: head, channel: channel, exchange: self))
  }

  /// Hands received body bytes to the body's channel without waking its reader.
  /// - Returns: The channel written to, for the delegate to flush (at once, or once the events already queued for the
  ///   delegate have run); `nil` when nothing was written.
  func didReceive(_ data: Data) -> BodyChannel? {
    enum Next {
      case deliver(BodyChannel, Int64, Int64?, Bool)
      case tooLarge(Int)
      case dropped(Bool)
    }
    let next = state.withLock { state -> Next in
      state.lastActivity = .now
      state.received += Int64(data.count)
      if state.discarding {
        state.discardedBytes += data.count
        return .dropped(state.discardedBytes > Self.discardLimit)
      }
      guard case .streaming(let channel) = state.phase else { return .dropped(false) }
      if state.decoded, let limit = options.decompression.limit, state.received > Int64(limit) {
        return .tooLarge(limit)
      }
      return .deliver(channel, state.received, state.expectedLength, state.reportsDownload)
    }
    switch next {
    case .dropped(let stop):
      if stop { self.stop() }
      return nil
    case .tooLarge(let limit):
      // libcurl may still be inflating the rest of the body into reads queued for this delegate queue: they must
      // be dropped as they come, not wait behind `cancel()`.
      fail(
        .decodedBodyTooLarge(limit: limit),
        cancellingLater: true
      )
      return nil
    case .deliver(let channel, let received, let expected, let reports):
      let result = channel.write(data)
      if reports { progress.received(received, of: expected) }
      switch result {
      case .proceed:
        return channel
      case .pause:
        channel.flush()
        pauseReading()
        return nil
      case .stop:
        fail(TransportError(code: .cancelled, message: "the body's reader stopped the transfer"))
        return nil
      }
    }
  }

  func didSend(total: Int64, expected: Int64) {
    state.withLock { state in
      state.alive = true
      state.lastActivity = .now
    }
    progress.sent(total, of: expected > 0 ? expected : nil)
  }

  func didComplete(_ error: (any Error)?) {
    let (phase, bodyError, resent) = state.withLock { state -> (Phase, (any Error)?, Bool) in
      let phase = state.phase
      state.phase = .finished
      return (phase, state.bodyError, state.resent)
    }
    watchdog.forget(self)
    let outcome = error.map { Self.mapped($0, bodyError: bodyError) }
    if !resent { upload.cleanUp(outcome ?? TransportError(code: .cancelled, message: "the transfer ended")) }
    switch phase {
    case .waiting(let continuation):
      HandOff.release()
      continuation.resume(
        throwing: outcome
          ?? TransportError(
            code: .other,
            message: "URLSession ended the task without delivering a response"
              + " (FoundationNetworking does this to a 3xx response that has no Location)"
          )
      )
    case .streaming(let channel):
      channel.finish(outcome)
    case .created, .finished:
      break
    }
  }

  /// FoundationNetworking turns a 401 with `WWW-Authenticate` into an authentication challenge only after it has
  /// delivered that response and its whole body, and then waits for a credential forever unless the challenge is
  /// cancelled. The response is complete at that point: its body ends normally here, before the task is cancelled.
  func finishBeforeChallenge() {
    let channel = state.withLock { state -> BodyChannel? in
      guard case .streaming(let channel) = state.phase else { return nil }
      state.phase = .finished
      return channel
    }
    channel?.finish(nil)
  }

  /// The request body's source failed: the error the task ends with is replaced by this one.
  func bodyFailed(_ error: any Error) {
    state.withLock { $0.bodyError = error }
  }

  private static func mapped(_ error: any Error, bodyError: (any Error)?) -> TransportError {
    if let bodyError {
      if let error = bodyError as? TransportError { return error }
      return TransportError(
        code: .invalidRequest,
        message: "reading the request body failed: \(bodyError)",
        underlyingError: bodyError
      )
    }
    return TransportError(urlSessionError: error)
  }

  // MARK: Back-pressure

  private func pauseReading() {
    #if !canImport(FoundationNetworking)
    // Apple's URLSession suspends a running data task in place. FoundationNetworking cannot: suspending removes the
    // transfer from libcurl and resuming starts the request again from scratch, so on Linux the body is buffered.
    let task = state.withLock { state -> URLSessionTask? in
      guard !state.paused, case .streaming = state.phase else { return nil }
      state.paused = true
      return state.task
    }
    task?.suspend()
    #endif
  }

  private func resumeReading() {
    let task = state.withLock { state -> URLSessionTask? in
      guard state.paused, case .streaming = state.phase else { return nil }
      state.paused = false
      state.lastActivity = .now
      return state.task
    }
    task?.resume()
  }
}
