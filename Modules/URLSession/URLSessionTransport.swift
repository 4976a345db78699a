public import HTTPTypes
@_spi(Malibu) import MalibuCore
@_spi(Malibu) public import MalibuTransport

#if canImport(FoundationNetworking)
import Foundation
public import FoundationNetworking
#else
public import Foundation
#endif

/// A `Transport` over Foundation's `URLSession` (FoundationNetworking on Linux), with the same contract as every
/// Malibu transport: exactly the request asked for, redirects followed by Malibu's shared rules, decoded bodies with
/// honest headers, timeouts by kind, prompt cancellation and precise `TransportError`s.
///
/// ```swift
/// let transport = URLSessionTransport()
/// var request = HTTPRequest(method: .get, url: URL(string: "https://example.com/items")!)
/// request.headerFields[.accept] = "application/json"
/// let response = try await transport.send(request, body: nil, options: TransferOptions())
/// let data = try await response.body.collect(upTo: 1 << 20)
/// ```
///
/// One `URLSession` with one delegate object serves every request; per-request state lives with the task. Where the
/// platform cannot honour an option — key pinning on Linux, say — `send` throws
/// `TransportError/Code/unsupportedOption` rather than ignore it. The catalog page lists every such limit.
///
/// Keep the transport alive while responses stream: ``shutdown()``, which also runs when the transport is released,
/// cancels everything in flight.
public final class URLSessionTransport: Transport, Drainable {
  private struct Sessions {
    var isShutDown = false
    /// Set by a graceful shutdown: what a new request fails with from then on.
    var refusal: TransportError?
    /// Calls of `send` between their start and their response head (or failure).
    var sending = 0
    var byKey: [SessionKey: URLSession] = [:]
  }

  /// What tells the transport's sessions apart: the TLS setting and the proxy, each of which a session fixes.
  private struct SessionKey: Hashable {
    var tls = TLSOptions()
    var proxy = ProxySettings.environment
  }

  private let delegate: SessionDelegate
  private let watchdog = Watchdog()
  private let queue: OperationQueue
  private let session: URLSession
  private let sessions = Locked(Sessions())

  /// Creates a transport with its own session.
  ///
  /// The configuration is copied, and in the copy URLSession's cookie storage, URL cache and credential storage are
  /// switched off: the transport sends exactly the request it is given (Malibu's own layers handle caching and
  /// authentication the same way on every transport). Timeouts come from `TransferOptions` per request.
  /// - Parameter configuration: Connection limits, proxies, additional headers and the like.
  public init(configuration: URLSessionConfiguration = .default) {
    let copy = (configuration.copy() as? URLSessionConfiguration) ?? configuration
    copy.httpCookieStorage = nil
    copy.httpShouldSetCookies = false
    copy.urlCache = nil
    copy.urlCredentialStorage = nil
    copy.requestCachePolicy = .reloadIgnoringLocalCacheData
    queue = OperationQueue()
    queue.name = "MalibuURLSession.delegate"
    queue.maxConcurrentOperationCount = 1
    delegate = SessionDelegate(queue: queue)
    session = URLSession(configuration: copy, delegate: delegate, delegateQueue: queue)
  }

  deinit {
    shutdown()
  }

  /// The configuration the transport's session runs with (a copy; changing it changes nothing).
  public var configuration: URLSessionConfiguration { session.configuration }

  /// Sends a request and returns once the final response's head has arrived.
  /// - Parameters:
  ///   - request: The request head; its URL must be absolute `http` or `https`.
  ///   - body: The request body, if any.
  ///   - options: Timeouts, redirects, decompression limit, TLS and progress.
  /// - Returns: The final response's head (with `Content-Encoding` and `Content-Length` removed when URLSession
  ///   decoded the body), its URL, and the body.
  /// - Throws: `TransportError`: `TransportError/Code/invalidRequest` before anything is sent for a bad URL or
  ///   header, `TransportError/Code/unsupportedOption` for what URLSession cannot do on this platform, and the
  ///   transfer's errors (timeouts by kind, cancellation, refused or reset connections, DNS, TLS, redirects, an
  ///   answer that breaks HTTP: `TransportError/Code/protocolError`).
  public func send(
    _ request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions
  ) async throws
    -> TransportResponse
  {
    try await send(request, body: body, options: options, collectLimit: nil)
  }

  /// Sends a request and collects the whole response body, at most `maxBytes` bytes.
  ///
  /// FoundationNetworking cannot pause a transfer, so the body arrives at network speed whatever its reader does: the
  /// exchange itself counts what arrives and stops the task as soon as more than `maxBytes` came, so the memory held
  /// stays near the limit even when the collecting reader starts late.
  /// - Parameters:
  ///   - request: The request head; its URL must be absolute `http` or `https`.
  ///   - body: The request body, if any.
  ///   - options: Timeouts, redirects, decompression limit, TLS and progress.
  ///   - maxBytes: The largest body accepted.
  /// - Returns: The final response's head, the body and its URL.
  /// - Throws: `TransportError`, `TransportError/Code/bodyTooLarge` past `maxBytes` included, and the errors of
  ///   ``send(_:body:options:)``.
  public func data(
    for request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions,
    upTo maxBytes: Int
  ) async throws -> (HTTPResponse, Data, URL?) {
    let response = try await collect(request, body: body, options: options, upTo: maxBytes)
    return (response.head, response.data, response.url)
  }

