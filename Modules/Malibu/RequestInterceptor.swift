public import HTTPTypes
@_spi(Malibu) import MalibuCore
public import MalibuMocking
import MalibuTransport

/// Looks at every request of a networking just before it is sent and changes it, answers it with a mock, or lets it
/// go as it is (Netable's interceptors). Set them with `Networking.interceptors`.
///
/// ```swift
/// struct StagingMocks: RequestInterceptor {
///   func adapt(_ request: HTTPRequest) async throws -> AdaptedRequest {
///     if request.path?.hasPrefix("/api/boards") == true {
///       return .mocked(Mock(fileName: "boards.json", bundle: .module))
///     }
///     var changed = request
///     changed.headerFields[HTTPField.Name("X-Client")!] = "malibu"
///     return .changed(changed)
///   }
/// }
/// networking.interceptors = [StagingMocks()]
/// ```
public protocol RequestInterceptor: Sendable {
  /// Adapts a request.
  /// - Parameter request: The request head as the transport would get it: after `preProcessRequest` and every step
  ///   of the middleware chain (its `Authorization` field included), and after the interceptors before this one.
  /// - Returns: What to do with it.
  /// - Throws: Anything: the request then fails with `NetworkError` code `requestRejected`, the error as its cause.
  func adapt(_ request: HTTPRequest) async throws -> AdaptedRequest
}

/// What a ``RequestInterceptor`` made of a request.
public enum AdaptedRequest: Sendable {
  /// Send this head instead (the body stays as it is); the next interceptor sees it.
  case changed(HTTPRequest)
  /// Answer with this mock, without sending anything; the interceptors after this one are not asked.
  case mocked(Mock)
  /// Send the request as it is.
  case notChanged
}

extension Networking {
  /// The interceptors every request passes, in order, just above the transport: each may change the head, answer
  /// with a mock, or leave the request alone (see ``RequestInterceptor``). `[]` by default.
  ///
  /// ```swift
  /// networking.interceptors = [StagingMocks(), SigningInterceptor(key: key)]
  /// ```
  /// They sit under the middleware chain, where the transport (or an endpoint's mock) would be called: a request they
  /// change or mock has been logged, authenticated and looked up in the cache already, and a mocked answer travels
  /// back through the same steps as a real one (validation, the cache, the failure hooks). An interceptor's mock
  /// answers in every ``mockMode`` but `.realOnly`, where interceptors still change requests but their mocks are not
  /// used. Requests of endpoints, typed requests, downloads and streams pass them; ``replay()`` does not.
  public var interceptors: [any RequestInterceptor] {
    get { hooks.state.withLock { $0.interceptors } }
    set { hooks.update { $0.interceptors = newValue } }
  }
}

/// A transport that runs a networking's interceptors before handing the request to the transport under it.
struct InterceptingTransport: Transport {
  let interceptors: [any RequestInterceptor]
  let base: any Transport
  /// Whether `.mocked` answers (every mock mode but `.realOnly`).
  let mocksAllowed: Bool

  func send(_ request: HTTPRequest, body: RequestBody?, options: TransferOptions) async throws -> TransportResponse {
    let (head, mock) = try await route(request)
    if let mock { return try await MockResponder(mock: mock).send(head, body: body, options: options) }
    return try await base.send(head, body: body, options: options)
  }

  /// The base transport's collected response with its metrics, or the mock's (which has none).
  func collect(
    _ request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions,
    upTo maxBytes: Int
  ) async throws -> CollectedResponse {
    let (head, mock) = try await route(request)
    if let mock {
      return try await MockResponder(mock: mock).collect(head, body: body, options: options, upTo: maxBytes)
    }
    return try await base.collect(head, body: body, options: options, upTo: maxBytes)
  }

  /// The head after the interceptors, and the mock one of them answers with (when mocks are allowed).
  private func route(_ request: HTTPRequest) async throws -> (HTTPRequest, Mock?) {
    var head = request
    for interceptor in interceptors {
      let adapted: AdaptedRequest
      do {
        adapted = try await interceptor.adapt(head)
      } catch {
        throw NetworkError(
          code: .requestRejected,
          message: "the interceptor \(type(of: interceptor)) refused the request: \(error)",
          underlyingError: error
        )
      }
      switch adapted {
      case .notChanged:
        continue
      case .changed(let changed):
        head = changed
      case .mocked(let mock):
        guard mocksAllowed else { continue }
        return (head, mock)
      }
    }
    return (head, nil)
  }
}

extension HooksSnapshot {
  /// `base` under the interceptors, when there are any.
  func intercepting(_ base: any Transport) -> any Transport {
    guard !interceptors.isEmpty else { return base }
    return InterceptingTransport(interceptors: interceptors, base: base, mocksAllowed: mockMode != .realOnly)
  }
}
