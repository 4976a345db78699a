import Foundation
public import HTTPTypes
import MalibuCore
public import MalibuTransport

/// Middleware that answers `GET` requests from an ``HTTPCache``, a private cache after RFC 9111, according to the
/// request's cache policy.
///
/// Middleware sees swift-http-types requests, so the policy comes with the transfer: the `cachePolicy` of the
/// ``SourceRequest/current`` request when its sender set one (the facade does), else the ``policyHeader`` request
/// header (`X-Malibu-Cache-Policy: <policy name>`, see ``MalibuCore/CachePolicy/headerValue``), else
/// `useProtocolCachePolicy`. The middleware always removes ``policyHeader`` before sending.
///
/// An entry is only ever looked up under the request's own key (``HTTPCache/key(for:)``): same method, URL and
/// credentials (`Authorization`, `Proxy-Authorization`, `Cookie`, ``HTTPCache/credentialFields``), and then only used
/// when every field its `Vary` names has the stored request's value (`Vary: *` never matches).
///
/// - `useProtocolCachePolicy`: a fresh entry (RFC 9111 §4.2: `max-age`, else `Expires`, against its age, counting
///   `Age` and `Date`) is returned without a request, unless the request says `no-cache` (or `Pragma: no-cache`) or a
///   `max-age` the entry is older than; any other is revalidated with `If-None-Match` / `If-Modified-Since`, and a
///   `304 Not Modified` is answered from the cache as a `200 OK` with the stored body.
/// - `reloadIgnoringLocalCacheData`: the cache is bypassed entirely: no lookup, no validators, nothing stored.
/// - `returnCacheDataElseLoad`: any stored entry, whatever its age, except a stale one that says `must-revalidate`
///   or one that says `no-cache` (RFC 9111 §4.2.4), which is revalidated; otherwise a normal load (and store).
/// - `returnCacheDataDontLoad`: the entries `returnCacheDataElseLoad` would use; otherwise
///   ``StorageError/Code/cacheMiss``, without a request.
///
/// Responses are stored when they are a `200` to a `GET` with a validator or a positive freshness lifetime, neither
/// request nor response says `no-store`, `Vary` is not `*`, and the body fits ``HTTPCache/maxBodyBytes``. `private`
/// is storable here; `s-maxage` is ignored. A successful unsafe request forgets every entry of its URL.
///
/// A response from the cache carries ``statusHeader``: `X-Malibu-Cache: hit` (no request was made; its `Age` is the
/// entry's current age) or `X-Malibu-Cache: revalidated` (the server answered 304).
///
/// ```swift
/// let cache = HTTPCache()
/// let transport = CurlTransport().with(middleware: [CacheMiddleware(cache: cache)])
/// var head = HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: "/boards")
/// head.headerFields[CacheMiddleware.policyHeader] = CachePolicy.useProtocolCachePolicy.headerValue
/// ```
public struct CacheMiddleware: Middleware {
  /// The request header carrying the cache policy: `X-Malibu-Cache-Policy`.
  public static let policyHeader = HTTPField.Name("X-Malibu-Cache-Policy")!
  /// The response header marking a response served from the cache: `X-Malibu-Cache`.
  public static let statusHeader = HTTPField.Name("X-Malibu-Cache")!
  /// The ``statusHeader`` value of a response returned without a request.
  public static let hit = "hit"
  /// The ``statusHeader`` value of a response returned after a `304 Not Modified`.
  public static let revalidated = "revalidated"

  /// The cache.
  public let cache: HTTPCache

  /// Creates the middleware.
  /// - Parameter cache: The cache to read and fill.
  public init(cache: HTTPCache) {
    self.cache = cache
  }

  /// Answers from the cache, revalidates, or loads and stores, by the transfer's policy (see the overview).
  /// - Parameters:
  ///   - request: The request head.
  ///   - body: The request body.
  ///   - options: The transfer options.
  ///   - next: The rest of the chain.
  /// - Returns: The response, from the network or the cache.
  /// - Throws: ``StorageError`` with code ``StorageError/Code/invalidCachePolicy`` for an unknown policy name in
  ///   ``policyHeader`` (when no ``SourceRequest`` is current),
  ///   ``StorageError/Code/cacheMiss`` for `returnCacheDataDontLoad` without an entry, and whatever `next` throws.
  public func intercept(
    _ request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions,
    next: Next
  ) async throws -> TransportResponse {
    var request = request
    let policy = try Self.policy(of: request)
    if request.headerFields.contains(Self.policyHeader) {
      request.headerFields[Self.policyHeader] = nil
    }
    guard request.method == .get else {
      let response = try await next(request, body, options)
      if request.method != .head, request.method != .options, (200..<400).contains(response.head.status.code) {
        // A successful unsafe method changes the resource: forget what is stored for the same URL, for everyone.
        var get = request
        get.method = .get
        cache.removeResponses(for: get)
      }
      return response
    }
    if policy == .reloadIgnoringLocalCacheData { return try await next(request, body, options) }

    let key = cache.key(for: request)
    let stored = cache.response(forKey: key)
    let entry = stored.flatMap { matchesVary($0, request) ? $0 : nil }
    let requestControl = CacheControl(request.headerFields, isRequest: true)
    let now = cache.now()
    switch policy {
    case .returnCacheDataElseLoad, .returnCacheDataDontLoad:
      if let entry, entry.mayBeServedStale || entry.isFresh(at: now) { return Self.answer(entry, at: now) }
      if policy == .returnCacheDataDontLoad {
        let reason = entry == nil ? "no cached response" : "the cached response must be revalidated"
        throw StorageError(
          code: .cacheMiss,
          message: "returnCacheDataDontLoad: \(reason) for GET \(Self.describe(request)), and loading is not allowed"
        )
      }
    default:
      if let entry, !requestControl.noCache, entry.isFresh(at: now),
        requestControl.maxAge.map({ entry.currentAge(at: now) <= Double($0) }) ?? true
      {
        return Self.answer(entry, at: now)
      }
    }

    var sent = request
    var addedValidators = false
    if let entry, !request.headerFields.contains(.ifNoneMatch), !request.headerFields.contains(.ifModifiedSince) {
      if let etag = entry.etag {
        sent.headerFields[.ifNoneMatch] = etag
        addedValidators = true
      }
      if let lastModified = entry.lastModified {
        sent.headerFields[.ifModifiedSince] = lastModified
        addedValidators = true
      }
    }
    let response = try await next(sent, body, options)
    if response.head.status.code == 304, addedValidators, let entry {
      response.body.cancel()
      let updated = revalidate(entry, with: response.head, requestTime: now)
      if CacheControl(updated.head.headerFields).noStore {
        cache.removeResponse(forKey: key)
      } else if !requestControl.noStore {
        cache.store(updated, forKey: key)
      }
      return Self.answer(updated, status: Self.revalidated)
    }
    guard response.head.status.code == 200 else { return response }
    guard isStorable(response, requestControl: requestControl) else {
      // A full response replaces what was stored; one that may not be stored leaves nothing behind.
      if stored != nil { cache.removeResponse(forKey: key) }
      return response
    }
    return storing(response, request: request, key: key, requestTime: now)
  }
}
