import Foundation
public import HTTPTypes
public import Logging
import MalibuAuth
@_spi(Malibu) public import MalibuCore
@_spi(Malibu) public import MalibuLogging
public import MalibuMocking
public import MalibuPromises
import MalibuSerialization
public import MalibuStorage
public import MalibuTransport

/// Sends the requests of one API, described by a ``/MalibuCore/RequestConvertible`` type, and hands back promises.
///
/// ```swift
/// let networking = Networking<SharkywatersEndpoint>(mode: .async)
/// networking.authenticate(bearerToken: token)
/// networking.request(.fetchBoards)
///   .validate()
///   .toJsonDictionary()
///   .done { dictionary in print(dictionary) }
/// ```
///
/// Every request, mocked or real, travels one path: the mode's queue → `endpoint.request` → ``beforeEach`` → the
/// ``middleware`` gate → encoding (parameters into the query or a body, by content type) → header fields →
/// ``preProcessRequest`` → the HTTPS-only check (`TransferOptions.insecureHTTP`) → the middleware chain: logging,
/// authentication, cookies (``cookies``), the cache (``cache``), ETag revalidation (``etagPolicy``), the offline store
/// (a request with `storePolicy: .offline` that fails because the host cannot be reached is saved in
/// ``offlineStore`` for ``replay()``) and retry (`TransferOptions.retry`) → the transport (or the endpoint's mock, by
/// ``mockMode``) → ``NetworkPromise``.
///
/// The chain is one fixed list of steps, composed when a setting it is made from changes (``logger``, the
/// `authenticate` methods, ``etagPolicy``, ``etagStore``), not per request: a step with nothing to do for any request
/// is left out then (no credentials, no authentication step; no jar, no cookie step), and every other step decides by
/// its own rule whether it acts on a request (logging by its logger's level, ETag by the ETag policy, the offline store
/// by `storePolicy`, retry by the retry policy, the cache refusal by `cachePolicy`). Each setting can be changed at any
/// time from any thread; a request uses the values current when it reaches the step that reads them.
///
/// Header fields are merged in one order, later ones replacing earlier fields of the same name (names compared
/// without case): `DefaultHeaders` < the body's `Content-Type` < the session configuration's `httpAdditionalHeaders`
/// < ``headers`` < `R.headers` < the request's own headers. A `multipart/…` body keeps the `Content-Type` its encoder
/// chose, since its boundary must match the bytes.
/// Every value is checked: CR, LF or NUL fail the request with `NetworkError` code `invalidHeader`.
///
/// Errors reaching the promise are `NetworkError`: transport failures are wrapped with a code to match (`timedOut`
/// for any timeout, `insecureScheme` and `addressNotAllowed` for a refusal, `bodyTooLarge`, `shutDown`, `cancelled`,
/// else `transportFailed`) and keep the `TransportError` as `underlyingError`. The one exception is the
/// caller's own `promise.cancel()`, which rejects that promise with `CancellationError` at once, as it does every
/// `Promise`; ``cancelAllRequests()`` rejects with `NetworkError` code `cancelled`. `isCancellationError(_:)` is
/// `true` for both, and `fail { }` skips both unless asked for `.allErrors`. The errors of the networking's
/// ``validate`` hook reach the promise as they were thrown.
public final class Networking<R: RequestConvertible>: Sendable {
  // The flights live outside the generic class, so that reading them needs no type metadata for `R`.
  typealias Settings = NetworkingSettings<R>
  typealias Flight = NetworkingFlight
  typealias Flights = NetworkingFlights

