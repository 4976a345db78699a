import Foundation
import HTTPTypes
import MalibuTransport

extension Exchange {
  /// Where one exchange is, and what each of its events makes the ``Exchange`` do.
  ///
  /// A value with one ``State``: events come in (the delegate's callbacks, the caller, the body's reader, the
  /// watchdog), each moves the state and returns one ``Action``. It does no I/O and holds neither the task, nor the
  /// caller's continuation, nor the body's channel: the exchange keeps those, runs the machine under its lock and
  /// performs the action once the lock is released. Whatever ends the exchange first wins; later events find it ended
  /// and return ``Action/none`` (a completing task still cleans up the upload).
  struct StateMachine: Sendable {
    /// Where the exchange is.
    enum State: Sendable {
      /// Built; its task not started.
      case created
      /// The task runs and the caller waits for the final response head.
      case waitingForHead(Activity)
      /// The head went to the caller; body bytes go to the body's channel.
      case receiving(Body)
      /// The body's reader fell behind: the task is suspended until the reader asks for more (Apple platforms).
      case paused(Body)
      /// The caller follows a redirect: the body's bytes are dropped as they arrive.
      case discarding(Discard)
      /// The task completed, or the body ended before an authentication challenge.
      case finished
      /// Ended with this error: a cancellation, a timeout, a limit, a failure of the task.
      case failed(TransportError)
      /// Ended so that the request is sent again on a new task.
      case resent
    }

    /// Signs of life before the response head.
    struct Activity: Sendable {
      /// Whether a connection was seen to be up (an interim head, request-body bytes sent).
      var connected: Bool
      /// The last event of the task.
      var last: ContinuousClock.Instant
    }

    /// A response body on its way to the channel.
    struct Body: Sendable {
      /// The last event of the task.
      var last: ContinuousClock.Instant
      /// Bytes received so far (as URLSession hands them over: decoded, when it decodes).
      var received: Int64 = 0
      /// The length the head announced, when it is the length of what arrives.
      var expectedLength: Int64?
      /// Whether URLSession decodes the body, so that the decompression limit applies.
      var decoded: Bool
      /// Whether download progress is reported (not for a response that may be a followed redirect).
      var reportsProgress: Bool
    }

    /// A redirect's body being dropped.
    struct Discard: Sendable {
      /// The last event of the task.
      var last: ContinuousClock.Instant
      /// Bytes dropped since the caller moved on.
      var dropped = 0
      /// Whether the task was cancelled (the body is too large to read to its end, or nobody would resume it).
      var stopped = false
    }

    /// Download progress to report after a write.
    struct Progress: Sendable, Equatable {
      var received: Int64
      var expected: Int64?
    }

    /// When a failing exchange's task is cancelled.
    enum Cancel: Sendable, Equatable {
      /// At once.
      case now
      /// From another queue, so that the delegate queue the failure came from goes on (`cancel()` waits for the
      /// session's work queue, which may be busy for long).
      case later
    }

    /// What the exchange does after an event, outside its lock.
    enum Action: Sendable {
      /// Nothing.
      case none
      /// Watch the exchange's deadlines and resume its task.
      case startTask
      /// The exchange ended before its task started: the caller throws this, and the task is cancelled.
      case refuseStart(TransportError)
      /// Hand the response head and its body's channel to the waiting caller.
      case deliverHead
      /// Write the received bytes to the body's channel, then report this progress, if any.
      case write(Progress?)
      /// Suspend the task until the body's reader asks for more.
      case suspendTask
      /// Resume the suspended task.
      case resumeTask
      /// Cancel the task of a dropped redirect body (and stop the request body's producer).
      case cancelDiscarded
      /// Failed before the task started: stop the request body's producer; ``Action/refuseStart(_:)`` follows.
      case failUnstarted(TransportError)
      /// Failed while the caller waits: stop the request body's producer, the caller throws, cancel the task.
      case failCaller(TransportError, Cancel)
      /// Failed while the body arrives: stop the request body's producer, the body ends with the error, cancel the
      /// task.
      case failReader(TransportError, Cancel)
      /// The connection died before the response: the caller sends the request again; cancel this task.
      case resend
      /// The task completed before the head: clean up the upload with `cleanUp`, the caller throws.
      case completeCaller(TransportError, cleanUp: TransportError)
      /// The task completed while the body arrived: clean up the upload with `cleanUp`, the body ends (normally with
      /// `nil`).
      case completeReader(TransportError?, cleanUp: TransportError)
      /// The task completed after the exchange had ended: clean up the upload (unless `nil`: it is resent).
      case completeEnded(cleanUp: TransportError?)
      /// The body is complete before the task is: it ends normally.
      case finishReader
    }

