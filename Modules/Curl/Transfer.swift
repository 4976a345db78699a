import CCurl
import Foundation
import HTTPTypes
import MalibuTransport

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
/// Its mutable state is marked `@exclusivity(unchecked)`, as is ``CurlEngine``'s and ``HeaderFieldCache``'s: all of it
/// is touched by the loop thread alone, one short access at a time, and the run-time checks never found an overlap in
/// the unit and integration suites while they were on (their cost: BENCHMARKS.md). A change that holds one of these
/// properties across a libcurl call (whose callbacks come back here) must be reviewed with that in mind.
final class Transfer {
  /// Where received body bytes go.
  enum Output {
    /// The head is not complete yet.
    case waiting
    /// The body of a redirect that is followed: dropped.
    case discarding
    /// Streamed to the caller through a channel (`send`); an encoded body is decoded by the task reading it.
    case streaming(BodyChannel)
    /// Collected for the caller (`data(for:)`): the head it receives, the body, and the content decoder when the
    /// body is encoded.
    case collecting(HTTPResponse, BodyCollector, ContentDecoder?)
    /// Over.
    case finished
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
  let errorBuffer: UnsafeMutablePointer<CChar>
  let totalDeadline: UInt64?
  let idleTimeout: UInt64?

  @exclusivity(unchecked) var easy: UnsafeMutableRawPointer?
  @exclusivity(unchecked) var request: HTTPRequest
  @exclusivity(unchecked) var url: String
  @exclusivity(unchecked) var body: RequestBody?
  @exclusivity(unchecked) var compressing = false
  @exclusivity(unchecked) var output = Output.waiting
  @exclusivity(unchecked) var upload: (any UploadSource)?
  @exclusivity(unchecked) var uploadData: Data?
  @exclusivity(unchecked) var streamUpload: UploadBuffer?
  @exclusivity(unchecked) var producer: Task<Void, Never>?
  @exclusivity(unchecked) var headerList: UnsafeMutablePointer<curl_slist>?
  @exclusivity(unchecked) var receivePaused = false
  @exclusivity(unchecked) var sendPaused = false
  @exclusivity(unchecked) var failure: TransportError?
  @exclusivity(unchecked) var lastProgress: TransferProgress?
  @exclusivity(unchecked) var sawActivity = false
  @exclusivity(unchecked) var hopStart: UInt64 = 0
  /// Whether an option outside the set every transfer sets was used (or the transfer failed): the handle is then
  /// reset before it goes back to the pool.
  @exclusivity(unchecked) var handleNeedsReset = false
  /// Whether the options every transfer sets alike (``configure(_:now:)``) are set on the handle already.
  @exclusivity(unchecked) var handlePrimed = false
  /// Where the engine keeps this transfer among its running ones (``CurlEngine``'s list); -1 when it is not there.
  @exclusivity(unchecked) var slot = -1

  @exclusivity(unchecked) private var parser = ResponseHeadParser()
  @exclusivity(unchecked) private var redirectsFollowed = 0
  @exclusivity(unchecked) private var nextHop: (HTTPRequest, RequestBody?)?
  @exclusivity(unchecked) private var callerWoken = false
  @exclusivity(unchecked) private var inMulti = false
  @exclusivity(unchecked) private var isDirty = false
  @exclusivity(unchecked) private var lastActivity: UInt64 = 0
  @exclusivity(unchecked) private var retained: Unmanaged<Transfer>?

  init(job: Job, engine: CurlEngine) {
    id = job.id
    self.engine = engine
    self.job = job
    request = job.request
    url = job.url
    body = job.body
    errorBuffer = .allocate(capacity: Int(CCurl_ERROR_SIZE) + 1)
    errorBuffer.initialize(repeating: 0, count: Int(CCurl_ERROR_SIZE) + 1)
    let now = Monotonic.now()
    totalDeadline = job.options.timeouts.total.map { now &+ Monotonic.nanoseconds($0) }
    idleTimeout = job.options.timeouts.idle.map { max(Monotonic.nanoseconds($0), 1) }
  }

  deinit {
    errorBuffer.deallocate()
  }

  /// The pointer libcurl's callbacks get back.
  var context: UnsafeMutableRawPointer { retained!.toOpaque() }

  // MARK: Life cycle

  /// Starts the first hop.
  func begin() {
    retained = Unmanaged.passRetained(self)
    guard let (handle, primed) = engine.takeHandle() else {
      finish(TransportError(code: .other, message: "libcurl could not create an easy handle"))
      return
    }
    easy = handle
    handlePrimed = primed
    startHop()
  }