  /// How many requests may be in flight at once.
  public let mode: NetworkingMode
  /// The provider that answers some endpoints with mocks, or `nil`.
  public let mockProvider: MockProvider<R>?
  /// The transport real (not mocked) requests are sent with.
  public let transport: any Transport
  /// The HTTP cache `GET` requests are answered from, by each request's `cachePolicy` (see `CacheMiddleware`), or
  /// `nil`, the default: no cache, so every request goes to the network and `returnCacheDataDontLoad` fails with
  /// `StorageError` code `cacheMiss`. Off by default because one networking often serves many users: pass an
  /// `HTTPCache` (whose `credentialFields` name whatever tells those users apart) to turn it on.
  public let cache: HTTPCache?
  /// The cookie jar: every request gets a `Cookie` field with the jar's cookies for its URL, and every `Set-Cookie`
  /// of a response (redirects included) is stored (see `CookieMiddleware`); `nil`, the default, keeps no cookies.
  /// Off by default because one networking often serves many users: give each user's networking a jar of its own.
  public let cookies: CookieJar?
  /// Where requests with `storePolicy: .offline` are kept when the host cannot be reached, until ``replay()``.
  public let offlineStore: OfflineRequestStore

  let authentication: AuthenticationMiddleware
  let settings: Locked<Settings>
  /// The mode's queue; a request holds a slot from leaving it until its promise settles.
  let limiter: RequestLimiter
  let flights = Locked(Flights())
  /// Failure hooks, `shouldContinue`, the `validate` hook, mock mode and registered mocks (the `Networking+…` files).
  let hooks = NetworkingHooks<R>()

  /// Creates a networking for the endpoints of `R`.
  ///
  /// ```swift
  /// let networking = Networking<SharkywatersEndpoint>(mode: .limited(4), transport: .urlSession)
  /// ```
  /// - Parameters:
  ///   - mode: How many requests may be in flight at once; ``NetworkingMode/async`` (no limit) by default.
  ///   - mockProvider: Answers some endpoints with mocks; those requests still pass every hook.
  ///   - sessionConfiguration: The configuration of the URLSession transport; its headers, timeouts and proxy apply
  ///     on every transport (see ``SessionConfiguration``).
  ///   - transport: The transport; ``TransportKind/platformDefault`` by default (curl on Linux and macOS, URLSession
  ///     on iOS, tvOS, watchOS and visionOS).
  ///   - cache: The HTTP cache; `nil`, the default, caches nothing (see ``cache``).
  ///   - cookies: The cookie jar; `nil`, the default, keeps no cookies (see ``cookies``).
  ///   - offlineStore: Where offline requests are kept; `nil`, the default, uses the store in
  ///     `OfflineRequestStore.defaultDirectory()` shared by every networking of the process.
  ///   - logger: The application's swift-log `Logger`: this networking then logs to it through a ``logger`` of
  ///     its own at `LogLevel.info` (redaction as `Malibu.logger`'s); `nil`, the default, uses `Malibu.logger`.
  public init(
    mode: NetworkingMode = .async,
    mockProvider: MockProvider<R>? = nil,
    sessionConfiguration: SessionConfiguration = .default,
    transport: TransportKind = .platformDefault,
    cache: HTTPCache? = nil,
    cookies: CookieJar? = nil,
    offlineStore: OfflineRequestStore? = nil,
    logger: Logger? = nil
  ) {
    self.mode = mode
    self.mockProvider = mockProvider
    self.transport = transport.makeTransport(sessionConfiguration: sessionConfiguration)
    self.cache = cache
    self.cookies = cookies
    self.offlineStore = offlineStore ?? DefaultOfflineStore.store
    limiter = RequestLimiter(limit: mode.concurrencyLimit)
    authentication = AuthenticationMiddleware(origin: Self.origin(of: R.baseUrl))
    let networkLogger =
      logger.map { NetworkLogger(level: .info, logger: $0, redactor: NetworkLogger.shared.redactor) }
      ?? NetworkLogger.shared
    let etagStore = ETagStore()
    settings = Locked(
      Settings(
        logger: networkLogger,
        etagStore: etagStore,
        chain: NetworkingChain(
          logger: networkLogger,
          authentication: nil,
          cookies: cookies,
          cache: cache,
          etag: ETagMiddleware(store: etagStore, defaultPolicy: .disabled),
          offlineStore: self.offlineStore
        )
      )
    )
    adopt(sessionConfiguration, transport: transport, logger: networkLogger)
  }

