public import MalibuCore
import MalibuStorage

extension Response {
  /// Whether the response came from the networking's HTTP cache: returned without a request, or after the server
  /// answered `304 Not Modified` (then the status is the stored one, `200 OK`, and the body is the stored body) to
  /// the cache's or the ETag policy's revalidation (see `Networking.etagPolicy`). Always `false` for a networking
  /// without a cache and with the ETag policy off (the defaults; see `Networking.cache`).
  ///
  /// ```swift
  /// let response = try await networking.request(.fetchBoards).value
  /// if response.isFromCache { print("from the cache") }
  /// ```
  /// It reads the `X-Malibu-Cache` header (`hit` or `revalidated`) the cache and ETag middleware add.
  public var isFromCache: Bool {
    headers.contains(CacheMiddleware.statusHeader)
  }
}
