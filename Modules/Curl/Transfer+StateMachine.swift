import HTTPTypes
import MalibuTransport

extension Transfer {
  /// The life of one transfer as one value: which hop runs, where its response body goes, what is paused, when bytes
  /// last moved, and how the transfer ends.
  ///
  /// Pure and synchronous: no libcurl, no channel, no clock. ``Transfer`` feeds it the events of the loop thread
  /// (libcurl's callbacks, the commands of other threads, the loop's deadline check), with the time when it matters,
  /// and performs what it answers: pause or unpause the easy handle, follow a redirect, end the transfer. The body's
  /// sink (a `BodyChannel` or a `BodyCollector`) and every libcurl resource stay with the class.
  ///
  /// ```
  /// idle ─startHop→ starting ─hopAdded→ awaitingHead ─finalHead→ receivingBody(streaming | collecting)
  ///                                                  ─redirect→  receivingBody(discarding)
  /// receivingBody(discarding) ─hopEnded→ idle (the next hop)
  /// awaitingHead, receivingBody(streaming | collecting) ─hopEnded→ finished
  /// awaitingHead, receivingBody ─refuse→ failing ─hopEnded→ finished
  /// awaitingHead ─addressRefused→ awaitingHead (the refusal kept: it is the error if no address connects)
  /// any state ─cancel→ finished
  /// ```
  struct StateMachine {
    /// How the caller takes the response (the job's sink).
    enum Delivery: Equatable {
      /// Woken with the head; the body streams through a channel.
      case stream
      /// Woken once, with the whole body, which may not exceed `limit` bytes.
      case collect(limit: Int)
    }

    /// The request of the next hop, when a redirect is followed.
    struct Redirect {
      var request: HTTPRequest
      var body: RequestBody?
    }

    /// One hop while it is in libcurl's multi handle.
    struct Hop: Equatable {
      /// When the hop started.
      var start: UInt64
      /// When bytes last moved (or the transfer was paused by us), as the idle check last saw it.
      var lastActivity: UInt64
      /// Whether a callback saw bytes move since the idle check last looked.
      var sawActivity = false
      /// Whether receiving is paused: the caller's channel is full.
      var receivePaused = false
      /// Whether sending is paused: a streamed request body has no bytes yet.
      var sendPaused = false
      /// The bytes of response head lines read in this hop (interim heads included).
      var headBytes = 0
      /// How many times libcurl began sending the hop's request: more than once when it sends it again on a new
      /// connection because the kept-alive one it reused died before a byte of the response.
      var sends = 0

      init(start: UInt64) {
        self.start = start
        lastActivity = start
      }

      /// What libcurl must hold back.
      var pause: Pause { Pause(receive: receivePaused, send: sendPaused) }
    }

    /// Where the body of the current hop goes once its head is complete.
    enum Body {
      /// The body of a redirect that is followed: dropped; the next hop starts when this one ends.
      indirect case discarding(Redirect)
      /// To the caller's channel; `flushPending` when bytes were written to it in this round of the loop.
      case streaming(flushPending: Bool)
      /// To the collector, for the caller woken at the end.
      case collecting
    }

    enum State {
      /// Not in libcurl: before the first hop, or between a redirect and the next hop.
      case idle
      /// The handle of the hop that started at this moment is being configured.
      case starting(at: UInt64)
      /// The hop runs; its response head is not complete.
      case awaitingHead(Hop)
      /// The head is complete; the body goes where `Body` says.
      case receivingBody(Hop, Body)
      /// A callback refused to go on: libcurl ends the hop, and the transfer ends with `error` whatever libcurl
      /// reports. `streaming` when the caller already holds the body's channel.
      indirect case failing(Hop, error: TransportError, streaming: Bool)
      /// The outcome was delivered; every later event is ignored.
      case finished
    }

    /// What libcurl must hold back (`curl_easy_pause`'s mask).
    struct Pause: Equatable {
      var receive: Bool
      var send: Bool
    }