  /// Ends every `failures` and `activity` subscription, so that loops over them end with the networking.
  deinit {
    finishSubscriptions()
  }

  /// Changes every request once it leaves the mode's queue, before the middleware gate and encoding.
  ///
  /// ```swift
  /// networking.beforeEach = { request in request.adding(parameters: ["userId": "12345"], headers: ["token": "t"]) }
  /// ```
  public var beforeEach: (@Sendable (Request) -> Request)? {
    get { settings.withLock { $0.beforeEach } }
    set { settings.withLock { $0.beforeEach = newValue } }
  }

  /// Takes a last look at the transport request (URL, method, header fields) before it is sent.
  ///
  /// ```swift
  /// networking.preProcessRequest = { request in
  ///   var request = request; request.headerFields[HTTPField.Name("token")!] = "t"; return request
  /// }
  /// ```
  public var preProcessRequest: (@Sendable (HTTPRequest) -> HTTPRequest)? {
    get { settings.withLock { $0.preProcessRequest } }
    set { settings.withLock { $0.preProcessRequest = newValue } }
  }

  /// A gate every request waits at, once it has its slot in the mode's queue: resolve the promise to let the request
  /// go on, reject it to fail that request with the error (wrapped in `NetworkError` code `requestRejected` unless
  /// it is a `NetworkError` already).
  ///
  /// ```swift
  /// networking.middleware = { promise in
  ///   tokenStore.fetch { token in networking.authenticate(bearerToken: token); promise.resolve() }
  /// }
  /// ```
  public var middleware: (@Sendable (Promise<Void>) -> Void)? {
    get { settings.withLock { $0.middleware } }
    set { settings.withLock { $0.middleware = newValue } }
  }

  /// Header fields for every request of this networking; `R.headers` and each request's headers replace them.
  public var headers: [String: String] {
    get { settings.withLock { $0.headers } }
    set { settings.withLock { $0.headers = newValue } }
  }

  /// Timeouts, redirects, decompression, TLS and progress for every request.
  public var transferOptions: TransferOptions {
    get { settings.withLock { $0.transferOptions } }
    set { settings.withLock { $0.transferOptions = newValue } }
  }

  /// The largest response body accepted, in bytes (256 MiB by default); a larger one fails the request with
  /// `NetworkError` code `bodyTooLarge` (the underlying `TransportError` has code `bodyTooLarge`).
  public var maximumResponseSize: Int {
    get { settings.withLock { $0.maximumResponseSize } }
    set { settings.withLock { $0.maximumResponseSize = newValue } }
  }

  /// The logger this networking writes requests, responses and errors to, and the failures of `validate()`,
  /// `toX()` and `decode(using:)` on its responses; `Malibu.logger` (the shared one) by default, one of its own
  /// when the networking was created with a swift-log `Logger`.
  public var logger: NetworkLogger {
    get { settings.withLock { $0.logger } }
    set {
      settings.withLock { settings in
        settings.logger = newValue
        rebuildChain(&settings)
      }
    }
  }

  /// Sends the request of an endpoint.
  ///
  /// ```swift
  /// let boards: [Board] = try await networking.request(.fetchBoards).validate().decode(using: [Board].self).value
  /// ```
  /// Cancelling the promise (or a promise derived from it, or the task awaiting its `value`) stops the request
  /// wherever it is: waiting in the queue, at the middleware gate, or in flight.
  ///
  /// The request starts at once, on the calling thread, until it first has to wait: ``beforeEach`` and the
  /// ``middleware`` gate may run before `request(_:)` returns, so don't call it while holding a lock those hooks
  /// take. A mocked request with no delay may even be answered by then; handlers added later still run.
  /// - Parameter endpoint: The endpoint.
  /// - Returns: The promise of the response; rejected with a `NetworkError`.
  @discardableResult
  public func request(_ endpoint: R) -> NetworkPromise {
    start(endpoint, control: RequestControl())
  }