    /// Redirect bodies larger than this are not worth reading to the end to keep the connection.
    static let discardLimit = 1 << 20

    private(set) var state = State.created
    /// The error that stopped the request body's source, if any: it replaces the error the task ends with.
    private(set) var requestBodyError: (any Error)?

    private let started: ContinuousClock.Instant
    private let timeouts: Timeouts
    private let totalDeadline: ContinuousClock.Instant?
    private let decodedLimit: Int?
    private let collectLimit: Int?
    private let suspendsInPlace: Bool

    /// - Parameters:
    ///   - started: When the exchange was built: the connect timeout runs from here.
    ///   - timeouts: The transfer's timeouts (the total one through `totalDeadline`, shared by every hop).
    ///   - totalDeadline: When the whole transfer runs out, if ever.
    ///   - decodedLimit: The largest body URLSession may decode, if it decodes one.
    ///   - collectLimit: The largest body the caller collects, when it collects one (`data(for:body:options:upTo:)`):
    ///     FoundationNetworking cannot pause a transfer, so the task is stopped as soon as more arrived.
    ///   - suspendsInPlace: Whether a suspended task keeps its place (Apple's URLSession); FoundationNetworking starts a
    ///     suspended request again from scratch, so there a body whose reader falls behind is buffered.
    init(
      started: ContinuousClock.Instant,
      timeouts: Timeouts,
      totalDeadline: ContinuousClock.Instant?,
      decodedLimit: Int?,
      collectLimit: Int? = nil,
      suspendsInPlace: Bool
    ) {
      self.started = started
      self.timeouts = timeouts
      self.totalDeadline = totalDeadline
      self.decodedLimit = decodedLimit
      self.collectLimit = collectLimit
      self.suspendsInPlace = suspendsInPlace
    }

    /// Whether the caller waits for the response head (the exchange holds its continuation exactly then).
    var isWaitingForHead: Bool {
      if case .waitingForHead = state { return true }
      return false
    }

    // MARK: Caller

    /// The caller starts the task.
    mutating func start() -> Action {
      switch state {
      case .created:
        state = .waitingForHead(Activity(connected: false, last: started))
        return .startTask
      case .failed(let error):
        return .refuseStart(error)
      case .waitingForHead, .receiving, .paused, .discarding, .finished, .resent:
        return .refuseStart(TransportError(code: .cancelled, message: "the transfer was cancelled"))
      }
    }

    /// The caller follows a redirect instead of returning this response: its body is dropped.
    mutating func discard() -> Action {
      switch state {
      case .receiving(let body):
        state = .discarding(Discard(last: body.last))
        return .none
      case .paused(let body):
        // Nobody will read what the suspended task holds back, so nothing would resume it.
        state = .discarding(Discard(last: body.last, stopped: true))
        return .cancelDiscarded
      case .discarding(var discard):
        guard !discard.stopped, discard.dropped > Self.discardLimit else { return .none }
        discard.stopped = true
        state = .discarding(discard)
        return .cancelDiscarded
      case .created, .waitingForHead, .finished, .failed, .resent:
        return .none
      }
    }

    /// Ends the exchange with `error` (a cancellation, a limit, a failure) unless it has ended already.
    mutating func fail(_ error: TransportError, cancel: Cancel = .now) -> Action {
      switch state {
      case .created:
        state = .failed(error)
        return .failUnstarted(error)
      case .waitingForHead:
        state = .failed(error)
        return .failCaller(error, cancel)
      case .receiving, .paused, .discarding:
        state = .failed(error)
        return .failReader(error, cancel)
      case .finished, .failed, .resent:
        return .none
      }
    }

    // MARK: Delegate events

    /// An interim head (`100 Continue`, `103 Early Hints`) or request-body bytes sent: the connection is up.
    mutating func connectionActive(now: ContinuousClock.Instant) {
      switch state {
      case .waitingForHead:
        state = .waitingForHead(Activity(connected: true, last: now))
      case .receiving, .paused, .discarding:
        touch(now)
      case .created, .finished, .failed, .resent:
        break
      }
    }