  /// Sends a request and collects the whole response body, at most `maxBytes` bytes, as `data(for:body:options:upTo:)`
  /// does, with the metrics this transport measures itself: the redirect share, the head's arrival, the total and the
  /// body's size (FoundationNetworking on Linux reports no `URLSessionTaskMetrics`; the catalog's "Timings" says what
  /// stays `nil`).
  /// - Parameters:
  ///   - request: The request head; its URL must be absolute `http` or `https`.
  ///   - body: The request body, if any.
  ///   - options: Timeouts, redirects, decompression limit, TLS and progress.
  ///   - maxBytes: The largest body accepted.
  /// - Returns: The final response's head, the body, its URL and the metrics.
  /// - Throws: `TransportError`, `TransportError/Code/bodyTooLarge` past `maxBytes` included, and the errors of
  ///   ``send(_:body:options:)``.
  public func collect(
    _ request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions,
    upTo maxBytes: Int
  ) async throws -> CollectedResponse {
    try await send(request, body: body, options: options, collectLimit: maxBytes).collected(upTo: maxBytes)
  }

  /// ``send(_:body:options:)``, with the limit of the collecting caller, if any.
  private func send(
    _ request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions,
    collectLimit: Int?
  ) async throws -> TransportResponse {
    if Task.isCancelled { throw TransportError(code: .cancelled, message: "the transfer was cancelled") }
    let refusal: TransportError? = sessions.withLock { state in
      if let refusal = state.refusal { return refusal }
      state.sending += 1
      return nil
    }
    if let refusal { throw refusal }
    defer { sessions.withLock { $0.sending -= 1 } }
    let request = try options.insecureHTTP.apply(to: request)
    var url = try Self.validate(request, body: body, options: options)
    var connectionCheck = ConnectionCheck(policy: options.connectionPolicy, firstURL: url)
    try connectionCheck.check(url, redirectsFollowed: 0)
    let started = ContinuousClock.now
    let totalDeadline = options.timeouts.total.map { started + $0 }
    let progress = ProgressTracker(options.progress)
    var current = (request, body)
    var followed = 0
    while true {
      let hop = try await perform(
        current.0,
        url: url,
        body: current.1,
        options: options,
        totalDeadline: totalDeadline,
        transferStarted: followed == 0 ? nil : started,
        collectLimit: collectLimit,
        progress
      )
      var next: (HTTPRequest, RequestBody?)?
      do {
        if let refusal = options.proxy.refusal(in: hop.head.head, to: current.0) { throw refusal }
        next = try Redirects.next(
          after: hop.head.head,
          to: current.0,
          body: current.1,
          policy: options.redirects,
          followedSoFar: followed
        )
        if let redirect = next?.0 {
          next?.0 = try options.insecureHTTP.apply(to: redirect, redirectedFrom: current.0)
        }
      } catch {
        hop.channel.cancel()
        throw error
      }
      guard let next else {
        return TransportResponse(
          head: hop.head.head,
          url: hop.head.url,
          body: ResponseBody(channel: hop.channel),
          metrics: hop.exchange.metrics(final: false)
        )
      }
      hop.exchange.discard()
      url = try Self.validURL(next.0)
      try connectionCheck.check(url, redirectsFollowed: followed + 1)
      current = next
      followed += 1
    }
  }

  /// Cancels every transfer in flight (each ends with `TransportError/Code/cancelled`) and invalidates the session;
  /// later calls to ``send(_:body:options:)`` fail with `TransportError/Code/cancelled`. Runs on release too.
  public func shutdown() {
    let all = sessions.withLock { state -> [URLSession] in
      guard !state.isShutDown else { return [] }
      state.isShutDown = true
      return [session] + Array(state.byKey.values)
    }
    guard !all.isEmpty else { return }
    delegate.failAll(TransportError(code: .cancelled, message: "the transport was shut down"))
    for session in all { session.invalidateAndCancel() }
  }

