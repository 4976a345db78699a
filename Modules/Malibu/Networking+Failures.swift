@_spi(Malibu) public import MalibuCore
public import MalibuTypedRequests

/// One failed request of a networking, as its failure hooks see it.
///
/// ```swift
/// for await failure in networking.failures {
///   print(failure.endpoint.map { "\($0)" } ?? "typed", failure.request.method, failure.error)
/// }
/// ```
public struct NetworkingFailure<R: RequestConvertible>: Sendable {
  /// The endpoint of the request; `nil` for a typed request (see ``typedRequest``).
  public let endpoint: R?
  /// The typed request sent with `send(_:)`, or `nil` for a request of an endpoint.
  public let typedRequest: (any TypedRequest)?
  /// The endpoint's request, after ``Networking/beforeEach`` when the failure happened after it ran.
  public let request: Request
  /// The error, as the caller receives it: a `NetworkError` for transport, gate, encoding, validation and conversion
  /// failures; the error a `validate(using:)` validator or the networking's ``Networking/validate`` hook threw, as
  /// it was thrown.
  public let error: any Error
  /// The response, for a failure of the networking's `validate` hook or of `validate()`, `toX()` or `decode()` on it.
  public let response: Response?

  /// The error as a `NetworkError`, when it is one.
  public var networkError: NetworkError? { error as? NetworkError }

  /// Creates a failure.
  /// - Parameters:
  ///   - endpoint: The endpoint.
  ///   - request: The endpoint's request.
  ///   - error: The error.
  ///   - response: The response it is about, if any.
  public init(endpoint: R, request: Request, error: any Error, response: Response? = nil) {
    self.endpoint = endpoint
    typedRequest = nil
    self.request = request
    self.error = error
    self.response = response
  }

  /// Creates a failure of a typed request.
  /// - Parameters:
  ///   - typedRequest: The typed request.
  ///   - request: The `Request` it was sent as.
  ///   - error: The error.
  ///   - response: The response it is about, if any.
  public init(typedRequest: any TypedRequest, request: Request, error: any Error, response: Response? = nil) {
    endpoint = nil
    self.typedRequest = typedRequest
    self.request = request
    self.error = error
    self.response = response
  }
}

extension Networking {
  /// How many failures a subscriber of ``failures`` that does not keep up holds before the oldest are dropped.
  public static var failureBufferSize: Int { 256 }

  /// Every failed request of this networking from now on, for as long as the sequence (or an iterator of it) lives.
  ///
  /// ```swift
  /// let failures = networking.failures
  /// Task {
  ///   for await failure in failures { print("\(failure.request.resource.urlString) failed: \(failure.error)") }
  /// }
  /// ```
  /// Each access is a subscriber of its own, and every subscriber gets every failure that happens after it
  /// subscribed: transport failures, the ``middleware`` gate's rejections, requests that cannot be encoded, the
  /// `stopped` and `missingMock` errors, the ``validate`` hook's errors, and the failures of `validate()`, the `toX()`
  /// conversions and `decode()` on this networking's responses (of requests that left the mode's queue while something
  /// was subscribed or a hook was set: only those responses carry a reporter of their own). Cancellations are not failures and never appear, nor do ``replay()``'s requests
  /// (their outcomes are the replay's value). A subscriber that falls behind keeps the newest
  /// ``failureBufferSize`` failures. Independent of logging: it works with logging at `LogLevel.none`. A typed request's
  /// failures (`send(_:)`) name it in ``NetworkingFailure/typedRequest``, with no endpoint; the elements a lossy array
  /// left out of a resource are published too, as `NetworkError` code `skippedElements` (the request succeeds, and
  /// ``shouldContinue`` is not asked about them).
  public var failures: AsyncStream<NetworkingFailure<R>> {
    hooks.subscribe(bufferingNewest: Self.failureBufferSize)
  }

  /// Called with every failure ``failures`` publishes, on the thread where it happened, before the request's promise
  /// is rejected; `nil` by default.
  ///
  /// ```swift
  /// networking.onFailure = { failure in metrics.increment("api.failures", endpoint: failure.request.resource.urlString) }
  /// ```
  /// It must not block, and must not call back into this networking while holding a lock the networking's hooks take.
  public var onFailure: (@Sendable (NetworkingFailure<R>) -> Void)? {
    get { hooks.state.withLock { $0.onFailure } }
    set { hooks.update { $0.onFailure = newValue } }
  }

  /// Decides, for each failure, whether this networking keeps serving requests (Nikka's provider hook); `nil`, the
  /// default, always keeps serving.
  ///
  /// ```swift
  /// networking.shouldContinue = { failure in
  ///   failure.networkError?.response?.statusCode != 401  // a revoked token: stop until the user signs in again
  /// }
  /// ```
  /// It sees the failures ``failures`` publishes (a `401` is a failure once `validate()` or the ``validate`` hook
  /// says so), before ``onFailure``. When it returns `false` the networking stops: every request started later, and
  /// every request still waiting in the mode's queue when its turn comes, fails at once with `NetworkError` code
  /// `stopped` (its `underlyingError` is the failure's error) without being sent, until ``resume()``. Requests past
  /// the queue (at the middleware gate or transferring) finish as they would: call ``cancelAllRequests()`` to end
  /// them too. While stopped it is not asked again.
  public var shouldContinue: (@Sendable (NetworkingFailure<R>) -> Bool)? {
    get { hooks.state.withLock { $0.shouldContinue } }
    set { hooks.update { $0.shouldContinue = newValue } }
  }

  /// Whether ``shouldContinue`` stopped this networking (until ``resume()``).
  public var isStopped: Bool { hooks.state.withLock { $0.stop != nil } }

  /// The failure after which ``shouldContinue`` stopped this networking, or `nil` while it serves requests.
  public var stoppingFailure: NetworkingFailure<R>? { hooks.state.withLock { $0.stop } }

  /// Serves requests again after ``shouldContinue`` stopped the networking; does nothing otherwise.
  ///
  /// ```swift
  /// networking.authenticate(bearerToken: newToken)
  /// networking.resume()
  /// ```
  public func resume() {
    hooks.update { $0.stop = nil }
  }

  /// Checks every response of this networking, mocked, cached or real, before its promise resolves (Nikka's provider
  /// `validate`); `nil` by default.
  ///
  /// ```swift
  /// struct APIError: Error { let code: Int }
  /// networking.validate = { response in
  ///   if response.statusCode == 200, let error = try? JSONDecoder().decode(APIErrorBody.self, from: response.data) {
  ///     throw APIError(code: error.code)
  ///   }
  /// }
  /// ```
  /// An error it throws rejects the request's promise as it was thrown (`catch let error as APIError` works; it is
  /// not wrapped in a `NetworkError`), is logged through ``logger``, and is published to ``failures``,
  /// ``onFailure`` and ``shouldContinue``.
  public var validate: (@Sendable (Response) throws -> Void)? {
    get { hooks.state.withLock { $0.validate } }
    set { hooks.update { $0.validate = newValue } }
  }
}
