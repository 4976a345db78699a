package import HTTPTypes
import MalibuCore
package import MalibuTransport

extension CacheMiddleware {
  /// The cache step of a chain that has no ``HTTPCache`` (the facade's default): it removes ``policyHeader`` and
  /// fails a `GET` whose policy (the current ``SourceRequest``'s, else ``policyHeader``'s) is
  /// `returnCacheDataDontLoad` with ``StorageError/Code/cacheMiss``, since nothing can answer it without loading;
  /// every other request goes on unchanged.
  package struct Uncached: Middleware {
    /// Creates the step.
    package init() {}

    /// Refuses a `GET` under `returnCacheDataDontLoad`, and passes anything else on without the policy field.
    /// - Parameters:
    ///   - request: The request head.
    ///   - body: The request body.
    ///   - options: The transfer options.
    ///   - next: The rest of the chain.
    /// - Returns: What `next` returns.
    /// - Throws: ``StorageError`` with code ``StorageError/Code/cacheMiss`` (or
    ///   ``StorageError/Code/invalidCachePolicy`` for an unknown name in ``policyHeader``), and whatever `next` throws.
    package func intercept(
      _ request: HTTPRequest,
      body: RequestBody?,
      options: TransferOptions,
      next: Next
    ) async throws -> TransportResponse {
      if request.method == .get, try CacheMiddleware.policy(of: request) == .returnCacheDataDontLoad {
        throw StorageError(
          code: .cacheMiss,
          message: "returnCacheDataDontLoad: there is no HTTP cache to answer GET \(CacheMiddleware.describe(request))"
            + ", and loading is not allowed"
        )
      }
      guard request.headerFields.contains(CacheMiddleware.policyHeader) else {
        return try await next(request, body, options)
      }
      var request = request
      request.headerFields[CacheMiddleware.policyHeader] = nil
      return try await next(request, body, options)
    }
  }
}
