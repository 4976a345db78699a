import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuCore
@_spi(Malibu) import MalibuLogging
import MalibuPromises
import MalibuStorage
import MalibuTransport

extension Networking {
  /// One request, from the endpoint to the response.
  ///
  /// This and the steps below it are `nonisolated(nonsending)`: they run where their caller (the request's task)
  /// runs, with no check of the task's executor at each call and return, which a task started with `Task.immediate`
  /// pays for with a lock each time.
  nonisolated(nonsending) func perform(
    _ endpoint: R,
    ticket: RequestLimiter.Ticket,
    control: RequestControl
  ) async throws -> Response {
    try await perform(.endpoint(endpoint), ticket: ticket, control: control) { view in
      resolve(endpoint, hooks: view)
    }
  }

  /// The steps every collected request takes: its turn in the queue, the hooks' admission, its request and transport
  /// from `resolve` (given the hooks), the chain, the hooks' acceptance.
  nonisolated(nonsending) func perform(
    _ subject: NetworkingHooks<R>.Subject,
    ticket: RequestLimiter.Ticket,
    control: RequestControl,
    resolve: (HooksSnapshot) throws -> (request: Request, transport: any Transport)
  ) async throws -> Response {
    let logger = control.logger ?? self.logger
    try hooks.checkServing(subject, logger: logger, abandoning: ticket, of: limiter)
    try await limiter.wait(for: ticket)
    defer { limiter.release() }
    let view = try hooks.admit(subject, logger: logger)
    let (request, base) = try resolve(view)
    let response: Response
    do {
      response = try await collect(
        request,
        of: subject.endpoint,
        through: base,
        storingOffline: true,
        control: control
      )
    } catch {
      throw hooks.failed(subject, request: request, error: error)
    }
    return try hooks.accept(response, as: view, of: subject, request: request, logger: logger)
  }

  /// ``resolve(_:hooks:)`` with the hooks as they are now (downloads and streams).
  /// - Throws: `NetworkError` code `stopped` while the networking is stopped (see `shouldContinue`).
  func resolve(_ endpoint: R) throws -> (request: Request, transport: any Transport) {
    try resolve(endpoint, hooks: hooks.admit(endpoint, logger: logger))
  }

  /// The endpoint's request after ``beforeEach``, and the transport under the chain for it, by the mock mode: a mock
  /// registered for the endpoint, the mock provider's answer, else ``transport`` (see ``transport(for:request:hooks:)``).
  func resolve(_ endpoint: R, hooks: HooksSnapshot) -> (request: Request, transport: any Transport) {
    let request = endpoint.request
    let base = transport(for: endpoint, request: request, hooks: hooks)
    return (prepared(request), base)
  }

  /// `request` after ``beforeEach``, with the session configuration's cache policy when it names none of its own.
  func prepared(_ request: Request) -> Request {
    var request = request
    let (beforeEach, sessionCachePolicy) = settings.withLock { ($0.beforeEach, $0.sessionCachePolicy) }
    if let beforeEach {
      request = beforeEach(request)
    }
    request.adoptCachePolicy(sessionCachePolicy)
    return request
  }

  /// One request taking its turn in the mode's queue, without `beforeEach` (used by ``replay()``).
  func sendInTurn(_ request: Request) async throws -> Response {
    var request = request
    request.adoptCachePolicy(settings.withLock { $0.sessionCachePolicy })
    let ticket = limiter.reserve()
    try await limiter.wait(for: ticket)
    defer { limiter.release() }
    return try await collect(request, of: nil, through: transport, storingOffline: false, control: RequestControl())
  }

