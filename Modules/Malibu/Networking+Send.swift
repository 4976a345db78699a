import Foundation
@_spi(Malibu) import MalibuCore
@_spi(Malibu) import MalibuLogging
public import MalibuMocking
public import MalibuPromises
public import MalibuSerialization
public import MalibuTransport
import MalibuValidation

extension Networking {
  /// Where the resources of typed requests sit in their bodies, for those that name no ``TypedRequest/resourceKeyPath``
  /// of their own: ``/MalibuSerialization/ResourceKeyPath/topLevel`` (the whole body) by default. GraphQL requests
  /// read their `data`, and their own key path inside it; this one does not apply to them.
  ///
  /// ```swift
  /// networking.resourceKeyPath = "data"   // every typed request's resource is under {"data": …}
  /// ```
  public var resourceKeyPath: ResourceKeyPath {
    get { settings.withLock { $0.resourceKeyPath } }
    set { settings.withLock { $0.resourceKeyPath = newValue } }
  }

  /// Sends a typed request and returns its final resource.
  ///
  /// ```swift
  /// let cats: [CatImage] = try await networking.send(GetCatImages())
  /// ```
  /// It travels the path of `request(_:)` (see ``TypedRequest``), starting on the calling thread as that does;
  /// cancelling the task stops it wherever it is.
  /// - Parameter request: The typed request.
  /// - Returns: The final resource, after ``TypedRequest/finalize(raw:)`` and ``TypedRequest/postProcess(result:)``.
  /// - Throws: `NetworkError`, as ``request(typed:)`` rejects with.
  public func send<T: TypedRequest>(_ request: T) async throws -> T.FinalResource {
    try await start(request, control: RequestControl()).value
  }

  /// Sends a typed request with transfer options of its own (see ``request(typed:options:)``).
  ///
  /// ```swift
  /// let cats = try await networking.send(GetCatImages()) { options in options.timeouts.total = .seconds(5) }
  /// ```
  /// - Parameters:
  ///   - request: The typed request.
  ///   - options: Changes this request's transfer options.
  /// - Returns: The final resource.
  /// - Throws: `NetworkError`, as ``request(typed:)`` rejects with.
  public func send<T: TypedRequest>(
    _ request: T,
    options: @escaping @Sendable (inout TransferOptions) -> Void
  ) async throws -> T.FinalResource {
    try await start(request, control: RequestControl(options: options)).value
  }

  /// Sends a typed request and hands back the promise of its final resource.
  ///
  /// ```swift
  /// networking.request(typed: GetCatImages())
  ///   .done { cats in print(cats.count) }
  ///   .fail { error in print(error) }
  /// ```
  /// The response is checked with `validate()`'s default rule, decoded (see ``TypedRequest``), finalized and
  /// post-processed. Every failure is published to ``failures`` with the typed request
  /// (``NetworkingFailure/typedRequest``); elements a lossy array left out are published too, as `NetworkError` code
  /// `skippedElements`, while the request succeeds. Cancelling the promise stops the request wherever it is.
  /// - Parameter request: The typed request.
  /// - Returns: The promise of the final resource; rejected with a `NetworkError`: the codes of `request(_:)`, and
  ///   `unacceptableStatusCode`, `emptyResponse`, `decodingFailed`, `decodedFallback` or `graphQLErrors`.
  @discardableResult
  public func request<T: TypedRequest>(typed request: T) -> Promise<T.FinalResource> {
    start(request, control: RequestControl())
  }

  /// Sends a typed request with transfer options of its own: `options` changes a copy of ``transferOptions`` for
  /// this request alone.
  /// - Parameters:
  ///   - request: The typed request.
  ///   - options: Changes this request's transfer options.
  /// - Returns: The promise of the final resource.
  @discardableResult
  public func request<T: TypedRequest>(
    typed request: T,
    options: @escaping @Sendable (inout TransferOptions) -> Void
  ) -> Promise<T.FinalResource> {
    start(request, control: RequestControl(options: options))
  }

  /// Answers a typed request with `mock` from now on, in the `.mixed` and `.mocksOnly` modes (see ``mockMode``),
  /// as `register(mock:for:)` does for an endpoint: requests equal to `request`'s `makeRequest()` share it.
  ///
  /// ```swift
  /// try networking.register(mock: Mock(fileName: "cats.json", bundle: .module), forTyped: GetCatImages())
  /// ```
  /// - Parameters:
  ///   - mock: The mock.
  ///   - request: The typed request it answers.
  /// - Throws: `NetworkError` code `encodingFailed` when the request's parameters cannot be read.
  public func register<T: TypedRequest>(mock: Mock, forTyped request: T) throws(NetworkError) {
    let key = try request.makeRequest()
    hooks.update { $0.mocks[key] = mock }
  }

