public import MalibuCore

extension CachePolicy {
  /// The policy's name as carried in the `X-Malibu-Cache-Policy` header (see ``CacheMiddleware/policyHeader``)
  /// and in stored entries: `useProtocolCachePolicy`, `reloadIgnoringLocalCacheData`, `returnCacheDataElseLoad`
  /// or `returnCacheDataDontLoad`.
  public var headerValue: String { description }

  /// The policy named by a header value.
  /// - Parameter headerValue: One of the names listed under ``headerValue``.
  public init?(headerValue: String) {
    let all: [CachePolicy] = [
      .useProtocolCachePolicy, .reloadIgnoringLocalCacheData, .returnCacheDataElseLoad, .returnCacheDataDontLoad,
    ]
    guard let policy = all.first(where: { $0.description == headerValue }) else { return nil }
    self = policy
  }
}