    /// How the transfer ends.
    enum Ending {
      /// Hand the collected body to the caller (once the decoder, if any, has seen a complete body).
      case deliverCollected
      /// End the body's channel, which the caller already holds: with an error, or at the body's end (`nil`).
      case endStream(TransportError?)
      /// Fail the caller, who has no response yet.
      case fail(TransportError)
      /// Fail the caller: libcurl ended the hop well, but no response head came.
      case noResponseHead
    }

    /// What ``Transfer`` does after an event.
    enum Action {
      /// Nothing.
      case none
      /// Set the easy handle's pause mask.
      case pause(Pause)
      /// Start the next hop with this request (the handle is out of libcurl already).
      case followRedirect(Redirect)
      /// Deliver the outcome and free everything; `removeHandle` when the handle is still in libcurl.
      case finish(Ending, removeHandle: Bool)
    }

    /// What ``startHop(now:)`` allows.
    enum HopStart: Equatable {
      /// Configure the handle and add it to libcurl.
      case configure
      /// The total deadline has passed: cancel with a total timeout.
      case expired
      /// No hop may start now (one runs, or the transfer ended).
      case none
    }

    /// What becomes of a header line.
    enum HeaderRoute: Equatable {
      /// It belongs to the head being read: parse it.
      case parse
      /// A trailer, or a line after the final head: accept it and drop it.
      case ignore
      /// Refuse it: the hop is failing.
      case refuse
    }

    /// What a complete final head leads to.
    enum HeadAction: Equatable {
      /// Wake the caller with the head and a channel for the body.
      case stream
      /// Collect the body.
      case collect
      /// Refuse the head: the transfer fails (a `Content-Length` past the limit).
      case refuse
    }

    /// Where body bytes go.
    enum BodyRoute: Equatable {
      /// Accept and drop them (a redirect's body).
      case discard
      /// Write them to the channel; `markDirty` when they are the first of this round (the loop flushes the
      /// channel at the end of the round).
      case stream(markDirty: Bool)
      /// Append them to the collector.
      case collect
      /// Refuse them: no body is expected now.
      case refuse
    }

    /// What the write callback answers after the sink took the bytes.
    enum BodyAnswer: Equatable {
      /// Accept them.
      case accept
      /// Accept them, and set this pause mask: the channel is full.
      case pause(Pause)
      /// Refuse them: the transfer fails.
      case refuse
    }

    /// Whether libcurl may send the hop's request now (its pre-request callback).
    enum SendDecision: Equatable {
      /// Send it.
      case proceed
      /// Refuse: the request was sent once on a connection that died, and its method is not idempotent.
      case abort
    }

    /// Which deadline passed.
    enum Expiry: Equatable {
      case total
      case idle
    }

    /// The next moment the loop must look at the transfer.
    enum DeadlineCheck: Equatable {
      /// No deadline applies.
      case none
      /// Look again at this moment.
      case at(UInt64)
      /// A deadline passed: cancel the transfer with its error.
      case expired(Expiry)
      /// The idle deadline seems to have passed: ask libcurl how long connecting took and the socket when it last
      /// received, then call ``connectionProbed(now:connectedAfter:lastReceived:)``.
      case probeConnection
    }

    /// The moment the transfer must end by, if any.
    let totalDeadline: UInt64?
    /// How long bytes may stop moving, if limited (never zero).
    let idleTimeout: UInt64?
    private(set) var state = State.idle
    /// How many redirects were followed so far.
    private(set) var redirectsFollowed = 0
    /// The first address the connection policy refused in the running hop (``addressRefused(_:)``): libcurl goes on
    /// with the host's next address, and when none connects, the hop ends with this error rather than libcurl's. Kept
    /// beside the hop rather than in it, so that the hop copied in and out of ``state`` on every event stays small.
    private(set) var addressRefusal: TransportError?

    init(totalDeadline: UInt64?, idleTimeout: UInt64?) {
      self.totalDeadline = totalDeadline
      self.idleTimeout = idleTimeout
    }

    /// Whether a hop is in libcurl's multi handle.
    var isRunning: Bool {
      switch state {
      case .awaitingHead, .receivingBody, .failing: true
      case .idle, .starting, .finished: false
      }
    }