    /// The final response head arrived.
    /// - Parameters:
    ///   - expectedLength: The body's length, when the head tells the length of what arrives.
    ///   - decoded: Whether URLSession decodes the body.
    ///   - reportsProgress: Whether download progress is reported.
    mutating func headReceived(
      expectedLength: Int64?,
      decoded: Bool,
      reportsProgress: Bool,
      now: ContinuousClock.Instant
    ) -> Action {
      guard case .waitingForHead = state else { return .none }
      state = .receiving(
        Body(last: now, expectedLength: expectedLength, decoded: decoded, reportsProgress: reportsProgress)
      )
      return .deliverHead
    }

    /// `count` body bytes arrived.
    mutating func received(_ count: Int, now: ContinuousClock.Instant) -> Action {
      switch state {
      case .receiving(var body), .paused(var body):
        // A suspended task may still deliver what was already on its way.
        body.last = now
        body.received += Int64(count)
        if body.decoded, let limit = decodedLimit, body.received > Int64(limit) {
          // URLSession may still be inflating the rest of the body into events queued for the delegate queue: they
          // must find the exchange ended, not wait behind `cancel()`.
          return fail(.decodedBodyTooLarge(limit: limit), cancel: .later)
        }
        if let limit = collectLimit, body.received > Int64(limit) {
          // The collecting caller would refuse it anyway; without this the rest would pile up in the body's channel
          // until the caller reads, at network speed.
          return fail(.bodyTooLarge(limit: limit, size: nil), cancel: .later)
        }
        if case .paused = state { state = .paused(body) } else { state = .receiving(body) }
        return .write(body.reportsProgress ? Progress(received: body.received, expected: body.expectedLength) : nil)
      case .discarding(var discard):
        discard.last = now
        discard.dropped += count
        let stop = !discard.stopped && discard.dropped > Self.discardLimit
        if stop { discard.stopped = true }
        state = .discarding(discard)
        return stop ? .cancelDiscarded : .none
      case .waitingForHead:
        touch(now)
        return .none
      case .created, .finished, .failed, .resent:
        return .none
      }
    }

    /// The body's reader holds more than it wants: the task waits for it, where it can.
    mutating func readerBehind() -> Action {
      guard suspendsInPlace, case .receiving(let body) = state else { return .none }
      state = .paused(body)
      return .suspendTask
    }

    /// The body's reader drained what it held and wants more.
    mutating func readerDemands(now: ContinuousClock.Instant) -> Action {
      guard case .paused(var body) = state else { return .none }
      body.last = now
      state = .receiving(body)
      return .resumeTask
    }

    /// The request body's source failed: the task's own error is replaced by this one.
    mutating func requestBodyFailed(_ error: any Error) {
      requestBodyError = error
    }

    /// URLSession's connection died before the response and it wants the request body again, which it cannot
    /// rewind: a request with an idempotent `method` is sent again on a new task, if nothing arrived yet. Any other
    /// request may have reached the server: it fails with `connectionReset` at once, and whether it is sent again is
    /// the retry policy's choice (RFC 9110 §9.2.2).
    mutating func connectionLostBeforeResponse(method: HTTPRequest.Method) -> Action {
      switch state {
      case .waitingForHead:
        guard method.isIdempotent else {
          return fail(TransportError.connectionClosedAfterSending(method: method.rawValue))
        }
        state = .resent
        return .resend
      case .created, .receiving, .paused, .discarding:
        return fail(
          TransportError(code: .connectionReset, message: "the connection was lost and the request cannot be resent")
        )
      case .finished, .failed, .resent:
        return .none
      }
    }

    /// FoundationNetworking raises an HTTP authentication challenge only after the whole 401 response arrived: the
    /// body ends normally before the task is cancelled.
    mutating func challengeReceived() -> Action {
      switch state {
      case .receiving, .paused, .discarding:
        state = .finished
        return .finishReader
      case .created, .waitingForHead, .finished, .failed, .resent:
        return .none
      }
    }

