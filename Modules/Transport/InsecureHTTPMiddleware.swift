public import HTTPTypes

/// Applies ``TransferOptions/insecureHTTP`` as a step of the chain, before any other step or transport sees the
/// request: a mock, a cache or an offline store then never answers an `http://` request that the policy refuses, and
/// an upgraded request reaches them as `https://`. The transports apply the policy themselves too (to redirects as
/// well), so this step matters for what answers without a transport.
///
/// ```swift
/// var options = TransferOptions()
/// options.insecureHTTP = .refuse
/// let transport = MockTransport().with(middleware: [InsecureHTTPMiddleware()])
/// // an http:// request now fails with TransportError code insecureScheme, as it would on curl or URLSession
/// ```
public struct InsecureHTTPMiddleware: Middleware {
  /// Creates the step.
  public init() {}

  /// Refuses or upgrades an `http://` request by `options.insecureHTTP`, then passes it on.
  /// - Parameters:
  ///   - request: The request head.
  ///   - body: The request body, if any.
  ///   - options: The transfer options, whose `insecureHTTP` applies.
  ///   - next: The rest of the chain.
  /// - Returns: The response.
  /// - Throws: ``TransportError`` with ``TransportError/Code/insecureScheme`` under ``InsecureHTTPPolicy/refuse``;
  ///   whatever the rest of the chain throws.
  public func intercept(
    _ request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions,
    next: Next
  ) async throws -> TransportResponse {
    try await next(options.insecureHTTP.apply(to: request), body, options)
  }
}
