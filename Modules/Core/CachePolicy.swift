/// How a request uses the HTTP cache.
///
/// Malibu keeps its own HTTP cache (ETag and Last-Modified revalidation) so that every transport behaves alike.
public struct CachePolicy: Hashable, Sendable, CustomStringConvertible {
  private let name: String

  private init(_ name: String) {
    self.name = name
  }

  /// Follow the response's caching headers: stored responses are revalidated with `If-None-Match` /
  /// `If-Modified-Since`, and a `304 Not Modified` is answered from the cache.
  public static let useProtocolCachePolicy = CachePolicy("useProtocolCachePolicy")
  /// Ignore the cache: send the request as is and do not add validators.
  public static let reloadIgnoringLocalCacheData = CachePolicy("reloadIgnoringLocalCacheData")
  /// Use a cached response whatever its age; load from the network only when there is none.
  public static let returnCacheDataElseLoad = CachePolicy("returnCacheDataElseLoad")
  /// Use a cached response whatever its age; fail when there is none, never touching the network.
  public static let returnCacheDataDontLoad = CachePolicy("returnCacheDataDontLoad")

  /// The policy's name, as spelled in Swift.
  public var description: String { name }
}
