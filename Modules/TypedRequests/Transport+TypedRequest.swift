public import MalibuCore
public import MalibuTransport

extension Transport {
  /// Sends a typed request with this transport alone, without a networking: the request as
  /// ``TypedRequest/makeRequest()`` makes it, its resource joined to `baseUrl`, then the response checked, decoded,
  /// finalized and post-processed (``TypedRequest/resource(from:defaultKeyPath:)``).
  ///
  /// ```swift
  /// let transport = CurlTransport()
  /// let cats = try await transport.send(GetCatImages(), baseUrl: "https://api.thecatapi.com/v1/")
  /// ```
  /// No networking hook applies (no `beforeEach`, middleware chain, mocks or failure hooks): put a
  /// `MiddlewareTransport` under it for middleware. A ``NetworkingDecoder`` decodes as `MalibuJSONDecoder()`.
  /// - Parameters:
  ///   - request: The typed request.
  ///   - baseUrl: The base URL a relative ``TypedRequest/path`` is joined to; `nil` for an absolute one.
  ///   - options: The transfer options; the defaults unless given.
  ///   - maxBytes: The largest response body accepted; `defaultMaximumResponseSize` unless given.
  /// - Returns: The final resource.
  /// - Throws: `NetworkError` for a request that cannot be built (`invalidURL`, `invalidHeader`, `encodingFailed`) or
  ///   a response that does not check or decode (as ``TypedRequest/decodeRaw(from:defaultKeyPath:)`` throws); the
  ///   transport's `TransportError` as it was thrown.
  public func send<T: TypedRequest>(
    _ request: T,
    baseUrl: (any URLStringConvertible)?,
    options: TransferOptions = TransferOptions(),
    upTo maxBytes: Int? = nil
  ) async throws -> T.FinalResource {
    let prepared = try PreparedRequest(try request.makeRequest(), baseUrl: baseUrl)
    let collected = try await collect(
      prepared.head,
      body: prepared.body,
      options: options,
      upTo: maxBytes ?? Self.defaultMaximumResponseSize
    )
    let response = Response(
      data: collected.data,
      status: collected.head.status,
      headers: collected.head.headerFields,
      request: prepared.head,
      url: collected.url,
      metrics: collected.metrics
    )
    return try await request.resource(from: response)
  }
}
