public import Foundation
public import HTTPTypes
import MalibuTransport

/// A response kept by the ``HTTPCache``: the head of a `200 OK` to a `GET`, its whole body, and what RFC 9111 §4.2
/// needs to tell its age.
public struct CachedResponse: Sendable {
  /// The stored status and header fields (updated by each `304 Not Modified` that revalidates it). `Set-Cookie` and
  /// hop-by-hop fields are never stored.
  public var head: HTTPResponse
  /// The whole body, as the transport delivered it (content codings already decoded).
  public var body: Data
  /// The URL the response came from, after redirects.
  public var url: URL?
  /// When the response (or the last `304` that revalidated it) was received, by the cache's clock.
  public var receivedAt: Date
  /// Its age when received: RFC 9111 §4.2.3's `corrected_initial_age`, the larger of `Age` plus the time the
  /// exchange took and the time since the `Date` it carries.
  public var initialAge: TimeInterval
  /// A salted digest of the stored request's values of every field the response's `Vary` names, or `nil` when it
  /// names none. A request is answered with this response only when its own values give the same digest.
  public var varyDigest: String?

  /// Creates a cached response.
  /// - Parameters:
  ///   - head: Status and header fields.
  ///   - body: The whole body.
  ///   - url: The final URL.
  ///   - receivedAt: When it was received.
  ///   - initialAge: Its age when received; `0` by default.
  ///   - varyDigest: The digest of the request's `Vary` fields (see ``HTTPCache/varyDigest(of:for:)``), if any.
  public init(
    head: HTTPResponse,
    body: Data,
    url: URL?,
    receivedAt: Date,
    initialAge: TimeInterval = 0,
    varyDigest: String? = nil
  ) {
    self.head = head
    self.body = body
    self.url = url
    self.receivedAt = receivedAt
    self.initialAge = initialAge
    self.varyDigest = varyDigest
  }

  /// The `ETag` validator, if the response had one.
  public var etag: String? { head.headerFields[.eTag] }
  /// The `Last-Modified` validator, if the response had one.
  public var lastModified: String? { head.headerFields[.lastModified] }

  /// How long the response is fresh after it was generated (RFC 9111 §4.2.1, for a private cache): its
  /// `Cache-Control: max-age`, else `Expires` minus `Date` (or minus the time of reception without a `Date`); an
  /// `Expires` that is not a valid HTTP date, or appears twice, means already stale. `s-maxage` is ignored (it is for
  /// shared caches), and no heuristic freshness is used: without `max-age` or `Expires` the lifetime is `0`.
  public var freshnessLifetime: TimeInterval {
    Self.freshnessLifetime(of: head, receivedAt: receivedAt)
  }

  /// The response's age at `now` (RFC 9111 §4.2.3): ``initialAge`` plus the time since ``receivedAt``.
  /// - Parameter now: The current time.
  /// - Returns: The age in seconds.
  public func currentAge(at now: Date) -> TimeInterval {
    initialAge + max(0, now.timeIntervalSince(receivedAt))
  }

  /// Whether the response may be used without asking the server at `now`: its ``freshnessLifetime`` exceeds its
  /// ``currentAge(at:)`` and it carries no `Cache-Control: no-cache`.
  /// - Parameter now: The current time.
  /// - Returns: `true` when it may be used without asking the server.
  public func isFresh(at now: Date) -> Bool {
    !CacheControl(head.headerFields).noCache && freshnessLifetime > currentAge(at: now)
  }

  /// Whether the response may be served stale when the caller's policy allows stale data: not when it says
  /// `no-cache` or `must-revalidate` (RFC 9111 §4.2.4).
  var mayBeServedStale: Bool {
    let control = CacheControl(head.headerFields)
    return !control.noCache && !control.mustRevalidate
  }

  static func freshnessLifetime(of head: HTTPResponse, receivedAt: Date) -> TimeInterval {
    let fields = head.headerFields
    if let maxAge = CacheControl(fields).maxAge { return Double(maxAge) }
    let expires = fields[values: .expires]
    guard !expires.isEmpty else { return 0 }
    guard expires.count == 1, let expiry = HTTPDate.parse(expires[0]) else { return 0 }
    let base = fields[.date].flatMap(HTTPDate.parse) ?? receivedAt
    return max(0, expiry.timeIntervalSince(base))
  }

  /// RFC 9111 §4.2.3's `corrected_initial_age` of a response whose request left at `requestTime` and which arrived
  /// at `responseTime`. An `Age` that is not `delta-seconds` counts as very old, the safe reading.
  static func initialAge(of head: HTTPResponse, requestTime: Date, responseTime: Date) -> TimeInterval {
    let fields = head.headerFields
    let ages = fields[values: .age]
    let ageValue = ages.isEmpty ? 0 : Double(ages.map { CacheControl.deltaSeconds($0, malformed: 1 << 31) }.max() ?? 0)
    let apparentAge = fields[.date].flatMap(HTTPDate.parse).map { max(0, responseTime.timeIntervalSince($0)) } ?? 0
    let responseDelay = max(0, responseTime.timeIntervalSince(requestTime))
    return max(apparentAge, ageValue + responseDelay)
  }
}
