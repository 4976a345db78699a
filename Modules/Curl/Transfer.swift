import CCurl
import Foundation
import HTTPTypes
import MalibuTransport
import struct MalibuCore.ResponseLocation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One request, from its start to its last byte, redirects included. Owned by ``CurlEngine`` and used only on the
/// loop thread; libcurl's callbacks reach it through an `Unmanaged` pointer retained at ``begin()`` and released
/// exactly once, when the transfer ends.
///
/// Where the transfer stands (which hop runs, where the body goes, what is paused, when bytes last moved, how it
/// ends) is one value, ``StateMachine``: every callback and command is an event for it, and this class performs
/// what it answers. The class itself holds the resources: the easy handle and what libcurl points at (the header
/// list, the error buffer, the request body's source), the body's sink and the head parser.
///
/// A libcurl call that can call back into this transfer (`curl_easy_pause` delivers the bytes it held at once) is made
/// after the state machine's event has returned, never inside one of its mutating accesses.
///
/// Its stored state skips the run-time exclusivity checks (`@exclusivity(unchecked)`), as ``CurlEngine``'s does: only
/// the loop thread touches it, and the checks cost 4–8% CPU on api-mix over HTTP/2 at 256 in flight (BENCHMARKS.md).
/// Holding one of these properties across a libcurl call, whose callbacks come back here, is the mistake they would
/// have caught: review such a change with that in mind.
final class Transfer {
  /// Where received body bytes go once the final head is complete.
  enum Output {
    /// Nowhere yet: the head is not complete, a redirect's body is dropped, or the transfer is over.
    case none
    /// Streamed to the caller through a channel (`send`); an encoded body is decoded by the task reading it.
    case streaming(BodyChannel)
    /// Collected for the caller (`data(for:)`): the head it receives, the body, and the content decoder when the
    /// body is encoded.
    case collecting(HTTPResponse, BodyCollector, ContentDecoder?)
  }

  /// The next moment the loop must look at this transfer.
  enum Deadline {
    case none
    case at(UInt64)
    case expired(TransportError)
  }

  let id: UInt64
  unowned let engine: CurlEngine
  let job: Job
  /// The room ``Admission`` gave this transfer, given back when it ends.
  let ticket: Admission<CurlEngine.Pending>.Ticket
  let errorBuffer: UnsafeMutablePointer<CChar>

  @exclusivity(unchecked) var machine: StateMachine
  @exclusivity(unchecked) var easy: UnsafeMutableRawPointer?
  @exclusivity(unchecked) var request: HTTPRequest
  @exclusivity(unchecked) var url: String
  @exclusivity(unchecked) var body: RequestBody?
  @exclusivity(unchecked) var compressing = false
  @exclusivity(unchecked) var output = Output.none
  @exclusivity(unchecked) var upload: (any UploadSource)?
  @exclusivity(unchecked) var uploadData: Data?
  @exclusivity(unchecked) var streamUpload: UploadBuffer?
  @exclusivity(unchecked) var producer: Task<Void, Never>?
  @exclusivity(unchecked) var headerList: UnsafeMutablePointer<curl_slist>?
  @exclusivity(unchecked) var lastProgress: TransferProgress?
  /// Where the transfer started, noted when the first redirect is followed (``recordOrigin()``), for the connection
  /// policy's look at the hops that follow.
  var origin: ConnectionAttempt.Origin?
  /// The address the connection policy allowed when this hop opened its socket: the pre-request check of the same
  /// connection does not ask the policy again.
  var addressAllowedAtOpen: IPAddress?
  /// Whether an option outside the set every transfer sets was used (or the transfer failed): the handle is then
  /// reset before it goes back to the pool.
  @exclusivity(unchecked) var handleNeedsReset = false
  /// Whether the options every transfer sets alike (``configure(_:now:)``) are set on the handle already.
  @exclusivity(unchecked) var handlePrimed = false
  /// When the transfer's first hop started, and when its current hop did (``Monotonic`` nanoseconds): what the final
  /// hop's libcurl times are shifted by (``measure(final:decodedBodyBytes:)``).
  var startedAt: UInt64 = 0
  var hopStartedAt: UInt64 = 0
  /// Whether a streamed body is decoded by its reader: its decoded size is then unknown here.
  var streamDecoded = false
  /// Where the engine keeps this transfer among its running ones (``CurlEngine``'s list); -1 when it is not there.
  @exclusivity(unchecked) var slot = -1

  @exclusivity(unchecked) private var parser = ResponseHeadParser()
  @exclusivity(unchecked) private var retained: Unmanaged<Transfer>?