    /// Whether the current hop's response head is not complete yet.
    var isAwaitingHead: Bool {
      if case .awaitingHead = state { return true }
      return false
    }

    // MARK: Hops

    /// A hop is about to start at `now`.
    mutating func startHop(now: UInt64) -> HopStart {
      guard case .idle = state else { return .none }
      if let totalDeadline, now >= totalDeadline { return .expired }
      state = .starting(at: now)
      return .configure
    }

    /// The configured handle is in libcurl's multi handle.
    mutating func hopAdded() {
      guard case .starting(let start) = state else { return }
      state = .awaitingHead(Hop(start: start))
      addressRefusal = nil
    }

    /// libcurl ended the hop (the class took the handle out of the multi handle); `libcurlError` when it reported
    /// a failure.
    mutating func hopEnded(libcurlError: TransportError?) -> Action {
      switch state {
      case .idle, .starting, .finished:
        return .none
      case .failing(_, let error, let streaming):
        state = .finished
        return .finish(streaming ? .endStream(error) : .fail(error), removeHandle: false)
      case .awaitingHead:
        state = .finished
        // A policy's refusal is why libcurl could not connect: the error says so, not "could not connect".
        let error = libcurlError.map { addressRefusal ?? $0 }
        return .finish(error.map(Ending.fail) ?? .noResponseHead, removeHandle: false)
      case .receivingBody(_, let body):
        if let libcurlError {
          state = .finished
          return .finish(Self.ending(for: libcurlError, streaming: body.isStreaming), removeHandle: false)
        }
        switch body {
        case .discarding(let next):
          redirectsFollowed += 1
          state = .idle
          return .followRedirect(next)
        case .streaming:
          state = .finished
          return .finish(.endStream(nil), removeHandle: false)
        case .collecting:
          state = .finished
          return .finish(.deliverCollected, removeHandle: false)
        }
      }
    }

    /// Ends the transfer now with `error` (cancellation, a timeout, shutdown, a hop that could not start).
    mutating func cancel(_ error: TransportError) -> Action {
      let action: Action
      switch state {
      case .idle, .starting:
        action = .finish(.fail(error), removeHandle: false)
      case .awaitingHead:
        action = .finish(.fail(error), removeHandle: true)
      case .receivingBody(_, let body):
        action = .finish(Self.ending(for: error, streaming: body.isStreaming), removeHandle: true)
      case .failing(_, _, let streaming):
        action = .finish(Self.ending(for: error, streaming: streaming), removeHandle: true)
      case .finished:
        return .none
      }
      state = .finished
      return action
    }

    // MARK: Response

    /// The most bytes of head lines a hop may read before its final head is complete: libcurl's own cap on a
    /// response's head in all (300 KiB), counted here so that the refusal is the same `protocolError` whatever
    /// libcurl's version or words.
    static let headLimit = 300 << 10

    /// A header line of `length` bytes arrived. A head past ``headLimit`` in all is refused: the hop fails with
    /// `protocolError`, which no retry policy retries by default.
    mutating func headerLine(length: Int = 0) -> HeaderRoute {
      switch state {
      case .awaitingHead(var hop):
        hop.sawActivity = true
        hop.headBytes += length
        state = .awaitingHead(hop)
        if hop.headBytes > Self.headLimit {
          refuse(
            TransportError(
              code: .protocolError,
              message: "\(CurlErrors.headsTooLarge): more than \(Self.headLimit) bytes of response head"
            )
          )
          return .refuse
        }
        return .parse
      case .receivingBody(var hop, let body):
        hop.sawActivity = true
        state = .receivingBody(hop, body)
        return .ignore
      case .failing:
        return .refuse
      case .idle, .starting, .finished:
        return .ignore
      }
    }

    /// The head is a redirect that is followed: its body is dropped, and `next` starts when the hop ends.
    mutating func redirect(to next: Redirect) {
      guard case .awaitingHead(let hop) = state else { return }
      state = .receivingBody(hop, .discarding(next))
    }