    /// The task completed, with URLSession's `error` if it failed.
    mutating func completed(_ error: (any Error)?) -> Action {
      let outcome = error.map { Self.mapped($0, requestBodyError: requestBodyError) }
      let ended = TransportError(code: .cancelled, message: "the transfer ended")
      switch state {
      case .waitingForHead:
        state = .finished
        let noResponse = TransportError(
          code: .other,
          message: "URLSession ended the task without delivering a response"
            + " (FoundationNetworking does this to a 3xx response that has no Location)"
        )
        return .completeCaller(outcome ?? noResponse, cleanUp: outcome ?? ended)
      case .receiving, .paused, .discarding:
        state = .finished
        return .completeReader(outcome, cleanUp: outcome ?? ended)
      case .created, .finished:
        state = .finished
        return .completeEnded(cleanUp: outcome ?? ended)
      case .failed:
        return .completeEnded(cleanUp: outcome ?? ended)
      case .resent:
        // The upload goes on with the new task.
        return .completeEnded(cleanUp: nil)
      }
    }

    // MARK: Watchdog

    /// A timeout and the instant it runs out.
    enum Deadline: Sendable, Equatable {
      case total(ContinuousClock.Instant)
      case connect(ContinuousClock.Instant)
      case idle(ContinuousClock.Instant)

      var instant: ContinuousClock.Instant {
        switch self {
        case .total(let instant), .connect(let instant), .idle(let instant): instant
        }
      }
    }

    /// The earliest deadline still to watch, or `nil` when the exchange has ended or has no timeouts. While the idle
    /// timeout is paused and nothing else is due, one second from `now` (to look again).
    ///
    /// - total: shared by every hop of the transfer, from the moment `send` started.
    /// - connect: URLSession reports no "connected" event, so this runs from the start of the hop until the first
    ///   sign of a connection: an interim or final head, or request-body bytes sent. For a request without a body
    ///   that includes the time the server takes to answer.
    /// - idle: from the task's last event; paused while the task is suspended for the body's reader, since the stall
    ///   is then the reader's.
    func earliestDeadline(now: ContinuousClock.Instant) -> Deadline? {
      guard timeouts.connect != nil || timeouts.idle != nil || totalDeadline != nil else { return nil }
      let connected: Bool
      let last: ContinuousClock.Instant?
      switch state {
      case .created: (connected, last) = (false, started)
      case .waitingForHead(let activity): (connected, last) = (activity.connected, activity.last)
      case .receiving(let body): (connected, last) = (true, body.last)
      case .paused: (connected, last) = (true, nil)
      case .discarding(let discard): (connected, last) = (true, discard.last)
      case .finished, .failed, .resent: return nil
      }
      var earliest: Deadline?
      func consider(_ deadline: Deadline) {
        if earliest.map({ deadline.instant < $0.instant }) ?? true { earliest = deadline }
      }
      if let totalDeadline { consider(.total(totalDeadline)) }
      if !connected, let connect = timeouts.connect { consider(.connect(started + connect)) }
      if let last, let idle = timeouts.idle { consider(.idle(last + idle)) }
      return earliest ?? .idle(now + .seconds(1))
    }

    /// The watchdog looks at the time: fails the exchange when one of its deadlines has passed.
    mutating func checkDeadlines(now: ContinuousClock.Instant) -> Action {
      guard let deadline = earliestDeadline(now: now), deadline.instant <= now else { return .none }
      switch deadline {
      case .total:
        return fail(
          TransportError(code: .totalTimeout, message: "the transfer took longer than \(timeouts.total ?? .zero)")
        )
      case .connect:
        return fail(
          TransportError(
            code: .connectTimeout,
            message: "no connection within \(timeouts.connect ?? .zero) (URLSession measures this until the response "
              + "head or the first request-body byte sent)"
          )
        )
      case .idle:
        return fail(TransportError(code: .idleTimeout, message: "no data moved for \(timeouts.idle ?? .zero)"))
      }
    }

    // MARK: Helpers

    private mutating func touch(_ now: ContinuousClock.Instant) {
      switch state {
      case .waitingForHead(var activity):
        activity.last = now
        state = .waitingForHead(activity)
      case .receiving(var body):
        body.last = now
        state = .receiving(body)
      case .paused(var body):
        body.last = now
        state = .paused(body)
      case .discarding(var discard):
        discard.last = now
        state = .discarding(discard)
      case .created, .finished, .failed, .resent:
        break
      }
    }

    /// The error a task ended with, or the request body's own when its source failed first.
    private static func mapped(_ error: any Error, requestBodyError: (any Error)?) -> TransportError {
      if let requestBodyError {
        if let error = requestBodyError as? TransportError { return error }
        return TransportError(
          code: .invalidRequest,
          message: "reading the request body failed: \(requestBodyError)",
          underlyingError: requestBodyError
        )
      }
      return TransportError(urlSessionError: error)
    }
  }
}