  /// Sends the request of an endpoint with transfer options of its own: `options` changes a copy of the networking's
  /// ``transferOptions`` (after ``transferOptionsForEndpoint``) for this request alone.
  ///
  /// ```swift
  /// networking.request(.fetchBoards, options: { options in
  ///   options.timeouts.total = .seconds(5)
  ///   options.redirects = .none
  ///   options.progress = { progress in print(progress.downloaded) }
  /// })
  /// ```
  /// The closure gets the whole `TransferOptions`, so every field (timeouts, redirects, decompression, TLS, progress,
  /// request compression, and any added later) can be set per request. It runs when the request is encoded, after
  /// the ``middleware`` gate.
  /// - Parameters:
  ///   - endpoint: The endpoint.
  ///   - options: Changes this request's transfer options.
  /// - Returns: The promise of the response; rejected with a `NetworkError`.
  @discardableResult
  public func request(_ endpoint: R, options: @escaping @Sendable (inout TransferOptions) -> Void) -> NetworkPromise {
    start(endpoint, control: RequestControl(options: options))
  }

  /// Sends the request of an endpoint, logging it to `logger` rather than the networking's swift-log `Logger`.
  ///
  /// ```swift
  /// var requestLogger = appLogger
  /// requestLogger[metadataKey: "request-id"] = "\(requestID)"
  /// networking.request(.fetchBoards, logger: requestLogger).validate().toJsonArray()
  /// ```
  /// The networking's ``logger`` settings (redaction, custom loggers) apply, at its level or `LogLevel.info`,
  /// whichever writes more: passing a `Logger` asks for records. Failures of `validate()` and the conversions on
  /// this response go to `logger` too.
  /// - Parameters:
  ///   - endpoint: The endpoint.
  ///   - logger: The swift-log `Logger` for this request's records.
  /// - Returns: The promise of the response; rejected with a `NetworkError`.
  @discardableResult
  public func request(_ endpoint: R, logger: Logger) -> NetworkPromise {
    let override = self.logger.writing(to: logger)
    if override.level < .info { override.level = .info }
    return start(endpoint, control: RequestControl(logger: override))
  }

  /// Starts a request with what the caller set for it alone.
  private func start(_ endpoint: R, control: RequestControl) -> NetworkPromise {
    launch { [self] ticket in try await perform(endpoint, ticket: ticket, control: control) }
  }

  /// Cancels every request of this networking that has not finished: waiting in the queue, at the middleware gate
  /// or in flight, and a running ``replay()``. Their promises are rejected with `NetworkError` code `cancelled`; a
  /// replayed request that was cut short stays in the offline store.
  public func cancelAllRequests() {
    let active = flights.withLock { $0.removeAll() }
    for flight in active { flight.cancel() }
  }

  /// One request, from the endpoint to the response.
  private func perform(_ endpoint: R, ticket: RequestLimiter.Ticket, control: RequestControl) async throws -> Response {
    try await perform(.endpoint(endpoint), ticket: ticket, control: control) { view in
      resolve(endpoint, hooks: view)
    }
  }

  /// The steps every collected request takes: its turn in the queue, the hooks' admission, its request and transport
  /// from `resolve` (given the hooks), the chain, the hooks' acceptance.
  func perform(
    _ subject: NetworkingHooks<R>.Subject,
    ticket: RequestLimiter.Ticket,
    control: RequestControl,
    resolve: (HooksSnapshot) throws -> (request: Request, transport: any Transport)
  ) async throws -> Response {
    let logger = control.logger ?? self.logger
    try hooks.checkServing(subject, logger: logger, abandoning: ticket, of: limiter)
    try await limiter.wait(for: ticket)
    defer { limiter.release() }
    let view = try hooks.admit(subject, logger: logger)
    let (request, base) = try resolve(view)
    let response: Response
    do {
      response = try await collect(
        request,
        of: subject.endpoint,
        through: base,
        storingOffline: true,
        control: control
      )
    } catch {
      throw hooks.failed(subject, request: request, error: error)
    }
    return try hooks.accept(response, as: view, of: subject, request: request, logger: logger)
  }

