import HTTPTypes
@_spi(Malibu) import MalibuCore
@_spi(Malibu) import MalibuLogging
public import MalibuMocking
import MalibuTransport

extension Networking {
  /// Which requests mocks answer (a ``/MalibuMocking/MockMode``): `.mixed` by default (a request with a mock is
  /// answered by it, any other goes to the network), `.mocksOnly` (a request without a mock fails with `NetworkError`
  /// code `missingMock`, never touching the network), or `.realOnly` (mocks are ignored).
  ///
  /// ```swift
  /// networking.mockMode = .mocksOnly
  /// ```
  /// A request reads the mode when it leaves the mode's queue. Mocked or not, every request passes the same hooks
  /// (`beforeEach`, the middleware gate, encoding, `preProcessRequest`, logging, authentication); in `mocksOnly`, an
  /// unmocked request fails where the transport would be called, so it is logged like a transport failure.
  public var mockMode: MockMode {
    get { hooks.state.withLock { $0.mockMode } }
    set { hooks.update { $0.mockMode = newValue } }
  }

  /// Answers `endpoint` with `mock` from now on, in the `.mixed` and `.mocksOnly` modes (see ``mockMode``).
  ///
  /// ```swift
  /// networking.register(mock: Mock(json: ["id": 1, "title": "Balsa Fish"]), for: .showBoard(id: 1))
  /// ```
  /// Mocks are kept by the endpoint's `request` (before `beforeEach`): endpoints whose requests are equal share a
  /// mock. A registered mock wins over the ``mockProvider``'s for the same endpoint; the provider's `delay` applies to
  /// a registered mock that sets none. Registering again replaces the mock.
  /// - Parameters:
  ///   - mock: The mock.
  ///   - endpoint: The endpoint it answers.
  public func register(mock: Mock, for endpoint: R) {
    let request = endpoint.request
    hooks.update { $0.mocks[request] = mock }
  }

  /// Forgets the mock registered for `endpoint`, if any; the ``mockProvider`` answers it again.
  /// - Parameter endpoint: The endpoint.
  public func unregisterMock(for endpoint: R) {
    let request = endpoint.request
    hooks.update { $0.mocks[request] = nil }
  }

  /// Forgets every mock registered with ``register(mock:for:)``.
  public func unregisterAllMocks() {
    hooks.update { $0.mocks.removeAll() }
  }
}

extension Networking {
  /// Fails a replay at once in `.mocksOnly`: stored requests have no endpoint to mock, and that mode never touches
  /// the network.
  func refuseReplayInMocksOnlyMode(logger: NetworkLogger) throws(NetworkError) {
    guard mockMode == .mocksOnly else { return }
    let error = NetworkError(
      code: .missingMock,
      message: "replay() sends stored requests to the network, and the networking's mockMode is mocksOnly: "
        + "the stored requests are kept"
    )
    logger.log(error: error)
    throw error
  }
}

extension Networking {
  /// The transport for a request of `endpoint` (whose own `request` is `request`): a registered mock, the provider's
  /// mock, or ``transport``, by the mock mode of `hooks`; in `mocksOnly`, one that fails with `missingMock` when no
  /// mock answers it. The networking's interceptors, if any, sit above it.
  func transport(for endpoint: R, request: Request, hooks: HooksSnapshot) -> any Transport {
    let provider = mockProvider
    return hooks.transport(
      for: request,
      named: NetworkingHooks<R>.name(of: endpoint),
      defaultDelay: provider?.delay ?? 0,
      real: transport,
      providerMock: { provider?.transport(for: endpoint) }
    )
  }
}

extension HooksSnapshot {
  /// The transport for `request` by the mock mode: a registered mock, the mock provider's (`providerMock`), or `real`;
  /// in `mocksOnly`, one that fails with `missingMock` naming `name` when no mock answers. The interceptors, if any,
  /// sit above it.
  func transport(
    for request: Request,
    named name: @autoclosure () -> String,
    defaultDelay: Double,
    real: any Transport,
    providerMock: () -> (any Transport)? = { nil }
  ) -> any Transport {
    intercepting(chosenTransport(for: request, named: name, defaultDelay: defaultDelay, real: real, providerMock))
  }

  private func chosenTransport(
    for request: Request,
    named name: () -> String,
    defaultDelay: Double,
    real: any Transport,
    _ providerMock: () -> (any Transport)?
  ) -> any Transport {
    if mockMode == .realOnly { return real }
    if !mocks.isEmpty, let mock = mocks[request] {
      return MockResponder(mock: mock, defaultDelay: defaultDelay)
    }
    if let mocked = providerMock() { return mocked }
    guard mockMode == .mocksOnly else { return real }
    return MissingMockTransport(endpoint: name())
  }
}

/// What a request without a mock is sent to in `.mocksOnly`: it fails with `missingMock`, naming the
/// endpoint (its type and case, never associated values) and the path without the query, and never touches the
/// network.
struct MissingMockTransport: Transport {
  let endpoint: String

  func send(_ request: HTTPRequest, body: RequestBody?, options: TransferOptions) async throws -> TransportResponse {
    throw NetworkError(
      code: .missingMock,
      message:
        "no mock answers \(endpoint) (\(request.method) \(request.path.map { String($0.prefix { $0 != "?" }) } ?? ""))"
        + " and the networking's mockMode is mocksOnly: register one with register(mock:for:) or the mockProvider"
    )
  }
}
