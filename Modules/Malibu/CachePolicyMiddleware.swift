import HTTPTypes
import MalibuCore
import MalibuStorage
import MalibuTransport

/// Puts a request's cache policy into `X-Malibu-Cache-Policy` just before `CacheMiddleware`, which removes it
/// again: `preProcessRequest` and the logger never see the header, and the server never gets it.
struct CachePolicyMiddleware: Middleware {
  let policy: CachePolicy

  func intercept(
    _ request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions,
    next: Next
  ) async throws -> TransportResponse {
    var request = request
    request.headerFields[CacheMiddleware.policyHeader] = policy.headerValue
    return try await next(request, body, options)
  }
}