  /// ``resolve(_:hooks:)`` with the hooks as they are now (downloads and streams).
  /// - Throws: `NetworkError` code `stopped` while the networking is stopped (see `shouldContinue`).
  func resolve(_ endpoint: R) throws -> (request: Request, transport: any Transport) {
    try resolve(endpoint, hooks: hooks.admit(endpoint, logger: logger))
  }

  /// The endpoint's request after ``beforeEach``, and the transport under the chain for it, by the mock mode: a mock
  /// registered for the endpoint, the mock provider's answer, else ``transport`` (see ``transport(for:request:hooks:)``).
  func resolve(_ endpoint: R, hooks: HooksSnapshot) -> (request: Request, transport: any Transport) {
    let request = endpoint.request
    let base = transport(for: endpoint, request: request, hooks: hooks)
    return (prepared(request), base)
  }

  /// `request` after ``beforeEach``, with the session configuration's cache policy when it names none of its own.
  func prepared(_ request: Request) -> Request {
    var request = request
    let (beforeEach, sessionCachePolicy) = settings.withLock { ($0.beforeEach, $0.sessionCachePolicy) }
    if let beforeEach {
      request = beforeEach(request)
    }
    request.adoptCachePolicy(sessionCachePolicy)
    return request
  }

  /// One request taking its turn in the mode's queue, without `beforeEach` (used by ``replay()``).
  func sendInTurn(_ request: Request) async throws -> Response {
    var request = request
    request.adoptCachePolicy(settings.withLock { $0.sessionCachePolicy })
    let ticket = limiter.reserve()
    try await limiter.wait(for: ticket)
    defer { limiter.release() }
    return try await collect(request, of: nil, through: transport, storingOffline: false, control: RequestControl())
  }

  /// A request after `beforeEach`, through ``exchange(_:of:through:storingOffline:control:_:)``, its body collected
  /// into a `Response` (with the transport's one-hop `collect(_:body:options:upTo:)`, which brings the metrics).
  func collect(
    _ request: Request,
    of endpoint: R?,
    through base: any Transport,
    storingOffline: Bool,
    control: RequestControl
  ) async throws -> Response {
    try await exchange(request, of: endpoint, through: base, storingOffline: storingOffline, control: control) {
      outgoing in
      let collected = try await outgoing.transport.collect(
        outgoing.head,
        body: outgoing.body,
        options: outgoing.options,
        upTo: outgoing.maximumResponseSize
      )
      return Response(
        data: collected.data,
        status: collected.head.status,
        headers: collected.head.headerFields,
        request: outgoing.head,
        url: collected.url,
        metrics: collected.metrics,
        failureReporter: outgoing.logger,
        defaultDecoder: outgoing.decoder
      )
    }
  }

  /// The seam every way of receiving a response is built on: a request after `beforeEach` (see ``resolve(_:)``)
  /// through the middleware gate, encoding, `preProcessRequest` and the middleware chain over `base`, returning the
  /// response head with its body still to be read (collected, streamed or written to a file by the caller).
  /// - Parameters:
  ///   - request: The request, after `beforeEach`.
  ///   - endpoint: The endpoint it was made from (for ``transferOptionsForEndpoint`` and ``progress``); `nil` for a
  ///     replayed request.
  ///   - base: The transport under the chain (``resolve(_:)``'s).
  ///   - storingOffline: Whether an `.offline` request the host could not be reached for is saved (not on replay).
  ///   - control: What the caller set for this request alone: a logger, transfer options.
  ///   - adjustHead: The caller's own last changes to the head, after `preProcessRequest` (a download's range).
  /// - Returns: The response, with the request as it was handed to the chain and the logger and size limit it was
  ///   sent with.
  /// - Throws: `NetworkError` for a request that cannot be built or is refused at the gate; whatever the chain
  ///   and transport throw (wrap it with `NetworkError.wrapping(_:)`).
  func open(
    _ request: Request,
    of endpoint: R?,
    through base: any Transport,
    storingOffline: Bool = true,
    control: RequestControl = RequestControl(),
    adjustingHead adjustHead: (inout HTTPRequest) -> Void = { _ in }
  ) async throws -> OpenedExchange {
    try await exchange(
      request,
      of: endpoint,
      through: base,
      storingOffline: storingOffline,
      control: control,
      adjustingHead: adjustHead
    ) { outgoing in
      let response = try await outgoing.transport.send(outgoing.head, body: outgoing.body, options: outgoing.options)
      return OpenedExchange(
        response: response,
        request: outgoing.head,
        logger: outgoing.logger,
        maximumResponseSize: outgoing.maximumResponseSize
      )
    }
  }