  /// A request after `beforeEach`, through ``exchange(_:of:through:storingOffline:control:_:)``, its body collected
  /// into a `Response` (with the transport's one-hop `collect(_:body:options:upTo:)`, which brings the metrics).
  nonisolated(nonsending) func collect(
    _ request: Request,
    of endpoint: R?,
    through base: any Transport,
    storingOffline: Bool,
    control: RequestControl
  ) async throws -> Response {
    try await exchange(request, of: endpoint, through: base, storingOffline: storingOffline, control: control) {
      outgoing in
      let collected = try await outgoing.transport.collect(
        outgoing.head,
        body: outgoing.body,
        options: outgoing.options,
        upTo: outgoing.maximumResponseSize
      )
      return Response(
        data: collected.data,
        status: collected.head.status,
        headers: collected.head.headerFields,
        request: outgoing.head,
        location: collected.location,
        metrics: collected.metrics,
        failureReporter: outgoing.logger,
        defaultDecoder: outgoing.decoder
      )
    }
  }

  /// The seam every way of receiving a response is built on: a request after `beforeEach` (see ``resolve(_:)``)
  /// through the middleware gate, encoding, `preProcessRequest` and the middleware chain over `base`, returning the
  /// response head with its body still to be read (collected, streamed or written to a file by the caller).
  /// - Parameters:
  ///   - request: The request, after `beforeEach`.
  ///   - endpoint: The endpoint it was made from (for ``transferOptionsForEndpoint`` and ``progress``); `nil` for a
  ///     replayed request.
  ///   - base: The transport under the chain (``resolve(_:)``'s).
  ///   - storingOffline: Whether an `.offline` request the host could not be reached for is saved (not on replay).
  ///   - control: What the caller set for this request alone: a logger, transfer options.
  ///   - adjustHead: The caller's own last changes to the head, after `preProcessRequest` (a download's range).
  /// - Returns: The response, with the request as it was handed to the chain and the logger and size limit it was
  ///   sent with.
  /// - Throws: `NetworkError` for a request that cannot be built or is refused at the gate; whatever the chain
  ///   and transport throw (wrap it with `NetworkError.wrapping(_:)`).
  func open(
    _ request: Request,
    of endpoint: R?,
    through base: any Transport,
    storingOffline: Bool = true,
    control: RequestControl = RequestControl(),
    adjustingHead adjustHead: (inout HTTPRequest) -> Void = { _ in }
  ) async throws -> OpenedExchange {
    try await exchange(
      request,
      of: endpoint,
      through: base,
      storingOffline: storingOffline,
      control: control,
      adjustingHead: adjustHead
    ) { outgoing in
      let response = try await outgoing.transport.send(outgoing.head, body: outgoing.body, options: outgoing.options)
      return OpenedExchange(
        response: response,
        request: outgoing.head,
        logger: outgoing.logger,
        maximumResponseSize: outgoing.maximumResponseSize
      )
    }
  }

  /// What ``open(_:of:through:storingOffline:control:)`` and the collect path share: the middleware gate, encoding,
  /// `preProcessRequest`, the request's transfer options and the choice of the chain's steps; then `transfer` makes
  /// the call on the chain, inside the request's `SourceRequest` when a step reads it.
  private nonisolated(nonsending) func exchange<Result: Sendable>(
    _ request: Request,
    of endpoint: R?,
    through base: any Transport,
    storingOffline: Bool,
    control: RequestControl,
    adjustingHead adjustHead: (inout HTTPRequest) -> Void = { _ in },
    _ transfer: nonisolated(nonsending) (Outgoing) async throws -> Result
  ) async throws -> Result {
    let logger = control.logger
    var settings = self.settings.withLock { $0 }
    if let logger { settings.logger = logger }
    if let middleware = settings.middleware {
      try await passGate(middleware, logger: settings.logger)
      // The gate may change the settings (authentication, headers): the rest of the request reads them afresh.
      settings = self.settings.withLock { $0 }
      if let logger { settings.logger = logger }
    }
    var request = request.encodingBody(with: settings.bodyEncoder)
    // A replayed request is not stored again.
    if !storingOffline { request.storePolicy = .unspecified }
    var prepared: PreparedRequest
    do {
      prepared = try PreparedRequest(request, for: R.self, networkingHeaders: settings.checkedHeaders)
    } catch {
      settings.logger.log(error: error)
      throw error
    }
    if let preProcessRequest = settings.preProcessRequest {
      prepared.head = preProcessRequest(prepared.head)
    }
    adjustHead(&prepared.head)
    let options = transferOptions(for: endpoint, head: prepared.head, settings: settings, control: control)
    do {
      // The HTTPS-only policy before any step, so that no mock or cache answers a request it refuses.
      prepared.head = try options.insecureHTTP.apply(to: prepared.head)
    } catch {
      settings.logger.log(error: NetworkError.wrapping(error))
      throw error
    }
    let steps = settings.chain.steps(
      for: request,
      head: prepared.head,
      options: options,
      logger: settings.logger,
      ownLogger: logger
    )
    let outgoing = Outgoing(
      head: prepared.head,
      body: prepared.body,
      options: options,
      logger: settings.logger,
      decoder: settings.decoder,
      maximumResponseSize: settings.maximumResponseSize,
      transport: steps.isEmpty ? base : MiddlewareTransport(transport: base, middleware: steps)
    )
    try Task.checkCancellation()
    guard !steps.isEmpty else { return try await transfer(outgoing) }
    // The steps read the request's policies here.
    return try await SourceRequest.$current.withValue(SourceRequest(request, baseUrl: R.baseUrl)) {
      try await transfer(outgoing)
    }
  }

