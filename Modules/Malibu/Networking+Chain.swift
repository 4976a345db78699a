import MalibuAuth
import MalibuCore
import MalibuLogging
import MalibuStorage
import MalibuTransport

/// The middleware chain of a networking, built when a setting it is made from changes (the logger, the credentials),
/// never per request.
///
/// Its steps, outermost first: logging · authentication (plain credentials or token refresh) · cookies · cache · ETag
/// revalidation · offline store · retry, and under them the request's transport (the networking's, or the mock the
/// endpoint's provider answers with). The HTTPS-only policy is applied to the head before the first step.
///
/// A step that the settings say would do nothing is left out when the chain is built (no credentials: no
/// authentication step; no cookie jar: no cookie step). The steps below depend on something a request decides, so the
/// chain is composed once in each combination of them, and a request picks its own by a few reads, with no
/// allocation:
/// - logging, by the logger's level at the time of the request (a `NetworkLogger` may change its level without the
///   networking knowing): no logging step at `LogLevel.none`;
/// - the offline store, only for `storePolicy: .offline` (and never while replaying);
/// - ETag revalidation, only while the networking's `etagPolicy` is enabled or the request names a policy of its own;
/// - without an `HTTPCache`, the cache step that refuses a `GET` under `returnCacheDataDontLoad` and removes a
///   `X-Malibu-Cache-Policy` field, only for such a request;
/// - retry, only when the request's `TransferOptions.retry` allows more than one attempt.
///
/// The cache, ETag and offline-store steps read the request's policies from `SourceRequest.current`, which the networking
/// sets around the transfer whenever one of them is in the chosen steps.
final class NetworkingChain: Sendable {
  /// What a request needs beyond the steps every request gets; the index of its variant.
  struct Needs: OptionSet, Sendable {
    let rawValue: Int
    static let logging = Needs(rawValue: 1)
    static let offline = Needs(rawValue: 2)
    static let cacheGate = Needs(rawValue: 4)
    static let etag = Needs(rawValue: 8)
    static let retry = Needs(rawValue: 16)
  }

  /// The steps of every combination of ``Needs``, by its raw value.
  private let variants: [[any Middleware]]
  /// Whether there is an `HTTPCache` step in every variant (it reads `SourceRequest.current`).
  let hasCache: Bool

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
    hasCache = cache != nil
    let logging = LoggingMiddleware(logger: logger)
    let offline = OfflineStoreMiddleware(store: offlineStore) { error in logger.log(error: error) }
    let all: [Needs] = (0..<32).map { Needs(rawValue: $0) }
    variants = all.map { needs in
      var steps: [any Middleware] = []
      if needs.contains(.logging) { steps.append(logging) }
      if let authentication { steps.append(authentication) }
      if let cookies { steps.append(CookieMiddleware(jar: cookies)) }
      if let cache {
        steps.append(CacheMiddleware(cache: cache))
      } else if needs.contains(.cacheGate) {
        steps.append(CacheMiddleware.Uncached())
      }
      if needs.contains(.etag) { steps.append(etag) }
      if needs.contains(.offline) { steps.append(offline) }
      if needs.contains(.retry) { steps.append(RetryMiddleware()) }
      return steps
    }
  }

  /// The steps for a request with these needs; a `logger` of the request's own replaces the logging step's.
  func steps(for needs: Needs, logger: NetworkLogger?) -> [any Middleware] {
    let steps = variants[needs.rawValue]
    guard let logger, needs.contains(.logging) else { return steps }
    var own = steps
    own[0] = LoggingMiddleware(logger: logger)
    return own
  }

  /// Whether steps with these needs read `SourceRequest.current`.
  func readsSourceRequest(_ needs: Needs) -> Bool {
    hasCache || !needs.isDisjoint(with: [.offline, .cacheGate, .etag])
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