  /// A transfer admitted with `ticket`, to end by `totalDeadline` (counted from its arrival at the loop) if set.
  init(job: Job, engine: CurlEngine, ticket: Admission<CurlEngine.Pending>.Ticket, totalDeadline: UInt64?) {
    id = job.id
    self.engine = engine
    self.job = job
    self.ticket = ticket
    request = job.request
    url = job.url
    body = job.body
    errorBuffer = .allocate(capacity: Int(CCurl_ERROR_SIZE) + 1)
    errorBuffer.initialize(repeating: 0, count: Int(CCurl_ERROR_SIZE) + 1)
    machine = StateMachine(
      totalDeadline: totalDeadline,
      idleTimeout: job.options.timeouts.idle.map { max(Monotonic.nanoseconds($0), 1) }
    )
  }

  deinit {
    errorBuffer.deallocate()
  }

  /// The pointer libcurl's callbacks get back.
  var context: UnsafeMutableRawPointer { retained!.toOpaque() }

  /// The moment the transfer must end by, if any.
  var totalDeadline: UInt64? { machine.totalDeadline }

  // MARK: Life cycle

  /// Starts the first hop.
  func begin() {
    retained = Unmanaged.passRetained(self)
    guard let (handle, primed) = engine.takeHandle() else {
      abort(with: TransportError(code: .other, message: "libcurl could not create an easy handle"))
      return
    }
    easy = handle
    handlePrimed = primed
    startHop()
  }

  private func startHop() {
    guard let easy else { return }
    let now = Monotonic.now()
    switch machine.startHop(now: now) {
    case .configure: break
    case .expired: return abort(with: totalTimeoutError())
    case .none: return
    }
    if startedAt == 0 { startedAt = now }
    hopStartedAt = now
    parser = ResponseHeadParser()
    errorBuffer[0] = 0
    do {
      try configure(easy, now: now)
    } catch {
      abort(with: error)
      return
    }
    guard engine.add(easy) == CURLM_OK else {
      abort(with: TransportError(code: .other, message: "libcurl refused the transfer (curl_multi_add_handle)"))
      return
    }
    machine.hopAdded()
  }

  /// libcurl finished the current hop.
  func completed(_ code: CURLcode) {
    guard machine.isRunning, let easy else { return }
    engine.remove(easy)
    let error = code == CURLE_OK ? nil : CurlErrors.error(for: code, transfer: self)
    perform(machine.hopEnded(libcurlError: error))
  }

  /// Stops the transfer now (cancellation, a timeout, shutdown, a hop that cannot start): a handle in libcurl leaves
  /// the multi handle at once.
  func abort(with error: TransportError) {
    perform(machine.cancel(error))
  }

  private func perform(_ action: StateMachine.Action) {
    switch action {
    case .none:
      break
    case .pause(let pause):
      setPause(pause)
    case .followRedirect(let next):
      follow(next)
    case .finish(let ending, let removeHandle):
      if removeHandle, let easy { engine.remove(easy) }
      finish(ending)
    }
  }

  /// Starts the hop a followed redirect asks for, on the same handle.
  private func follow(_ next: StateMachine.Redirect) {
    guard let easy else { return }
    releaseUpload()
    curl_easy_reset(easy)
    handlePrimed = false
    request = next.request
    body = next.body
    do {
      url = try RequestValidator.validate(next.request)
    } catch {
      abort(with: error)
      return
    }
    startHop()
  }

  /// Delivers the outcome, exactly once, and frees everything the transfer holds.
  private func finish(_ ending: StateMachine.Ending) {
    switch ending {
    case .deliverCollected:
      guard case .collecting(let head, var collector, let decoder) = output,
        case .collect(_, let continuation) = job.sink
      else { break }
      // With the output reset, the collector's buffer is no longer shared and is handed over without a copy.
      output = .none
      do {
        try decoder?.finish()
        let data = collector.take()
        let result = CollectedResponse(
          head: head,
          location: ResponseLocation(text: url),
          data: data,
          metrics: measure(final: true, decodedBodyBytes: data.count)
        )
        HandOff.release()
        continuation.resume(returning: result)
      } catch {
        handleNeedsReset = true
        job.sink.fail(error)
      }
    case .endStream(let error):
      if error != nil { handleNeedsReset = true }
      if case .streaming(let channel) = output {
        var metrics = error == nil ? measure(final: true) : nil
        if !streamDecoded, let wire = metrics?.responseBodyBytes { metrics?.decodedBodyBytes = wire }
        channel.finish(error, metrics: metrics)
      }
    case .fail(let error):
      handleNeedsReset = true
      job.sink.fail(error)
    case .noResponseHead:
      handleNeedsReset = true
      job.sink.fail(TransportError(code: .other, message: "the server sent no response head (\(url))"))
    }
    output = .none
    releaseUpload()
    if let headerList {
      curl_slist_free_all(headerList)
      self.headerList = nil
    }
    engine.retire(self, handle: easy, reset: handleNeedsReset)
    easy = nil
    let retained = self.retained
    self.retained = nil
    retained?.release()
  }

