public import Foundation
public import HTTPTypes

/// A response kept by the ``HTTPCache``: the head of a `200 OK` to a `GET`, its whole body, and when it was stored.
public struct CachedResponse: Sendable {
  /// The stored status and header fields (updated by each `304 Not Modified` that revalidates it).
  public var head: HTTPResponse
  /// The whole body, as the transport delivered it (content codings already decoded).
  public var body: Data
  /// The URL the response came from, after redirects.
  public var url: URL?
  /// When the response was received (or last revalidated), minus any `Age` the server reported.
  public var storedAt: Date

  /// Creates a cached response.
  /// - Parameters:
  ///   - head: Status and header fields.
  ///   - body: The whole body.
  ///   - url: The final URL.
  ///   - storedAt: When it was received.
  public init(head: HTTPResponse, body: Data, url: URL?, storedAt: Date) {
    self.head = head
    self.body = body
    self.url = url
    self.storedAt = storedAt
  }

  /// The `ETag` validator, if the response had one.
  public var etag: String? { head.headerFields[.eTag] }
  /// The `Last-Modified` validator, if the response had one.
  public var lastModified: String? { head.headerFields[.lastModified] }

  /// Whether the response is still fresh at `now`: its `Cache-Control: max-age` has not run out and it carries no
  /// `no-cache`. A response without `max-age` is never fresh (it is always revalidated).
  /// - Parameter now: The current time.
  /// - Returns: `true` when it may be used without asking the server.
  public func isFresh(at now: Date) -> Bool {
    let control = CacheControl(head.headerFields)
    guard !control.noCache, let maxAge = control.maxAge else { return false }
    return now.timeIntervalSince(storedAt) < Double(maxAge)
  }
}