  /// What ``open(_:of:through:storingOffline:control:)`` and the collect path share: the middleware gate, encoding,
  /// `preProcessRequest`, the request's transfer options and the choice of the chain's steps; then `transfer` makes
  /// the call on the chain, inside the request's `SourceRequest` when a step reads it.
  private func exchange<Result: Sendable>(
    _ request: Request,
    of endpoint: R?,
    through base: any Transport,
    storingOffline: Bool,
    control: RequestControl,
    adjustingHead adjustHead: (inout HTTPRequest) -> Void = { _ in },
    _ transfer: (Outgoing) async throws -> Result
  ) async throws -> Result {
    let logger = control.logger
    var settings = self.settings.withLock { $0 }
    if let logger { settings.logger = logger }
    if let middleware = settings.middleware {
      try await passGate(middleware, logger: settings.logger)
      // The gate may change the settings (authentication, headers): the rest of the request reads them afresh.
      settings = self.settings.withLock { $0 }
      if let logger { settings.logger = logger }
    }
    var request = request.encodingBody(with: settings.bodyEncoder)
    // A replayed request is not stored again.
    if !storingOffline { request.storePolicy = .unspecified }
    var prepared: PreparedRequest
    do {
      prepared = try PreparedRequest(
        request,
        for: R.self,
        headerLayers: [settings.sessionHeaders, settings.headers, R.headers]
      )
    } catch {
      settings.logger.log(error: error)
      throw error
    }
    if let preProcessRequest = settings.preProcessRequest {
      prepared.head = preProcessRequest(prepared.head)
    }
    adjustHead(&prepared.head)
    let options = transferOptions(for: endpoint, head: prepared.head, settings: settings, control: control)
    do {
      // The HTTPS-only policy before any step, so that no mock or cache answers a request it refuses.
      prepared.head = try options.insecureHTTP.apply(to: prepared.head)
    } catch {
      settings.logger.log(error: NetworkError.wrapping(error))
      throw error
    }
    let steps = settings.chain.steps(
      for: request,
      head: prepared.head,
      options: options,
      logger: settings.logger,
      ownLogger: logger
    )
    let outgoing = Outgoing(
      head: prepared.head,
      body: prepared.body,
      options: options,
      logger: settings.logger,
      decoder: settings.decoder,
      maximumResponseSize: settings.maximumResponseSize,
      transport: steps.isEmpty ? base : MiddlewareTransport(transport: base, middleware: steps)
    )
    try Task.checkCancellation()
    guard !steps.isEmpty else { return try await transfer(outgoing) }
    // The steps read the request's policies here.
    return try await SourceRequest.$current.withValue(SourceRequest(request, baseUrl: R.baseUrl)) {
      try await transfer(outgoing)
    }
  }

  /// The transfer options of one request: the networking's, changed by ``transferOptionsForEndpoint`` and then by
  /// the request's own closure; with a ``progress`` handler, the request's progress also goes to it, named.
  private func transferOptions(
    for endpoint: R?,
    head: HTTPRequest,
    settings: Settings,
    control: RequestControl
  ) -> TransferOptions {
    guard settings.endpointOptions != nil || control.options != nil || settings.progress != nil else {
      return settings.transferOptions
    }
    var options = settings.transferOptions
    if let endpoint, let forEndpoint = settings.endpointOptions {
      forEndpoint(endpoint, &options)
    }
    control.options?(&options)
    if let progress = settings.progress {
      let own = options.progress
      options.progress = { transferred in
        own?(transferred)
        progress(RequestProgress(endpoint: endpoint, request: head, progress: transferred))
      }
    }
    return options
  }

