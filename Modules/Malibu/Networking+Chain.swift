import HTTPTypes
import MalibuAuth
import MalibuCore
import MalibuLogging
import MalibuStorage
import MalibuTransport

/// The middleware chain of a networking: one fixed list of steps, built when a setting it is made from changes (the
/// logger, the credentials, the ETag policy and store), never per request.
///
/// Its steps, outermost first: logging · authentication (plain credentials or token refresh) · cookies · cache · ETag
/// revalidation · offline store · retry, and under them the request's transport (the networking's, or the mock the
/// endpoint's provider answers with). The HTTPS-only policy is applied to the head before the first step.
///
/// Each step comes with the rule by which it decides whether it acts on a request, read from the request before the
/// transfer: logging by its logger's level, the cache gate (without an `HTTPCache`) by the request's `cachePolicy`,
/// ETag revalidation by the request's or the networking's `etagPolicy`, the offline store by the request's
/// `storePolicy`, retry by `TransferOptions.retry`; authentication, cookies and the cache act on every request, and are
/// left out when the chain is built if the settings make them idle (no credentials, no jar, no cache). A request runs
/// through the steps that act on it, and one that none acts on goes to its transport's one-hop `collect` (a step that
/// passes a request on turns that into a streamed response; BENCHMARKS.md has the cost). Adding a step is one `Step` in
/// ``init(logger:authentication:cookies:cache:etag:offlineStore:)``.
final class NetworkingChain: Sendable {
  /// Whether a step acts on a request, from the request after `beforeEach` (a replayed one with no `storePolicy`, so
  /// that it is not stored again), its head after `preProcessRequest`, its transfer options and its logger.
  typealias Rule =
    @Sendable (
      _ request: Request, _ head: HTTPRequest, _ options: TransferOptions, _ logger: NetworkLogger
    ) -> Bool

  /// One step and whether it acts on a request.
  struct Step: Sendable {
    let middleware: any Middleware
    let acts: Rule
  }

  /// The steps, outermost first; the logging step is the first.
  private let steps: [Step]

  /// Composes the chain from the networking's settings.
  /// - Parameters:
  ///   - logger: The networking's logger.
  ///   - authentication: The authentication step, or `nil` when there are no credentials.
  ///   - cookies: The networking's cookie jar, if any.
  ///   - cache: The networking's HTTP cache, if any.
  ///   - etag: The ETag step, over the networking's store with its policy.
  ///   - offlineStore: Where `.offline` requests are saved.
  init(
    logger: NetworkLogger,
    authentication: (any Middleware)?,
    cookies: CookieJar?,
    cache: HTTPCache?,
    etag: ETagMiddleware,
    offlineStore: OfflineRequestStore
  ) {
    let always: Rule = { _, _, _, _ in true }
    var steps = [Step(middleware: LoggingMiddleware(logger: logger)) { _, _, _, logger in logger.level != .none }]
    if let authentication { steps.append(Step(middleware: authentication, acts: always)) }
    if let cookies { steps.append(Step(middleware: CookieMiddleware(jar: cookies), acts: always)) }
    if let cache {
      steps.append(Step(middleware: CacheMiddleware(cache: cache), acts: always))
    } else {
      steps.append(
        Step(middleware: CacheMiddleware.Uncached()) { request, head, _, _ in
          (request.method == .get && request.cachePolicy == .returnCacheDataDontLoad)
            || head.headerFields.contains(CacheMiddleware.policyHeader)
        }
      )
    }
    let etagPolicy = etag.defaultPolicy
    steps.append(
      Step(middleware: etag) { request, head, _, _ in
        etagPolicy == .enabled || request.etagPolicy != nil || head.headerFields.contains(ETagMiddleware.policyHeader)
      }
    )
    let offline = OfflineStoreMiddleware(store: offlineStore) { error in logger.log(error: error) }
    steps.append(Step(middleware: offline) { request, _, _, _ in request.storePolicy == .offline })
    steps.append(Step(middleware: RetryMiddleware()) { _, _, options, _ in options.retry.maxAttempts > 1 })
    self.steps = steps
  }

  /// The steps that act on a request (see ``Rule``), outermost first, with no allocation when none acts; a request's
  /// own logger (`ownLogger`) replaces the logging step's.
  func steps(
    for request: Request,
    head: HTTPRequest,
    options: TransferOptions,
    logger: NetworkLogger,
    ownLogger: NetworkLogger?
  ) -> [any Middleware] {
    var acting: [any Middleware] = []
    for index in steps.indices where steps[index].acts(request, head, options, logger) {
      if index == 0, let ownLogger {
        acting.append(LoggingMiddleware(logger: ownLogger))
      } else {
        acting.append(steps[index].middleware)
      }
    }
    return acting
  }
}

extension Networking {
  /// Composes the chain again from `settings`; called under the settings lock by every setter it depends on.
  func rebuildChain(_ settings: inout Settings) {
    settings.chain = NetworkingChain(
      logger: settings.logger,
      authentication: authenticationStep(in: settings),
      cookies: cookies,
      cache: cache,
      etag: ETagMiddleware(store: settings.etagStore, defaultPolicy: settings.etagPolicy),
      offlineStore: offlineStore
    )
  }
}