  /// The transfer options of one request: the networking's, changed by ``transferOptionsForEndpoint`` and then by
  /// the request's own closure; with a ``progress`` handler, the request's progress also goes to it, named.
  private func transferOptions(
    for endpoint: R?,
    head: HTTPRequest,
    settings: Settings,
    control: RequestControl
  ) -> TransferOptions {
    guard settings.endpointOptions != nil || control.options != nil || settings.progress != nil else {
      return settings.transferOptions
    }
    var options = settings.transferOptions
    if let endpoint, let forEndpoint = settings.endpointOptions {
      forEndpoint(endpoint, &options)
    }
    control.options?(&options)
    if let progress = settings.progress {
      let own = options.progress
      options.progress = { transferred in
        own?(transferred)
        progress(RequestProgress(endpoint: endpoint, request: head, progress: transferred))
      }
    }
    return options
  }

  /// Waits for the middleware to resolve or reject its promise.
  private func passGate(_ middleware: @Sendable (Promise<Void>) -> Void, logger: NetworkLogger) async throws {
    let gate = Promise<Void>()
    middleware(gate)
    do {
      try await gate.value
    } catch {
      let rejection = NetworkError.rejected(by: error)
      if !rejection.isCancellation { logger.log(error: rejection) }
      throw rejection
    }
  }
}

/// A request ready for the chain: what ``Networking/open(_:of:through:storingOffline:control:)`` and the collect path
/// hand to the transport.
struct Outgoing: Sendable {
  /// The head, after `preProcessRequest`.
  var head: HTTPRequest
  /// The body, if any.
  var body: RequestBody?
  /// The transfer options of this request.
  var options: TransferOptions
  /// The logger the request was sent with (the networking's, or the request's own).
  var logger: NetworkLogger
  /// The networking's decoder when the request was sent, for the response's decodings that name none.
  var decoder: (any ResponseDecoder)?
  /// The largest response body the request accepts when collected.
  var maximumResponseSize: Int
  /// The chain's steps for this request over its transport (the transport alone when no step applies).
  var transport: any Transport
}

/// What ``Networking/open(_:of:through:storingOffline:control:)`` returns: the response with its body unread, the
/// request as it was handed to the chain, and the logger and size limit it was sent with.
struct OpenedExchange: Sendable {
  /// The response head, final URL and body, to collect, stream or write to a file.
  var response: TransportResponse
  /// The request head as it was handed to the chain (after `preProcessRequest`).
  var request: HTTPRequest
  /// The logger the request was sent with: failures of reading the body are its to report.
  var logger: NetworkLogger
  /// The networking's response-size limit when the request was sent.
  var maximumResponseSize: Int
}

/// What the caller of `Networking.request` set for one request alone.
struct RequestControl: Sendable {
  /// Replaces the networking's logger.
  var logger: NetworkLogger?
  /// Changes the request's transfer options.
  var options: (@Sendable (inout TransferOptions) -> Void)?
}
