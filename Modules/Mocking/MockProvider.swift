public import HTTPTypes
public import MalibuCore
public import MalibuTransport

/// Decides, endpoint by endpoint, which requests are answered by a ``Mock`` instead of the network.
///
/// ```swift
/// let mockProvider = MockProvider<SharkywatersEndpoint>(delay: 0.1) { endpoint in
///   switch endpoint {
///   case .fetchBoards: return Mock(fileName: "boards.json", bundle: .module)
///   case .showBoard: return Mock(json: ["id": 1, "title": "Balsa Fish"])
///   default: return nil  // nil → the real network
///   }
/// }
/// ```
///
/// The networking sends a mocked request through the same hooks as a real one (headers, `beforeEach`,
/// middleware, logging) and, at the point where it would call the transport, asks ``mock(for:)``; when that gives a
/// mock, ``response(for:request:)`` turns it into the `TransportResponse` the transport would have returned.
public final class MockProvider<R: RequestConvertible>: Sendable {
  /// The delay in seconds for mocks that do not set their own.
  public let delay: Double
  private let resolver: @Sendable (R) -> Mock?

  /// Creates a provider.
  /// - Parameters:
  ///   - delay: The delay in seconds before every mocked answer, unless a mock sets its own; 0 by default.
  ///   - resolver: The mock for an endpoint, or `nil` to send that request to the real network.
  public init(delay: Double = 0, resolver: @escaping @Sendable (R) -> Mock?) {
    self.delay = delay
    self.resolver = resolver
  }

  /// The mock for an endpoint.
  /// - Parameter endpoint: The endpoint being requested.
  /// - Returns: The mock, or `nil` when the request should go to the network.
  public func mock(for endpoint: R) -> Mock? {
    resolver(endpoint)
  }

  /// A transport that answers with the endpoint's mock, or `nil` when the request should go to the network.
  ///
  /// ```swift
  /// let base: any Transport = mockProvider.transport(for: endpoint) ?? realTransport
  /// ```
  /// - Parameter endpoint: The endpoint being requested.
  /// - Returns: A ``MockResponder`` with this provider's delay, or `nil`.
  public func transport(for endpoint: R) -> MockResponder? {
    mock(for: endpoint).map { MockResponder(mock: $0, defaultDelay: delay) }
  }

  /// The response a mock gives, as a transport would return it, after the mock's delay (or the provider's).
  /// - Parameters:
  ///   - mock: The mock, usually from ``mock(for:)``.
  ///   - request: The request head built for the endpoint; its URL becomes the response's URL.
  /// - Returns: The mock's head and body.
  /// - Throws: `TransportError` with code `TransportError.Code.cancelled` when the task is cancelled (during the
  ///   delay too); the mock's own `error` as it is; `NetworkError` with code
  ///   `NetworkError.Code.transportFailed` naming the file when a mock file does not exist.
  public func response(for mock: Mock, request: HTTPRequest) async throws -> TransportResponse {
    try await mock.makeResponse(for: request, defaultDelay: delay)
  }

  /// The mocked response for an endpoint, or `nil` when the resolver gives no mock for it.
  /// - Parameters:
  ///   - endpoint: The endpoint being requested.
  ///   - request: The request head built for the endpoint.
  /// - Returns: The mocked response, or `nil` when the request should go to the network.
  /// - Throws: As ``response(for:request:)``.
  public func mockedResponse(for endpoint: R, request: HTTPRequest) async throws -> TransportResponse? {
    guard let mock = mock(for: endpoint) else { return nil }
    return try await response(for: mock, request: request)
  }
}
