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
  /// Starts every piece of work of this networking, and keeps it in its flights (see `Networking+Launch`).
  let launcher: NetworkingLauncher
  /// The mode's queue (the launcher's); a request holds a slot from leaving it until its promise settles.
  var limiter: RequestLimiter { launcher.limiter }
  /// The unfinished work (the launcher's).
  var flights: Locked<Flights> { launcher.flights }
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
    launcher = NetworkingLauncher(
      flights: Locked(Flights()),
      limiter: RequestLimiter(limit: mode.concurrencyLimit),
      transport: self.transport
    )
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
  ///
  /// They are checked when set (names must be HTTP tokens; values must not hold CR, LF or NUL), not by every request:
  /// while a field is bad, every request fails with `NetworkError` code `invalidHeader` before anything is sent.
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
    launcher.launch { [self] ticket in try await perform(endpoint, ticket: ticket, control: control) }
  }

  /// Cancels every request of this networking that has not finished: waiting in the queue, at the middleware gate
  /// or in flight, and a running ``replay()``. Their promises are rejected with `NetworkError` code `cancelled`; a
  /// replayed request that was cut short stays in the offline store.
  public func cancelAllRequests() {
    let active = flights.withLock { $0.removeAll() }
    for flight in active { flight.cancel() }
  }

  /// The origin credentials are bound to: the base URL's, when it is an absolute URL with a host.
  static func origin(of baseUrl: (any URLStringConvertible)?) -> URL? {
    guard let string = baseUrl?.urlString, let url = URL(string: string), url.scheme != nil,
      !(url.host ?? "").isEmpty
    else { return nil }
    return url
  }
}