  /// Shuts down gracefully: a request sent from now on fails at once with `TransportError/Code/shutDown`; the
  /// requests already running (a body still streaming included) go on for up to `gracePeriod`; then ``shutdown()``
  /// cancels what is left and invalidates the sessions. Cancelling the calling task ends the grace period at once.
  ///
  /// ```swift
  /// await transport.shutdown(gracePeriod: .seconds(10))
  /// ```
  /// - Parameter gracePeriod: How long running requests may go on.
  public func shutdown(gracePeriod: Duration) async {
    sessions.withLock { state in
      if state.refusal == nil { state.refusal = .shuttingDown("URLSessionTransport") }
    }
    // URLSession tells no one when its last task ends, so the drain looks every few milliseconds.
    let deadline = ContinuousClock.now + gracePeriod
    while !Task.isCancelled, ContinuousClock.now < deadline,
      sessions.withLock({ $0.sending }) > 0 || delegate.exchangeCount > 0
    {
      try? await Task.sleep(for: .milliseconds(10))
    }
    shutdown()
  }

  // MARK: One hop

  private func perform(
    _ request: HTTPRequest,
    url: URL,
    body: RequestBody?,
    options: TransferOptions,
    totalDeadline: ContinuousClock.Instant?,
    transferStarted: ContinuousClock.Instant?,
    collectLimit: Int?,
    _ progress: ProgressTracker
  ) async throws -> Exchange.Hop {
    let upload = try await Upload.prepare(body, compression: options.requestCompression)
    var resends = 0
    while true {
      do {
        return try await start(
          request,
          url: url,
          upload: upload,
          options: options,
          totalDeadline: totalDeadline,
          transferStarted: transferStarted,
          collectLimit: collectLimit,
          progress
        )
      } catch is Exchange.Resend {
        // The kept-alive connection died before the response: send again on a new connection, as libcurl does.
        resends += 1
        guard resends <= Self.maxResends else {
          let error = TransportError(
            code: .connectionReset,
            message: "the connection was lost before the response \(resends) times in a row"
          )
          upload.cleanUp(error)
          throw error
        }
      }
    }
  }

  /// How many times a request is sent again after its connection died before the response (libcurl's own limit).
  private static let maxResends = 5

  /// Sends one hop's request on a new task and waits for the response head.
  private func start(
    _ request: HTTPRequest,
    url: URL,
    upload: Upload,
    options: TransferOptions,
    totalDeadline: ContinuousClock.Instant?,
    transferStarted: ContinuousClock.Instant?,
    collectLimit: Int?,
    _ progress: ProgressTracker
  ) async throws -> Exchange.Hop {
    var urlRequest = Self.makeURLRequest(request, url: url, upload: upload)
    let created = self.sessions.withLock { state -> Result<(Exchange, URLSessionTask), TransportError> in
      guard !state.isShutDown else {
        return .failure(TransportError(code: .cancelled, message: "the transport was shut down"))
      }
      let target = session(for: options, &state)
      let exchange = Exchange(
        method: request.method,
        options: options,
        upload: upload,
        totalDeadline: totalDeadline,
        transferStarted: transferStarted,
        collectLimit: collectLimit,
        progress: progress,
        watchdog: watchdog
      )
      let task: URLSessionTask
      switch upload.body {
      case .none: task = target.dataTask(with: urlRequest)
      case .data(let data): task = target.uploadTask(with: urlRequest, from: data)
      case .file(let file): task = target.uploadTask(with: urlRequest, fromFile: file)
      case .stream:
        guard let stream = exchange.makeBodyStream(replay: false) else {
          return .failure(Self.bodyError(exchange.bodyError))
        }
        urlRequest.httpBodyStream = stream
        task = target.dataTask(with: urlRequest)
      }
      return .success((exchange, task))
    }
    let exchange: Exchange
    let task: URLSessionTask
    switch created {
    case .success(let pair):
      (exchange, task) = pair
    case .failure(let error):
      upload.cleanUp(error)
      throw error
    }
    delegate.register(exchange, for: task)
    return try await exchange.run(task)
  }

  private static func bodyError(_ error: (any Error)?) -> TransportError {
    if let error = error as? TransportError { return error }
    return TransportError(
      code: .invalidRequest,
      message: "the request body cannot be read: \(error.map { "\($0)" } ?? "unknown error")",
      underlyingError: error
    )
  }

  private func makeSession(_ key: SessionKey) -> URLSession {
    let configuration = session.configuration
    #if !canImport(FoundationNetworking)
    if let proxy = Self.proxyDictionary(key.proxy) {
      configuration.connectionProxyDictionary = proxy
    }
    #endif
    return URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
  }

  /// Apple platforms: a session per TLS setting and proxy, so that a connection accepted under one TLS setting is never
  /// reused under a stricter one, and each proxy has sessions of its own. (On Linux only the default TLS setting gets
  /// this far, and the proxy is always the environment's: see `checkOptions`.)
  private func session(for options: TransferOptions, _ state: inout Sessions) -> URLSession {
    var key = SessionKey(tls: options.tls)
    #if !canImport(FoundationNetworking)
    key.proxy = options.proxy
    #endif
    if key == SessionKey() { return session }
    if let existing = state.byKey[key] { return existing }
    let created = makeSession(key)
    state.byKey[key] = created
    return created
  }
}
