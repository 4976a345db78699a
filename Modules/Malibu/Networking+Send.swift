import Foundation
@_spi(Malibu) import MalibuCore
@_spi(Malibu) import MalibuLogging
public import MalibuMocking
public import MalibuPromises
public import MalibuSerialization
public import MalibuTransport
public import MalibuTypedRequests

extension Networking {
  /// Where the resources of typed requests sit in their bodies, for those that name no `TypedRequest.resourceKeyPath`
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
  /// It travels the path of `request(_:)` (see `TypedRequest`), starting on the calling thread as that does;
  /// cancelling the task stops it wherever it is.
  /// - Parameter request: The typed request.
  /// - Returns: The final resource, after `TypedRequest.finalize(raw:)` and `TypedRequest.postProcess(result:)`.
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
  /// The response is checked with `validate()`'s default rule, decoded (see `TypedRequest`), finalized and
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
    launcher.launch { [self] ticket in try await perform(typed, ticket: ticket, control: control) }
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
      let base = view.transport(
        for: source,
        named: "\(T.self)",
        defaultDelay: mockProvider?.delay ?? 0,
        real: transport
      )
      return (prepared(source), base)
    }
    do {
      // `resourceKeyPath` is the networking's, for requests that name none; a GraphQL request reads inside `data`.
      return try await typed.resource(from: accepted, defaultKeyPath: resourceKeyPath)
    } catch {
      (accepted.failureReporter ?? logger).reportFailure(error, of: accepted)
      throw error
    }
  }
}