  private func startHop() {
    guard let easy else { return }
    let now = Monotonic.now()
    hopStart = now
    lastActivity = now
    sawActivity = false
    if let totalDeadline, now >= totalDeadline {
      finish(totalTimeoutError())
      return
    }
    parser = ResponseHeadParser(cache: engine.headerFieldCache)
    output = .waiting
    nextHop = nil
    receivePaused = false
    sendPaused = false
    errorBuffer[0] = 0
    do {
      try configure(easy, now: now)
    } catch {
      finish(error)
      return
    }
    guard engine.add(easy) == CURLM_OK else {
      finish(TransportError(code: .other, message: "libcurl refused the transfer (curl_multi_add_handle)"))
      return
    }
    inMulti = true
  }

  /// libcurl finished the current hop.
  func completed(_ code: CURLcode) {
    guard inMulti, let easy else { return }
    engine.remove(easy)
    inMulti = false
    guard code == CURLE_OK, failure == nil else {
      finish(failure ?? CurlErrors.error(for: code, transfer: self))
      return
    }
    if let (next, nextBody) = nextHop {
      redirectsFollowed += 1
      releaseUpload()
      curl_easy_reset(easy)
      handlePrimed = false
      request = next
      body = nextBody
      do {
        url = try RequestValidator.validate(next)
      } catch {
        finish(error)
        return
      }
      startHop()
      return
    }
    let decoder: ContentDecoder?
    switch output {
    case .streaming: decoder = nil  // the reader checks the end of an encoded body
    case .collecting(_, _, let collectDecoder): decoder = collectDecoder
    default:
      finish(TransportError(code: .other, message: "the server sent no response head (\(url))"))
      return
    }
    do {
      try decoder?.finish()
      finish(nil)
    } catch {
      finish(error)
    }
  }

  /// Stops the transfer now (cancellation, a timeout, shutdown): the handle leaves the multi handle at once.
  func abort(with error: TransportError) {
    if inMulti, let easy {
      engine.remove(easy)
      inMulti = false
    }
    finish(error)
  }

  /// Delivers the outcome, exactly once, and frees everything the transfer holds.
  private func finish(_ error: TransportError?) {
    if error != nil { handleNeedsReset = true }
    // `if case`, not a `switch` (whose subject an unoptimised build keeps alive): with the output reset, the
    // collector's buffer is no longer shared and is handed over without a copy.
    if error == nil, !callerWoken, case .collecting(let head, var collector, _) = output,
      case .collect(_, let continuation) = job.sink
    {
      callerWoken = true
      output = .finished
      let result = (head, collector.take(), engine.foundationURL(url))
      HandOff.release()
      continuation.resume(returning: result)
    }
    if case .streaming(let channel) = output { channel.finish(error) }
    if !callerWoken {
      callerWoken = true
      job.sink.fail(error ?? TransportError(code: .other, message: "the transfer ended without a response"))
    }
    output = .finished
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
    sawActivity = true
    guard case .waiting = output else { return line.count }  // Trailers, or lines after the final head.
    switch parser.feed(line) {
    case .needMore:
      return line.count
    case .malformed(let reason):
      failure = TransportError(code: .protocolError, message: "the server sent \(reason) (\(url))")
      return 0
    case .complete(let head):
      return headComplete(head) ? line.count : 0
    }
  }

  private func headComplete(_ head: HTTPResponse) -> Bool {
    if let problem = ResponseFraming.problem(in: head.headerFields) {
      failure = problem
      return false
    }
    if let refusal = job.options.proxy.refusal(in: head, to: request) {
      failure = refusal
      return false
    }
    do {
      if var next = try Redirects.next(
        after: head,
        to: request,
        body: body,
        policy: job.options.redirects,
        followedSoFar: redirectsFollowed
      ) {
        next.0 = try job.options.insecureHTTP.apply(to: next.0, redirectedFrom: request)
        nextHop = next
        output = .discarding
        return true
      }
    } catch {
      failure = error
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
      let channel = BodyChannel(expectedLength: expected, decoder: decoder)
      let loop = engine.loop
      let id = self.id
      channel.setHandlers(
        onDemand: { loop.submit(.resumeReceiving(id)) },
        onCancel: { loop.submit(.cancel(id)) }
      )
      output = .streaming(channel)
      callerWoken = true
      let body = ResponseBody(channel: channel)
      let response = TransportResponse(head: finalHead, url: engine.foundationURL(url), body: body)
      HandOff.release()
      continuation.resume(returning: response)
    case .collect(let limit, _):
      do {
        output = .collecting(finalHead, try BodyCollector(limit: limit, expectedLength: expected), decoder)
      } catch {
        failure = error
        return false
      }
    }
    return true
  }

