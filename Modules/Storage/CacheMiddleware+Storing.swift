import Foundation
import HTTPTypes
import MalibuCore
import MalibuTransport

extension CacheMiddleware {
  /// Fields never kept in a stored head: `Set-Cookie` (a secret, and meant for one response only) and the hop-by-hop
  /// fields of RFC 9110 §7.6.1.
  static let unstoredFields: Set<HTTPField.Name> = [
    .setCookie, .connection, HTTPField.Name("Keep-Alive")!, HTTPField.Name("Proxy-Connection")!, .transferEncoding,
    .te, .upgrade, HTTPField.Name("Trailer")!, statusHeader,
  ]

  /// The policy of a transfer: the current ``SourceRequest``'s, else the one named in ``policyHeader``, else
  /// `useProtocolCachePolicy`.
  static func policy(of request: HTTPRequest) throws(StorageError) -> CachePolicy {
    if let source = SourceRequest.current { return source.request.cachePolicy }
    guard let value = request.headerFields[policyHeader] else { return .useProtocolCachePolicy }
    guard let policy = CachePolicy(headerValue: value) else {
      throw StorageError(code: .invalidCachePolicy, message: "'\(value)' is not a cache policy")
    }
    return policy
  }

  /// The request's URL without its query (which may carry a token), for error messages.
  static func describe(_ request: HTTPRequest) -> String {
    let path = request.path.map { String($0.prefix { $0 != "?" }) } ?? ""
    return "\(request.scheme ?? "")://\(request.authority ?? "")\(path)"
  }

  /// A hit: the stored response with `Age` set to its current age (RFC 9111 §5.1).
  static func answer(_ entry: CachedResponse, at now: Date) -> TransportResponse {
    var entry = entry
    let age = min(entry.currentAge(at: now), Double(1 << 31))
    entry.head.headerFields[.age] = String(Int(age))
    return answer(entry, status: hit)
  }

  static func answer(_ entry: CachedResponse, status: String) -> TransportResponse {
    var head = entry.head
    head.headerFields[statusHeader] = status
    return TransportResponse(head: head, url: entry.url, body: ResponseBody(data: entry.body))
  }

  /// The names a response's `Vary` lists, lower-cased, sorted and without repeats; `nil` for `Vary: *` or a name
  /// that is not a field name, which no request can match.
  static func varyNames(of head: HTTPResponse) -> [String]? {
    var names: Set<String> = []
    for value in head.headerFields[values: .vary] {
      for name in value.split(separator: ",") {
        let trimmed = name.trimmingCharacters(in: .whitespaces).lowercased()
        if trimmed.isEmpty { continue }
        guard trimmed != "*", HTTPField.Name(trimmed) != nil else { return nil }
        names.insert(trimmed)
      }
    }
    return names.sorted()
  }

  /// Whether `request` has the values the stored request had for every field the entry's `Vary` names.
  func matchesVary(_ entry: CachedResponse, _ request: HTTPRequest) -> Bool {
    guard let names = Self.varyNames(of: entry.head) else { return false }
    return cache.varyDigest(of: request, for: names) == entry.varyDigest
  }

  /// The stored entry with the header fields of a `304` merged in (they describe the same representation), received
  /// now, its age taken afresh from the `304`.
  func revalidate(_ entry: CachedResponse, with head: HTTPResponse, requestTime: Date) -> CachedResponse {
    var updated = entry
    let skipped = Self.unstoredFields.union([.contentLength, .contentEncoding, .contentType])
    var seen: Set<HTTPField.Name> = []
    for field in head.headerFields where !skipped.contains(field.name) && seen.insert(field.name).inserted {
      updated.head.headerFields[fields: field.name] = head.headerFields[fields: field.name]
    }
    let responseTime = cache.now()
    updated.receivedAt = responseTime
    updated.initialAge = CachedResponse.initialAge(of: head, requestTime: requestTime, responseTime: responseTime)
    return updated
  }

  /// Whether a `200` to a `GET` may be stored (RFC 9111 §3, for a private cache): neither side said `no-store`,
  /// `Vary` is not `*`, it has a validator or a positive freshness lifetime (an entry that must always be revalidated
  /// is no use without a validator), and its announced length fits.
  func isStorable(_ response: TransportResponse, requestControl: CacheControl) -> Bool {
    let fields = response.head.headerFields
    let control = CacheControl(fields)
    guard !requestControl.noStore, !control.noStore, Self.varyNames(of: response.head) != nil else { return false }
    let hasValidator = fields.contains(.eTag) || fields.contains(.lastModified)
    let lifetime = CachedResponse.freshnessLifetime(of: response.head, receivedAt: cache.now())
    guard hasValidator || (lifetime > 0 && !control.noCache) else { return false }
    if let length = response.body.expectedLength, length > cache.maxBodyBytes { return false }
    return true
  }

  /// The response with a body that is stored in the cache once the caller has read it completely.
  func storing(
    _ response: TransportResponse,
    request: HTTPRequest,
    key: String,
    requestTime: Date
  ) -> TransportResponse {
    let cache = self.cache
    var head = response.head
    for name in Self.unstoredFields where head.headerFields.contains(name) { head.headerFields[name] = nil }
    let url = response.url
    let responseTime = cache.now()
    let initialAge = CachedResponse.initialAge(of: head, requestTime: requestTime, responseTime: responseTime)
    let varyDigest = Self.varyNames(of: head).flatMap { cache.varyDigest(of: request, for: $0) }
    let stored = head
    let body = CachingBody(upstream: response.body, limit: cache.maxBodyBytes) { data in
      let entry = CachedResponse(
        head: stored,
        body: data,
        url: url,
        receivedAt: responseTime,
        initialAge: initialAge,
        varyDigest: varyDigest
      )
      cache.store(entry, forKey: key)
    }
    var passed = response
    passed.body = ResponseBody(chunks: body, expectedLength: response.body.expectedLength)
    return passed
  }
}
