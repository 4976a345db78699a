package import HTTPTypes
package import MalibuCore
package import MalibuTransport

extension CacheMiddleware {
  /// The cache step of a chain that has no ``HTTPCache`` (the facade's default): it removes ``policyHeader`` and
  /// fails a `GET` under `returnCacheDataDontLoad` with ``StorageError/Code/cacheMiss``, since nothing can answer it
  /// without loading; every other request goes on unchanged.
  package struct Uncached: Middleware {
    /// The request's cache policy.
    let policy: CachePolicy

    /// Creates the step for one request.
    /// - Parameter policy: The request's cache policy.
    package init(policy: CachePolicy) {
      self.policy = policy
    }

    /// Whether the step would only hand `request` on: anything but a `GET` under `returnCacheDataDontLoad`, without
    /// a ``CacheMiddleware/policyHeader`` to remove.
    /// - Parameter request: The request head.
    /// - Returns: `true` when ``intercept(_:body:options:next:)`` would only call `next`.
    package func passesThrough(_ request: HTTPRequest) -> Bool {
      !refuses(request) && !request.headerFields.contains(CacheMiddleware.policyHeader)
    }

    /// Refuses a `GET` under `returnCacheDataDontLoad`, and passes anything else on without the policy field.
    /// - Parameters:
    ///   - request: The request head.
    ///   - body: The request body.
    ///   - options: The transfer options.
    ///   - next: The rest of the chain.
    /// - Returns: What `next` returns.
    /// - Throws: ``StorageError`` with code ``StorageError/Code/cacheMiss``, and whatever `next` throws.
    package func intercept(
      _ request: HTTPRequest,
      body: RequestBody?,
      options: TransferOptions,
      next: Next
    ) async throws -> TransportResponse {
      guard !refuses(request) else {
        throw StorageError(
          code: .cacheMiss,
          message: "returnCacheDataDontLoad: there is no HTTP cache to answer GET \(CacheMiddleware.describe(request))"
            + ", and loading is not allowed"
        )
      }
      var request = request
      request.headerFields[CacheMiddleware.policyHeader] = nil
      return try await next(request, body, options)
    }

    private func refuses(_ request: HTTPRequest) -> Bool {
      request.method == .get && policy == .returnCacheDataDontLoad
    }
  }
}