  private func releaseUpload() {
    producer?.cancel()
    producer = nil
    streamUpload?.cancel()
    streamUpload = nil
    upload = nil
    uploadData = nil
  }

  // MARK: Response

  /// A header line arrived (header callback).
  func receivedHeader(_ line: UnsafeRawBufferPointer) -> Int {
    switch machine.headerLine(length: line.count) {
    case .parse: break
    case .ignore: return line.count  // Trailers, or lines after the final head.
    case .refuse: return 0
    }
    switch parser.feed(line) {
    case .needMore:
      return line.count
    case .malformed(let reason):
      machine.refuse(TransportError(code: .protocolError, message: "the server sent \(reason) (\(url))"))
      return 0
    case .complete(let head):
      noteProtocol()
      return headComplete(head) ? line.count : 0
    }
  }

  /// Tells the engine when the response came over a protocol that multiplexes (HTTP/2, HTTP/3) and the ticket says
  /// otherwise, or the other way round: the host's room for waiting transfers changes.
  private func noteProtocol() {
    guard ticket.host >= 0, let easy else { return }
    var version = 0
    guard CCurl_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version) == CURLE_OK else { return }
    let multiplexes = version == Int(CURL_HTTP_VERSION_2_0) || version == Int(CURL_HTTP_VERSION_3)
    if multiplexes != ticket.multiplexed { engine.learned(ticket, multiplexes: multiplexes) }
  }

  private func headComplete(_ head: HTTPResponse) -> Bool {
    if let problem = ResponseFraming.problem(in: head.headerFields) {
      machine.refuse(problem)
      return false
    }
    if let refusal = job.options.proxy.refusal(in: head, to: request) {
      machine.refuse(refusal)
      return false
    }
    do {
      if var next = try Redirects.next(
        after: head,
        to: request,
        body: body,
        policy: job.options.redirects,
        followedSoFar: machine.redirectsFollowed
      ) {
        next.0 = try job.options.insecureHTTP.apply(to: next.0, redirectedFrom: request)
        recordOrigin()
        machine.redirect(to: StateMachine.Redirect(request: next.0, body: next.1))
        return true
      }
    } catch {
      machine.refuse(error)
      return false
    }
    let decompression = job.options.decompression
    let status = head.status.code
    let bodyless = request.method == .head || status == 204 || status == 304
    let plan = ContentDecoder.plan(for: head.headerFields, decompression: decompression)
    let expected = bodyless ? 0 : plan.expectedLength
    let decoder = bodyless ? nil : plan.decoder
    var finalHead = head
    finalHead.headerFields = plan.headers
    switch job.sink {
    case .stream(let continuation):
      guard machine.finalHead(delivery: .stream, expectedLength: expected) == .stream else { return false }
      let channel = BodyChannel(expectedLength: expected, decoder: decoder)
      let loop = engine.loop
      let id = self.id
      channel.setHandlers(
        onDemand: { loop.submit(.resumeReceiving(id)) },
        onCancel: { loop.submit(.cancel(id)) }
      )
      output = .streaming(channel)
      streamDecoded = decoder != nil
      let body = ResponseBody(channel: channel)
      let response = TransportResponse(
        head: finalHead,
        location: ResponseLocation(text: url),
        body: body,
        metrics: measure(final: false)
      )
      HandOff.release()
      continuation.resume(returning: response)
    case .collect(let limit, _):
      // A Content-Length past the limit fails the transfer here (the state machine's refusal).
      guard machine.finalHead(delivery: .collect(limit: limit), expectedLength: expected) == .collect else {
        return false
      }
      do {
        output = .collecting(finalHead, try BodyCollector(limit: limit, expectedLength: expected), decoder)
      } catch {
        machine.refuse(error)
        return false
      }
    }
    return true
  }

  /// Body bytes arrived (write callback): handed to the channel (its reader decodes them), or decoded when needed
  /// and handed to the collector.
  func received(_ bytes: UnsafeRawBufferPointer) -> Int {
    let result: BodyChannel.WriteResult
    var failure: TransportError?
    switch machine.bodyArrived() {
    case .discard:
      return bytes.count
    case .refuse:
      return 0
    case .stream(let markDirty):
      guard case .streaming(let channel) = output else { return 0 }
      result = channel.write(bytes)
      if markDirty { engine.markDirty(self) }
    case .collect:
      // Taken out with `guard case` (a `switch`'s subject stays alive in an unoptimised build) and the output reset,
      // so that the collector's buffer is uniquely referenced and grows in place.
      guard case .collecting(let head, var collector, let decoder) = output else { return 0 }
      output = .none
      defer { output = .collecting(head, collector, decoder) }
      do throws(TransportError) {
        if let decoder {
          var tooLarge: TransportError?
          _ = try decoder.decode(bytes) { piece in
            do throws(TransportError) {
              try collector.append(piece)
              return .proceed
            } catch {
              tooLarge = error
              return .stop
            }
          }
          if let tooLarge { throw tooLarge }
        } else {
          try collector.append(bytes)
        }
        result = .proceed
      } catch {
        result = .stop
        failure = error
      }
    }
    switch machine.bodyWritten(result, failure: failure) {
    case .accept:
      return bytes.count
    case .pause(let pause):
      // The channel is full: stop reading from the network. The bytes just written were accepted, so libcurl has
      // nothing to deliver again; it holds at most what it had already read when it comes back.
      setPause(pause)
      return bytes.count
    case .refuse:
      return 0
    }
  }

  /// Wakes the channel's reader with what this round wrote.
  func flush() {
    if machine.flush(), case .streaming(let channel) = output { channel.flush() }
  }

  // MARK: Pausing

  /// The reader drained the channel (a command from its thread).
  func resumeReceiving() {
    perform(machine.resumeReceiving(now: Monotonic.now()))
  }

  /// A streamed request body has bytes again (a command from its producer).
  func resumeSending() {
    perform(machine.resumeSending(now: Monotonic.now()))
  }

  private func setPause(_ pause: StateMachine.Pause) {
    guard let easy else { return }
    curl_easy_pause(easy, (pause.receive ? CCurl_PAUSE_RECV : 0) | (pause.send ? CCurl_PAUSE_SEND : 0))
  }

  // MARK: Deadlines

  /// Checks the total and idle deadlines; called by the loop once per round.
  func checkDeadline(now: UInt64) -> Deadline {
    var check = machine.deadline(now: now)
    if case .probeConnection = check {
      let connectedAfter = connectedAfter()
      let lastReceived = connectedAfter == nil ? nil : lastReceived(now: now)
      check = machine.connectionProbed(now: now, connectedAfter: connectedAfter, lastReceived: lastReceived)
    }
    switch check {
    case .none, .probeConnection: return .none
    case .at(let deadline): return .at(deadline)
    case .expired(.total): return .expired(totalTimeoutError())
    case .expired(.idle):
      let milliseconds = (machine.idleTimeout ?? 0) / 1_000_000
      return .expired(
        TransportError(
          code: .idleTimeout,
          message: "no byte moved for longer than the idle timeout of \(milliseconds) ms (\(url))"
        )
      )
    }
  }

  /// When the connection last received bytes, by the kernel's count (`TCP_INFO`), or `nil` when that is unknown: a
  /// head that trickles in moves bytes that no callback sees until a line is complete. Asked only when the idle
  /// deadline has come without a callback's activity. On HTTP/2, bytes of other streams on the connection count too.
  func lastReceived(now: UInt64) -> UInt64? {
    #if os(Linux)
    guard let easy else { return nil }
    var localPort = 0
    var peerPort = 0
    guard CCurl_easy_getinfo_long(easy, CURLINFO_LOCAL_PORT, &localPort) == CURLE_OK, localPort > 0,
      CCurl_easy_getinfo_long(easy, CURLINFO_PRIMARY_PORT, &peerPort) == CURLE_OK, peerPort > 0,
      let socket = engine.socket(localPort: localPort, peerPort: peerPort)
    else { return nil }
    var info = tcp_info()
    var length = socklen_t(MemoryLayout<tcp_info>.size)
    guard getsockopt(socket, Int32(IPPROTO_TCP), TCP_INFO, &info, &length) == 0 else { return nil }
    let ago = UInt64(info.tcpi_last_data_recv) &* 1_000_000
    return ago < now ? now - ago : nil
    #else
    return nil
    #endif
  }

  /// Nanoseconds from the start of this hop until the connection was ready, or `nil` when it is not yet.
  func connectedAfter() -> UInt64? {
    guard let easy else { return nil }
    var microseconds: curl_off_t = 0
    CCurl_easy_getinfo_off_t(easy, CURLINFO_PRETRANSFER_TIME_T, &microseconds)
    return microseconds > 0 ? UInt64(microseconds) * 1_000 : nil
  }

  func totalTimeoutError() -> TransportError {
    Self.totalTimeoutError(options: job.options, url: url)
  }

  /// The error of a transfer to `url` that outlived its total timeout, running or waiting for room.
  static func totalTimeoutError(options: TransferOptions, url: String) -> TransportError {
    let milliseconds = options.timeouts.total.map { Monotonic.nanoseconds($0) / 1_000_000 } ?? 0
    return TransportError(
      code: .totalTimeout,
      message: "the transfer took longer than the total timeout of \(milliseconds) ms (\(url))"
    )
  }
}