  /// Body bytes arrived (write callback): handed to the channel (its reader decodes them), or decoded when needed
  /// and handed to the collector.
  func received(_ bytes: UnsafeRawBufferPointer) -> Int {
    sawActivity = true
    // Taken out with `if case` (a `switch`'s subject stays alive in an unoptimised build) and the output reset, so
    // that the collector's buffer is uniquely referenced and grows in place.
    if case .collecting(let head, var collector, let decoder) = output {
      output = .waiting
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
        return bytes.count
      } catch {
        failure = error
        return 0
      }
    }
    let result: BodyChannel.WriteResult
    switch output {
    case .discarding:
      return bytes.count
    case .streaming(let channel):
      result = channel.write(bytes)
      if !isDirty {
        isDirty = true
        engine.markDirty(self)
      }
    case .waiting, .finished, .collecting:
      return 0
    }
    switch result {
    case .proceed:
      return bytes.count
    case .pause:
      pauseReceiving()
      return bytes.count
    case .stop:
      if failure == nil { failure = TransportError.cancelled() }
      return 0
    }
  }

  /// Wakes the channel's reader with what this round wrote.
  func flush() {
    isDirty = false
    if case .streaming(let channel) = output { channel.flush() }
  }

  // MARK: Pausing

  /// The channel is full: stop reading from the network. The bytes just written were accepted, so libcurl has
  /// nothing to deliver again; it holds at most what it had already read when it comes back.
  private func pauseReceiving() {
    guard !receivePaused, let easy else { return }
    receivePaused = true
    curl_easy_pause(easy, pauseMask)
  }

  /// The reader drained the channel (a command from its thread).
  func resumeReceiving() {
    guard receivePaused, inMulti, let easy else { return }
    receivePaused = false
    lastActivity = Monotonic.now()
    curl_easy_pause(easy, pauseMask)
  }

  /// A streamed request body has bytes again (a command from its producer).
  func resumeSending() {
    guard sendPaused, inMulti, let easy else { return }
    sendPaused = false
    lastActivity = Monotonic.now()
    curl_easy_pause(easy, pauseMask)
  }

  private var pauseMask: Int32 {
    (receivePaused ? CCurl_PAUSE_RECV : 0) | (sendPaused ? CCurl_PAUSE_SEND : 0)
  }

  // MARK: Deadlines

  /// Checks the total and idle deadlines; called by the loop once per round.
  func checkDeadline(now: UInt64) -> Deadline {
    guard inMulti else { return .none }
    var earliest = UInt64.max
    if let totalDeadline {
      if now >= totalDeadline { return .expired(totalTimeoutError()) }
      earliest = totalDeadline
    }
    if let idleTimeout {
      // Time the transfer spends paused by us (a slow reader, a slow body producer) is not idle time.
      if sawActivity || receivePaused || sendPaused {
        lastActivity = now
        sawActivity = false
      }
      var deadline = lastActivity &+ idleTimeout
      if now >= deadline {
        // The idle clock starts once connected; before that the connect timeout governs.
        guard let connectedAfter = connectedAfter() else {
          lastActivity = now
          return .at(min(earliest, now &+ idleTimeout))
        }
        lastActivity = max(lastActivity, hopStart &+ connectedAfter)
        // A byte that arrived without completing a header line reaches no callback; the socket knows of it.
        if let received = lastReceived(now: now) { lastActivity = max(lastActivity, received) }
        deadline = lastActivity &+ idleTimeout
        if now >= deadline {
          let milliseconds = idleTimeout / 1_000_000
          return .expired(
            TransportError(
              code: .idleTimeout,
              message: "no byte moved for longer than the idle timeout of \(milliseconds) ms (\(url))"
            )
          )
        }
      }
      earliest = min(earliest, deadline)
    }
    return earliest == .max ? .none : .at(earliest)
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
    let milliseconds = job.options.timeouts.total.map { Monotonic.nanoseconds($0) / 1_000_000 } ?? 0
    return TransportError(
      code: .totalTimeout,
      message: "the transfer took longer than the total timeout of \(milliseconds) ms (\(url))"
    )
  }
}