  /// Waits for the middleware to resolve or reject its promise.
  private func passGate(_ middleware: @Sendable (Promise<Void>) -> Void, logger: NetworkLogger) async throws {
    let gate = Promise<Void>()
    middleware(gate)
    do {
      try await gate.value
    } catch {
      let rejection = NetworkError.rejected(by: error)
      if !rejection.isCancellation { logger.log(error: rejection) }
      throw rejection
    }
  }

  /// The origin credentials are bound to: the base URL's, when it is an absolute URL with a host.
  static func origin(of baseUrl: (any URLStringConvertible)?) -> URL? {
    guard let string = baseUrl?.urlString, let url = URL(string: string), url.scheme != nil,
      !(url.host ?? "").isEmpty
    else { return nil }
    return url
  }
}

/// A request ready for the chain: what ``Networking/open(_:of:through:storingOffline:control:)`` and the collect path
/// hand to the transport.
struct Outgoing: Sendable {
  /// The head, after `preProcessRequest`.
  var head: HTTPRequest
  /// The body, if any.
  var body: RequestBody?
  /// The transfer options of this request.
  var options: TransferOptions
  /// The logger the request was sent with (the networking's, or the request's own).
  var logger: NetworkLogger
  /// The networking's decoder when the request was sent, for the response's decodings that name none.
  var decoder: (any ResponseDecoder)?
  /// The largest response body the request accepts when collected.
  var maximumResponseSize: Int
  /// The chain's steps for this request over its transport (the transport alone when no step applies).
  var transport: any Transport
}

/// What ``Networking/open(_:of:through:storingOffline:control:)`` returns: the response with its body unread, the
/// request as it was handed to the chain, and the logger and size limit it was sent with.
struct OpenedExchange: Sendable {
  /// The response head, final URL and body, to collect, stream or write to a file.
  var response: TransportResponse
  /// The request head as it was handed to the chain (after `preProcessRequest`).
  var request: HTTPRequest
  /// The logger the request was sent with: failures of reading the body are its to report.
  var logger: NetworkLogger
  /// The networking's response-size limit when the request was sent.
  var maximumResponseSize: Int
}

/// What the caller of `Networking.request` set for one request alone.
struct RequestControl: Sendable {
  /// Replaces the networking's logger.
  var logger: NetworkLogger?
  /// Changes the request's transfer options.
  var options: (@Sendable (inout TransferOptions) -> Void)?
}

/// The settings of a `Networking<R>`, read by each request; generic over the endpoint type, so that the closures that
/// take an endpoint are kept with their types.
struct NetworkingSettings<R: RequestConvertible>: Sendable {
  var beforeEach: (@Sendable (Request) -> Request)?
  var preProcessRequest: (@Sendable (HTTPRequest) -> HTTPRequest)?
  var middleware: (@Sendable (Promise<Void>) -> Void)?
  var headers: [String: String] = [:]
  /// The session configuration's `httpAdditionalHeaders`: the lowest layer of header fields.
  var sessionHeaders: [String: String] = [:]
  /// The session configuration's `requestCachePolicy`, for requests that keep the default policy.
  var sessionCachePolicy: CachePolicy?
  var transferOptions = TransferOptions()
  var maximumResponseSize = 256 * 1024 * 1024
  var logger: NetworkLogger
  /// The token-refresh form of authentication, when it is the current one (see `Networking+Authentication`).
  var tokenRefresh: TokenRefreshMiddleware?
  /// `Networking.transferOptionsForEndpoint`.
  var endpointOptions: (@Sendable (R, inout TransferOptions) -> Void)?
  /// `Networking.progress`.
  var progress: (@Sendable (RequestProgress<R>) -> Void)?
  /// The middleware chain, composed again by every setter it depends on (see `Networking+Chain`).
  var chain: NetworkingChain

