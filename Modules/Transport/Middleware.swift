public import HTTPTypes

/// A step around every transfer: it sees the request before the transport and the response after it, and may
/// change, retry, answer or refuse either.
///
/// ```swift
/// struct RequestID: Middleware {
///   func intercept(
///     _ request: HTTPRequest, body: RequestBody?, options: TransferOptions, next: Middleware.Next
///   ) async throws -> TransportResponse {
///     var request = request
///     request.headerFields[HTTPField.Name("X-Request-ID")!] = UUID().uuidString
///     return try await next(request, body, options)
///   }
/// }
/// let transport = CurlTransport().with(middleware: [RequestID(), logging])
/// ```
public protocol Middleware: Sendable {
  /// The rest of the chain: the next middleware, and at the end the transport.
  typealias Next = @Sendable (HTTPRequest, RequestBody?, TransferOptions) async throws -> TransportResponse

  /// Handles one transfer.
  /// - Parameters:
  ///   - request: The request head.
  ///   - body: The request body, if any.
  ///   - options: The transfer options.
  ///   - next: Sends the (possibly changed) request on; may be called more than once to retry (only with a
  ///     repeatable body) or not at all to answer from elsewhere.
  /// - Returns: The response.
  /// - Throws: Whatever the middleware or the rest of the chain throws.
  func intercept(
    _ request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions,
    next: Next
  ) async throws -> TransportResponse
}

/// A transport wrapped in middleware; the first middleware sees the request first and the response last.
public struct MiddlewareTransport: Transport {
  /// The transport at the end of the chain.
  public let transport: any Transport
  /// The middleware, outermost first.
  public let middleware: [any Middleware]

  /// Wraps a transport.
  /// - Parameters:
  ///   - transport: The transport at the end of the chain.
  ///   - middleware: The middleware, outermost first.
  public init(transport: any Transport, middleware: [any Middleware]) {
    self.transport = transport
    self.middleware = middleware
  }

  /// The wrapped transport's executor: the middleware runs wherever the caller does.
  public var taskExecutor: (any TaskExecutor)? {
    transport.taskExecutor
  }

  /// Sends the request through every middleware and then the transport.
  /// - Parameters:
  ///   - request: The request head.
  ///   - body: The request body, if any.
  ///   - options: The transfer options.
  /// - Returns: The response as the outermost middleware returns it.
  /// - Throws: Whatever the chain throws.
  public func send(
    _ request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions
  ) async throws
    -> TransportResponse
  {
    try await send(request, body: body, options: options, from: middleware.startIndex)
  }

  /// Sends the request through every middleware and then the transport, and collects the body with its metrics.
  /// - Parameters:
  ///   - request: The request head.
  ///   - body: The request body, if any.
  ///   - options: The transfer options.
  ///   - maxBytes: The largest body accepted.
  /// - Returns: The collected response, with the body's final metrics (or those that came with the head).
  /// - Throws: Whatever the chain throws; ``TransportError/Code/bodyTooLarge`` past `maxBytes`.
  public func collect(
    _ request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions,
    upTo maxBytes: Int
  ) async throws -> CollectedResponse {
    try await send(request, body: body, options: options).collected(upTo: maxBytes)
  }

  /// Hands the request to the middleware at `index`, whose `next` is the rest of the chain; past the last one, to
  /// the transport. The `next` closures are not escaping, so the chain allocates nothing per request.
  private func send(
    _ request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions,
    from index: Int
  ) async throws -> TransportResponse {
    guard index < middleware.endIndex else {
      return try await transport.send(request, body: body, options: options)
    }
    return try await middleware[index].intercept(request, body: body, options: options) { request, body, options in
      try await send(request, body: body, options: options, from: index + 1)
    }
  }
}

extension Transport {
  /// This transport wrapped in middleware.
  /// - Parameter middleware: The middleware, outermost first.
  /// - Returns: A transport that runs the middleware around this one.
  public func with(middleware: [any Middleware]) -> MiddlewareTransport {
    MiddlewareTransport(transport: self, middleware: middleware)
  }
}
