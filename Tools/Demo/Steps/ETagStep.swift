import Malibu

/// With `etagPolicy = .enabled`, the `ETag` of an answer is kept, the next identical request asks with
/// `If-None-Match`, and the server's `304 Not Modified` reaches the caller as the stored response, marked
/// `X-Malibu-Cache: revalidated` (`isFromCache`). A request that sends `If-None-Match` itself gets the `304` as it is.
enum ETagStep {
  static func run(_ options: DemoOptions) async throws {
    let networking = Networking<HttpbinEndpoint>()
    networking.etagPolicy = .enabled

    let first = try await networking.request(.etag("tour-1")).validate().value
    try expect(!first.isFromCache, "the first GET /etag/tour-1 came from the store")
    let etag = first.headers[.eTag] ?? "none"
    report("GET /etag/tour-1: \(first.statusCode), ETag \(etag), \(first.data.count.byteCount) kept")

    let second = try await networking.request(.etag("tour-1")).validate().value
    let marker = second.headers[CacheMiddleware.statusHeader] ?? "none"
    try expect(
      marker == "revalidated" && second.data == first.data,
      "the second GET /etag/tour-1 was not answered from the store after a 304 (X-Malibu-Cache: \(marker))"
    )
    report(
      "again: sent with If-None-Match, httpbin said 304, the caller got \(second.statusCode) with the stored body "
        + "(X-Malibu-Cache: \(marker), isFromCache \(second.isFromCache))"
    )

    let own = try await networking.request(.etag("tour-1", ifNoneMatch: etag)).value
    try expect(own.statusCode == 304 && !own.isFromCache, "an own If-None-Match got \(own.statusCode)")
    report("with an If-None-Match of the caller's own: httpbin's \(own.statusCode) as it is")
  }
}