  /// Where typed requests without a key path of their own find their resource (see `Networking+Send`).
  var resourceKeyPath = ResourceKeyPath.topLevel
  /// The decoder of decodings that name none; `nil` for a `MalibuJSONDecoder()` (see `Networking+Coding`).
  var decoder: (any ResponseDecoder)?
  /// The encoder of `Encodable` JSON bodies that name none; `nil` for Malibu's rules (see `Networking+Coding`).
  var bodyEncoder: (any RequestBodyEncoder)?

  /// The ETag policy of requests without their own, and where validators are kept (see `Networking+ETag`).
  var etagPolicy = ETagPolicy.disabled
  var etagStore: ETagStore

  init(logger: NetworkLogger, etagStore: ETagStore, chain: NetworkingChain) {
    self.logger = logger
    self.etagStore = etagStore
    self.chain = chain
  }
}

/// Something of a networking's that has not finished (a request or a replay): its promise and the task settling it.
///
/// The promise is kept as an existential, not in a closure that captures it with the task: that closure's context
/// was an allocation per request.
struct NetworkingFlight: Sendable {
  let promise: any CancellableAsNetworkError
  let task: Task<Void, Never>

  /// Rejects the promise with `NetworkError` code `cancelled` and cancels the task.
  func cancel() {
    promise.rejectAsCancelled()
    task.cancel()
  }
}

/// A promise that ``NetworkingFlight`` can reject as cancelled, whatever its value.
protocol CancellableAsNetworkError: AnyObject, Sendable {
  /// Rejects the promise with `NetworkError` code `cancelled`, unless it is settled.
  func rejectAsCancelled()
}

extension Promise: CancellableAsNetworkError {
  func rejectAsCancelled() {
    reject(NetworkError.cancelled())
  }
}

/// The unfinished work of a networking, in numbered slots: adding and removing one is an array store, with no
/// hashing. A slot's ID says which flight holds it, so a late removal never clears a slot reused since.
struct NetworkingFlights: Sendable {
  /// Where a flight is kept: its slot and the ID it was given.
  struct Key: Sendable {
    fileprivate let slot: Int
    fileprivate let id: UInt64
  }

  private var nextID: UInt64 = 0
  /// Set by `shutdown(gracePeriod:)`: no new flight is taken from then on.
  var isShutDown = false
  /// How many slots are taken (`Networking.inFlight`), and who is told of every change (`Networking.activity`).
  private(set) var count = 0
  var watchers = ActivityWatchers()
  /// A slot holds its ID and, once filled, its flight.
  private var slots: [(id: UInt64, flight: NetworkingFlight?)?] = []
  private var freeSlots: [Int] = []

  /// Takes a slot for a flight to come (see ``fill(_:with:)``); it is empty until then.
  mutating func reserve() -> Key {
    nextID &+= 1
    let slot: Int
    if let free = freeSlots.popLast() {
      slot = free
      slots[slot] = (nextID, nil)
    } else {
      slot = slots.count
      slots.append((nextID, nil))
    }
    count += 1
    watchers.publish(count)
    return Key(slot: slot, id: nextID)
  }

  /// Puts `flight` in the slot of `key`, unless that slot was let go of since it was reserved.
  mutating func fill(_ key: Key, with flight: NetworkingFlight) {
    guard key.slot < slots.count, slots[key.slot]?.id == key.id else { return }
    slots[key.slot] = (key.id, flight)
  }

  /// Lets go of the flight kept under `key`, unless it is gone already.
  mutating func remove(_ key: Key) {
    guard key.slot < slots.count, slots[key.slot]?.id == key.id else { return }
    slots[key.slot] = nil
    freeSlots.append(key.slot)
    count -= 1
    watchers.publish(count)
  }

  /// Lets go of every flight and returns them.
  mutating func removeAll() -> [NetworkingFlight] {
    defer {
      slots.removeAll()
      freeSlots.removeAll()
      if count != 0 {
        count = 0
        watchers.publish(count)
      }
    }
    return slots.compactMap { $0?.flight }  // a slot reserved and not filled yet holds none
  }
}
