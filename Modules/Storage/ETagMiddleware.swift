import Foundation
public import HTTPTypes
public import MalibuCore
public import MalibuTransport

/// Middleware that revalidates `GET`, `PUT` and `PATCH` requests with `If-None-Match`, after early Malibu's ETag
/// handling: the `ETag` of a successful response is kept in an ``ETagStore`` with the response, the next identical
/// request (same method, URL, credentials and, for `PUT` and `PATCH`, body) is sent with `If-None-Match`, and a
/// `304 Not Modified` to it is answered with the stored response.
///
/// - The policy of a request is the `etagPolicy` of the current ``SourceRequest``'s request when it names one (the
///   facade sets it, as for the cache), else its ``policyHeader`` (`X-Malibu-ETag-Policy: enabled` or `disabled`, which
///   the middleware always removes), else ``defaultPolicy``.
/// - A request that carries a conditional field of its own (`If-None-Match`, `If-Match`, `If-Modified-Since`,
///   `If-Unmodified-Since`, `If-Range`) is sent as it is and its response returned as it is: a caller who asks for
///   a `304` gets the `304`. So is a request whose body is streamed (it cannot be keyed without reading it).
/// - A `304` answering the validator this middleware added comes back as the stored response (its status, usually
///   `200`, its header fields and body) with `X-Malibu-Cache: revalidated` (``CacheMiddleware/statusHeader``), so
///   `Response.isFromCache` is `true`. Any other response is returned as it is; a `2xx` with an `ETag` replaces the
///   stored entry (once the caller has read the whole body), a `2xx` without one, or with `Cache-Control: no-store`,
///   removes it.
/// - For `PUT` and `PATCH`, RFC 9110 has a server that follows it answer a matching `If-None-Match` with
///   `412 Precondition Failed` rather than `304`; that `412` reaches the caller as it is.
///
/// In a chain with ``CacheMiddleware``, put this middleware after it (nearer the transport): a `GET` the cache
/// revalidates already carries `If-None-Match`, and this middleware then leaves it and its `304` to the cache.
///
/// ```swift
/// let store = ETagStore()
/// let transport = CurlTransport().with(middleware: [ETagMiddleware(store: store)])
/// ```
public struct ETagMiddleware: Middleware {
  /// The request header carrying a request's own policy: `X-Malibu-ETag-Policy`.
  public static let policyHeader = HTTPField.Name("X-Malibu-ETag-Policy")!
  /// The methods revalidated: `GET`, `PUT` and `PATCH`.
  public static let methods: Set<HTTPRequest.Method> = [.get, .put, .patch]
  /// Request fields that make a request conditional already.
  static let conditionalFields: [HTTPField.Name] = [
    .ifNoneMatch, .ifMatch, .ifModifiedSince, .ifUnmodifiedSince, .ifRange,
  ]

  /// Where validators and responses are kept.
  public let store: ETagStore
  /// The policy of requests without ``policyHeader``.
  public let defaultPolicy: ETagPolicy

  /// Creates the middleware.
  /// - Parameters:
  ///   - store: Where validators and responses are kept.
  ///   - defaultPolicy: The policy of requests without ``policyHeader``; ``/MalibuCore/ETagPolicy/enabled`` by default.
  public init(store: ETagStore, defaultPolicy: ETagPolicy = .enabled) {
    self.store = store
    self.defaultPolicy = defaultPolicy
  }

  /// Adds `If-None-Match` from the store, answers a `304` with the stored response, and keeps new validators.
  /// - Parameters:
  ///   - request: The request head.
  ///   - body: The request body.
  ///   - options: The transfer options.
  ///   - next: The rest of the chain.
  /// - Returns: The response, or the stored one after a `304`.
  /// - Throws: ``StorageError`` with code ``StorageError/Code/invalidETagPolicy`` for an unknown ``policyHeader``
  ///   value, and whatever `next` throws.
  public func intercept(
    _ request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions,
    next: Next
  ) async throws -> TransportResponse {
    var request = request
    var policy = SourceRequest.current?.request.etagPolicy ?? defaultPolicy
    if let value = request.headerFields[Self.policyHeader] {
      request.headerFields[Self.policyHeader] = nil
      guard let named = ETagPolicy(rawValue: value) else {
        throw StorageError(code: .invalidETagPolicy, message: "'\(value)' is not an ETag policy (enabled, disabled)")
      }
      if SourceRequest.current?.request.etagPolicy == nil { policy = named }
    }
    guard policy == .enabled, Self.methods.contains(request.method),
      !Self.conditionalFields.contains(where: { request.headerFields.contains($0) }),
      let key = store.key(for: request, body: body)
    else { return try await next(request, body, options) }

    let entry = store.entry(forKey: key)
    var sent = request
    if let etag = entry?.etag { sent.headerFields[.ifNoneMatch] = etag }
    let response = try await next(sent, body, options)
    let status = response.head.status.code
    if status == 304, let entry, entry.etag != nil {
      response.body.cancel()
      var head = entry.head
      head.headerFields[CacheMiddleware.statusHeader] = CacheMiddleware.revalidated
      return TransportResponse(head: head, url: entry.url ?? response.url, body: ResponseBody(data: entry.body))
    }
    guard (200..<300).contains(status) else { return response }
    guard response.head.headerFields.contains(.eTag), !CacheControl(response.head.headerFields).noStore,
      (response.body.expectedLength ?? 0) <= store.maxBodyBytes
    else {
      if entry != nil { store.removeEntry(forKey: key) }
      return response
    }
    return storing(response, forKey: key)
  }

  /// The response with a body that is kept in the store once the caller has read it completely.
  private func storing(_ response: TransportResponse, forKey key: String) -> TransportResponse {
    let store = self.store
    var head = response.head
    for name in CacheMiddleware.unstoredFields where head.headerFields.contains(name) { head.headerFields[name] = nil }
    let kept = head
    let url = response.url
    let body = CachingBody(upstream: response.body, limit: store.maxBodyBytes) { data in
      store.store(ETagStore.Entry(head: kept, body: data, url: url), forKey: key)
    }
    var passed = response
    passed.body = ResponseBody(chunks: body, expectedLength: response.body.expectedLength)
    return passed
  }
}