    /// The final head arrived, announcing `expectedLength` body bytes when known.
    mutating func finalHead(delivery: Delivery, expectedLength: Int?) -> HeadAction {
      guard case .awaitingHead(let hop) = state else { return .refuse }
      switch delivery {
      case .stream:
        state = .receivingBody(hop, .streaming(flushPending: false))
        return .stream
      case .collect(let limit):
        if let expectedLength, expectedLength > limit {
          let error = TransportError.bodyTooLarge(limit: limit, size: expectedLength, announced: true)
          state = .failing(hop, error: error, streaming: false)
          return .refuse
        }
        state = .receivingBody(hop, .collecting)
        return .collect
      }
    }

    /// Body bytes arrived: where they go.
    mutating func bodyArrived() -> BodyRoute {
      guard case .receivingBody(var hop, let body) = state else { return .refuse }
      hop.sawActivity = true
      switch body {
      case .discarding:
        state = .receivingBody(hop, body)
        return .discard
      case .streaming(let flushPending):
        state = .receivingBody(hop, .streaming(flushPending: true))
        return .stream(markDirty: !flushPending)
      case .collecting:
        state = .receivingBody(hop, body)
        return .collect
      }
    }

    /// The sink answered `result` for the bytes of ``bodyArrived()``; `failure` is why it stopped, when it says.
    mutating func bodyWritten(_ result: BodyChannel.WriteResult, failure: TransportError? = nil) -> BodyAnswer {
      switch result {
      case .proceed:
        return .accept
      case .pause:
        guard case .receivingBody(var hop, let body) = state, !hop.receivePaused else { return .accept }
        hop.receivePaused = true
        state = .receivingBody(hop, body)
        return .pause(hop.pause)
      case .stop:
        // The channel stops when its reader is gone: the transfer was cancelled.
        refuse(failure ?? TransportError.cancelled())
        return .refuse
      }
    }

    /// The loop's round ended: whether the channel has bytes to flush to its reader.
    mutating func flush() -> Bool {
      switch state {
      case .receivingBody(let hop, .streaming):
        state = .receivingBody(hop, .streaming(flushPending: false))
        return true
      case .failing(_, _, let streaming):
        return streaming
      case .idle, .starting, .awaitingHead, .receivingBody, .finished:
        return false
      }
    }

    /// A callback refuses to go on with `error`: libcurl ends the hop, and the transfer ends with `error`. The first
    /// refusal of a hop is kept.
    mutating func refuse(_ error: TransportError) {
      switch state {
      case .awaitingHead(let hop):
        state = .failing(hop, error: error, streaming: false)
      case .receivingBody(let hop, let body):
        state = .failing(hop, error: error, streaming: body.isStreaming)
      case .idle, .starting, .failing, .finished:
        break
      }
    }

    /// The connection policy refused an address of this hop, before connecting to it: libcurl tries the host's next
    /// address, if any. The first refusal of a hop is kept; it becomes the transfer's error if the hop ends without a
    /// response head and with a libcurl error (no address connected).
    mutating func addressRefused(_ error: TransportError) {
      guard case .awaitingHead = state, addressRefusal == nil else { return }
      addressRefusal = error
    }

    // MARK: Request

    /// libcurl is about to send the hop's request on a connection (its pre-request callback), for the first time or
    /// again: libcurl sends a request again on a new connection when the kept-alive one it reused died before a byte of
    /// the response arrived. That is safe only for an idempotent method (RFC 9110 §9.2.2); any other request may
    /// have reached the server, so the hop fails with `connectionReset` rather than send it twice. Whether to send
    /// it again is then the caller's retry policy's choice.
    mutating func sendingRequest(method: HTTPRequest.Method) -> SendDecision {
      guard
        let sends = changeHop({ hop -> Int in
          hop.sends += 1
          return hop.sends
        })
      else { return .proceed }
      guard sends > 1, !method.isIdempotent else { return .proceed }
      refuse(TransportError.connectionClosedAfterSending(method: method.rawValue))
      return .abort
    }

    // MARK: Request body

