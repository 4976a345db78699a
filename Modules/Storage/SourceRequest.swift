public import MalibuCore

/// The `Request` a transfer in progress was made from, for the steps of a middleware chain that see only the HTTP head
/// and yet act on the request's policies: ``CacheMiddleware`` reads its `cachePolicy`, ``OfflineStoreMiddleware``
/// saves it when its `storePolicy` is `.offline` and the host cannot be reached.
///
/// It travels as a task-local value around one transfer, so a chain built once serves requests with any policies:
///
/// ```swift
/// let chain = transport.with(middleware: [CacheMiddleware(cache: cache), OfflineStoreMiddleware(store: store)])
/// let request = Request.delete("boards/1", storePolicy: .offline)
/// let response = try await SourceRequest.$current.withValue(SourceRequest(request, baseUrl: baseUrl)) {
///   try await chain.send(head, body: body, options: options)
/// }
/// ```
/// Without a current value the cache reads the policy from ``CacheMiddleware/policyHeader`` and the offline store
/// saves nothing.
public struct SourceRequest: Sendable {
  /// The request, after every change made to it before encoding (`beforeEach` in the facade).
  public var request: Request
  /// The base URL its resource is joined to, for the URL the offline store keeps; `nil` for an absolute resource.
  public var baseUrl: (any URLStringConvertible)?

  /// The request of the transfer the current task is running, if its sender set one.
  @TaskLocal public static var current: SourceRequest?

  /// Describes the request behind a transfer.
  /// - Parameters:
  ///   - request: The request.
  ///   - baseUrl: The base URL its resource is joined to.
  public init(_ request: Request, baseUrl: (any URLStringConvertible)? = nil) {
    self.request = request
    self.baseUrl = baseUrl
  }
}
