public import HTTPTypes
public import MalibuTransport

/// A `Transport` that answers every request with one ``Mock``: what the networking puts where the real transport
/// would be for a mocked endpoint, so the mocked request passes through the same middleware as a real one.
///
/// ```swift
/// let base: any Transport = mockProvider.transport(for: endpoint) ?? realTransport
/// let chained = MiddlewareTransport(transport: base, middleware: chain)
/// let response = try await chained.send(head, body: body, options: options)
/// ```
///
/// The request body is not read. Errors are those of ``MockProvider/response(for:request:)``: a cancellation
/// `TransportError`, the mock's own error as it is, or a `NetworkError` for a mock file that does not exist.
public struct MockResponder: Transport {
  /// The mock every request is answered with.
  public let mock: Mock
  /// The delay in seconds used when the mock sets none.
  public let defaultDelay: Double

  /// Creates a responder.
  /// - Parameters:
  ///   - mock: The mock to answer with.
  ///   - defaultDelay: The delay in seconds when the mock sets none; 0 by default.
  public init(mock: Mock, defaultDelay: Double = 0) {
    self.mock = mock
    self.defaultDelay = defaultDelay
  }

  /// Answers with the mock, after its delay.
  /// - Parameters:
  ///   - request: The request head; its URL becomes the response's URL.
  ///   - body: Ignored.
  ///   - options: Ignored.
  /// - Returns: The mock's head and body.
  /// - Throws: As ``MockProvider/response(for:request:)``.
  public func send(
    _ request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions
  ) async throws -> TransportResponse {
    try await mock.makeResponse(for: request, defaultDelay: defaultDelay)
  }
}