    /// libcurl asked for request body bytes and got `read`.
    mutating func uploadRead(_ read: UploadRead) {
      switch read {
      case .bytes: changeHop { $0.sawActivity = true }
      case .wait: changeHop { $0.sendPaused = true }
      case .end: break
      }
    }

    // MARK: Pausing

    /// The reader drained the channel: receive again.
    mutating func resumeReceiving(now: UInt64) -> Action {
      changeHop { hop -> Action in
        guard hop.receivePaused else { return .none }
        hop.receivePaused = false
        hop.lastActivity = now
        return .pause(hop.pause)
      } ?? .none
    }

    /// A streamed request body has bytes again: send again.
    mutating func resumeSending(now: UInt64) -> Action {
      changeHop { hop -> Action in
        guard hop.sendPaused else { return .none }
        hop.sendPaused = false
        hop.lastActivity = now
        return .pause(hop.pause)
      } ?? .none
    }

    // MARK: Deadlines

    /// The loop's look at the deadlines, once per round. Time the transfer spends paused by us (a slow reader, a
    /// slow body producer) is not idle time.
    mutating func deadline(now: UInt64) -> DeadlineCheck {
      let (totalDeadline, idleTimeout) = (self.totalDeadline, self.idleTimeout)
      return changeHop { hop -> DeadlineCheck in
        if let totalDeadline, now >= totalDeadline { return .expired(.total) }
        guard let idleTimeout else { return totalDeadline.map(DeadlineCheck.at) ?? .none }
        if hop.sawActivity || hop.receivePaused || hop.sendPaused {
          hop.lastActivity = now
          hop.sawActivity = false
        }
        let deadline = hop.lastActivity &+ idleTimeout
        if now >= deadline { return .probeConnection }
        return .at(min(totalDeadline ?? .max, deadline))
      } ?? .none
    }

    /// The answer to ``DeadlineCheck/probeConnection``: `connectedAfter` is how long after the hop's start the
    /// connection was ready (`nil`: not yet; the idle clock starts once connected, before that the connect timeout
    /// governs), `lastReceived` when the socket last received bytes (a head that trickles in reaches no callback
    /// until a line is complete), if known.
    mutating func connectionProbed(now: UInt64, connectedAfter: UInt64?, lastReceived: UInt64?) -> DeadlineCheck {
      let (totalDeadline, idleTimeout) = (self.totalDeadline, self.idleTimeout)
      return changeHop { hop -> DeadlineCheck in
        guard let idleTimeout else { return totalDeadline.map(DeadlineCheck.at) ?? .none }
        let earliest = totalDeadline ?? .max
        guard let connectedAfter else {
          hop.lastActivity = now
          return .at(min(earliest, now &+ idleTimeout))
        }
        hop.lastActivity = max(hop.lastActivity, hop.start &+ connectedAfter)
        if let lastReceived { hop.lastActivity = max(hop.lastActivity, lastReceived) }
        let deadline = hop.lastActivity &+ idleTimeout
        if now >= deadline { return .expired(.idle) }
        return .at(min(earliest, deadline))
      } ?? .none
    }

    // MARK: Helpers

    /// Applies `change` to the hop in libcurl, if one is; `nil` when none is.
    private mutating func changeHop<Result>(_ change: (inout Hop) -> Result) -> Result? {
      switch state {
      case .awaitingHead(var hop):
        let result = change(&hop)
        state = .awaitingHead(hop)
        return result
      case .receivingBody(var hop, let body):
        let result = change(&hop)
        state = .receivingBody(hop, body)
        return result
      case .failing(var hop, let error, let streaming):
        let result = change(&hop)
        state = .failing(hop, error: error, streaming: streaming)
        return result
      case .idle, .starting, .finished:
        return nil
      }
    }

    private static func ending(for error: TransportError, streaming: Bool) -> Ending {
      streaming ? .endStream(error) : .fail(error)
    }
  }
}

extension Transfer.StateMachine.Body {
  /// Whether the caller holds the body's channel.
  var isStreaming: Bool {
    if case .streaming = self { return true }
    return false
  }
}