  /// Starts a typed request: a flight and a place in the mode's queue, as `request(_:)` does.
  private func start<T: TypedRequest>(_ typed: T, control: RequestControl) -> Promise<T.FinalResource> {
    launch { [self] ticket in try await perform(typed, ticket: ticket, control: control) }
  }

  /// One typed request, from its description to its final resource.
  private func perform<T: TypedRequest>(
    _ typed: T,
    ticket: RequestLimiter.Ticket,
    control: RequestControl
  ) async throws -> T.FinalResource {
    let logger = control.logger ?? self.logger
    let built = Result { () throws(NetworkError) in try typed.makeRequest() }
    let named = (try? built.get()) ?? Request(method: typed.method, resource: typed.path)
    let subject = NetworkingHooks<R>.Subject.typed(typed, named)
    let accepted = try await perform(subject, ticket: ticket, control: control) { view in
      let source: Request
      do {
        source = try built.get()
      } catch {
        logger.log(error: error)
        throw hooks.failed(subject, request: named, error: error)
      }
      let base = (view ?? .plain).transport(
        for: source,
        named: "\(T.self)",
        defaultDelay: mockProvider?.delay ?? 0,
        real: transport
      )
      return (prepared(source), base)
    }
    // A GraphQL resource is under `data` already: the networking's key path is for the envelopes of REST APIs.
    let keyPath = typed.resourceKeyPath ?? (typed is any GraphQLRequest ? .topLevel : resourceKeyPath)
    do {
      return try await Self.resource(of: typed, from: accepted, at: keyPath)
    } catch {
      (accepted.failureReporter ?? logger).reportFailure(error, of: accepted)
      throw error
    }
  }

  /// The final resource of a typed request's response: validated, decoded (or its fallback), finalized and
  /// post-processed; left-out elements are reported on the way.
  static func resource<T: TypedRequest>(
    of typed: T,
    from response: Response,
    at keyPath: ResourceKeyPath
  ) async throws -> T.FinalResource {
    let graphQL = typed as? any GraphQLRequest
    // GraphQL errors first: a server may send them with a 4xx status, and they say more than the status does.
    try graphQL?.checkErrors(in: response)
    _ = try response.validate()
    let decoded: DecodedResource<T.RawResource>
    switch decode(typed, graphQL: graphQL, from: response, at: keyPath) {
    case .success(let value):
      decoded = value
    case .failure(let error):
      guard error.code == .decodingFailed, T.FallbackResource.self != NoFallback.self else { throw error }
      throw fallback(of: typed, from: response, at: keyPath, primaryError: error)
    }
    if let skipped = decoded.skipped {
      let report = NetworkError.skipped(skipped, of: T.RawResource.self, in: response)
      response.failureReporter?.reportFailure(report, of: response)
    }
    let final: T.FinalResource
    do {
      final = try await typed.finalize(raw: decoded.value)
    } catch let error as NetworkError {
      throw error
    } catch {
      throw NetworkError(
        code: .decodingFailed,
        message: "\(T.self).finalize(raw:) could not make \(T.FinalResource.self) from \(T.RawResource.self): \(error)",
        response: response,
        underlyingError: error
      )
    }
    return typed.postProcess(result: final)
  }

  /// The raw resource of a typed request: from the body, or from a GraphQL response's `data`.
  private static func decode<T: TypedRequest>(
    _ typed: T,
    graphQL: (any GraphQLRequest)?,
    from response: Response,
    at keyPath: ResourceKeyPath
  ) -> Result<DecodedResource<T.RawResource>, NetworkError> {
    Result { () throws(NetworkError) in
      if let graphQL {
        return try graphQL.decodeData(T.RawResource.self, from: response, at: keyPath)
      }
      return try response.decodeResource(
        T.RawResource.self,
        resolving: typed.decoder,
        at: keyPath,
        arrays: typed.arrayDecoding
      )
    }
  }

  /// The error of a request whose resource did not decode: `decodedFallback` carrying the fallback resource when it
  /// decodes, else `decodingFailed` naming both failures.
  private static func fallback<T: TypedRequest>(
    of typed: T,
    from response: Response,
    at keyPath: ResourceKeyPath,
    primaryError: NetworkError
  ) -> NetworkError {
    do {
      let fallback = try response.decodeResource(
        T.FallbackResource.self,
        resolving: typed.decoder,
        at: keyPath,
        arrays: .strict
      )
      return NetworkError(
        code: .decodedFallback,
        message: "\(T.RawResource.self) did not decode, and the fallback \(T.FallbackResource.self) did: "
          + primaryError.message,
        response: response,
        underlyingError: DecodedFallback(value: fallback.value, primaryError: primaryError)
      )
    } catch {
      return NetworkError(
        code: .decodingFailed,
        message: "\(primaryError.message); the fallback did not decode either: \(error.message)",
        response: response,
        underlyingError: primaryError.underlyingError
      )
    }
  }
}
