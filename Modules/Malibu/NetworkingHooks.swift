import Foundation
@_spi(Malibu) import MalibuCore
@_spi(Malibu) import MalibuLogging
import MalibuMocking
import MalibuStorage
import MalibuTransport
import MalibuTypedRequests

/// The facade hooks of one networking (failure hooks, `shouldContinue`, the `validate` hook, mock mode and registered
/// mocks), behind one lock. A request reads them once, as a ``HooksSnapshot``, when it leaves the queue.
final class NetworkingHooks<R: RequestConvertible>: Sendable {
  struct State: Sendable {
    var onFailure: (@Sendable (NetworkingFailure<R>) -> Void)?
    var shouldContinue: (@Sendable (NetworkingFailure<R>) -> Bool)?
    var validate: (@Sendable (Response) throws -> Void)?
    var subscribers: [UInt64: AsyncStream<NetworkingFailure<R>>.Continuation] = [:]
    var nextSubscriber: UInt64 = 0
    /// The failure after which `shouldContinue` stopped the networking, until `resume()`.
    var stop: NetworkingFailure<R>?
    var mockMode: MockMode = .mixed
    var mocks: [Request: Mock] = [:]
    /// `Networking.interceptors` (see `RequestInterceptor`).
    var interceptors: [any RequestInterceptor] = []

    /// Whether anything listens to failures, so that a response needs a reporter of its own.
    var isObserved: Bool { onFailure != nil || shouldContinue != nil || !subscribers.isEmpty }
  }

  /// The hooks; read with `state.withLock`, changed only through ``update(_:)``.
  let state = Locked(State())

  /// What a request reads of the hooks, made again by every change (``update(_:)``), so that a request takes it
  /// with one reference instead of copying each hook. It is kept apart from ``state``, under a lock of its own,
  /// because its type does not depend on the endpoint type: a request that finds nothing to do reads it without
  /// the run-time type lookups that ``State`` (generic over the endpoint) costs in the facade's unspecialized code.
  let published = Locked(
    HooksSnapshot(validate: nil, isObserved: false, isStopped: false, mockMode: .mixed, mocks: [:], interceptors: [])
  )

  /// Changes the hooks, and the snapshot requests read with them.
  @discardableResult
  func update<Output>(_ body: (inout State) -> Output) -> Output {
    state.withLock { state in
      defer {
        let snapshot = HooksSnapshot(
          validate: state.validate,
          isObserved: state.isObserved,
          isStopped: state.stop != nil,
          mockMode: state.mockMode,
          mocks: state.mocks,
          interceptors: state.interceptors
        )
        // Inside `state`'s section, so that two updates publish in the order they changed the hooks.
        published.withLock { $0 = snapshot }
      }
      return body(&state)
    }
  }

  /// How many subscribers ``Networking/failures`` has.
  var subscriberCount: Int { state.withLock { $0.subscribers.count } }

  /// The hooks as a request sees them; throws `NetworkError` code `stopped` (reported) while stopped.
  func admit(_ endpoint: R, logger: NetworkLogger) throws -> HooksSnapshot {
    try admit(.endpoint(endpoint), logger: logger)
  }

  /// The hooks as a request of `subject` sees them; throws `NetworkError` code `stopped` (reported) while stopped.
  func admit(_ subject: Subject, logger: NetworkLogger) throws -> HooksSnapshot {
    let snapshot = published.withLock { $0 }
    if snapshot.isStopped { try refuseIfStopped(subject, logger: logger) }
    return snapshot
  }

  /// Fails a request of `subject` at once while the networking is stopped, before it waits in the queue (giving up
  /// its ticket).
  func checkServing(
    _ subject: Subject,
    logger: NetworkLogger,
    abandoning ticket: RequestLimiter.Ticket,
    of limiter: RequestLimiter
  ) throws {
    // Without a limit the request never waits, and ``admit(_:logger:)`` checks it at once.
    guard limiter.limit != nil, published.withLock({ $0.isStopped }) else { return }
    do {
      try refuseIfStopped(subject, logger: logger)
    } catch {
      limiter.abandon(ticket)
      throw error
    }
  }

  /// Throws the `stopped` error (reported) when the networking is still stopped. Apart from its callers, which
  /// reach it only when the snapshot says stopped: the failure it reads is generic over the endpoint type.
  @inline(never)
  private func refuseIfStopped(_ subject: Subject, logger: NetworkLogger) throws(NetworkError) {
    guard let stop = state.withLock({ $0.stop }) else { return }
    throw refuse(subject, stoppedBy: stop, logger: logger)
  }

  /// The `stopped` error for a request of a stopped networking, logged and published (without asking
  /// `shouldContinue` again).
  private func refuse(_ subject: Subject, stoppedBy stop: NetworkingFailure<R>, logger: NetworkLogger) -> NetworkError {
    let cause = (stop.error as? NetworkError)?.code.description ?? String(describing: type(of: stop.error))
    let stopper = stop.endpoint.map(Self.name) ?? stop.typedRequest.map { "\(type(of: $0))" } ?? "a request"
    let error = NetworkError(
      code: .stopped,
      message: "the networking stopped serving requests after \(stopper) failed (\(cause)); "
        + "call resume() to serve requests again",
      underlyingError: stop.error
    )
    logger.log(error: error)
    publish(subject.failure(request: subject.request, error: error), asking: false)
    return error
  }

  /// An endpoint's type and case name, without associated values (which may hold secrets): `Endpoint.showBoard`.
  static func name(of endpoint: R) -> String {
    let type = String(describing: R.self)
    let name = String(describing: endpoint).prefix { $0 != "(" }
    return name.isEmpty || name == type ? type : "\(type).\(name)"
  }

  /// Reports the failure of a request (unless it is a cancellation): `shouldContinue`, `onFailure`, `failures`.
  /// - Returns: The error the promise is rejected with.
  func failed(_ endpoint: R, request: Request, error: any Error) -> NetworkError {
    failed(.endpoint(endpoint), request: request, error: error)
  }

  /// ``failed(_:request:error:)`` for a request of any subject.
  func failed(_ subject: Subject, request: Request, error: any Error) -> NetworkError {
    let error = NetworkError.wrapping(error)
    if !error.isCancellation {
      publish(subject.failure(request: request, error: error), asking: true)
    }
    return error
  }

  /// Hands a failure to `shouldContinue` (when `asking`, and the networking is still serving), then to `onFailure`
  /// and every subscriber of `failures`.
  func publish(_ failure: NetworkingFailure<R>, asking: Bool) {
    let (onFailure, shouldContinue, subscribers) = state.withLock { state in
      (state.onFailure, asking && state.stop == nil ? state.shouldContinue : nil, Array(state.subscribers.values))
    }
    if let shouldContinue, !shouldContinue(failure) {
      update { state in
        if state.stop == nil { state.stop = failure }
      }
    }
    onFailure?(failure)
    for subscriber in subscribers { subscriber.yield(failure) }
  }

  /// Ends every subscription of `failures` (the networking is going away); finished outside the lock, since finishing
  /// runs the subscription's termination handler, which takes it.
  func finishSubscribers() {
    let subscribers = update { state in
      defer { state.subscribers.removeAll() }
      return Array(state.subscribers.values)
    }
    for subscriber in subscribers { subscriber.finish() }
  }

  /// A new subscriber of `failures`.
  func subscribe(bufferingNewest limit: Int) -> AsyncStream<NetworkingFailure<R>> {
    let (stream, continuation) = AsyncStream.makeStream(
      of: NetworkingFailure<R>.self,
      bufferingPolicy: .bufferingNewest(limit)
    )
    let id = update { state in
      state.nextSubscriber &+= 1
      state.subscribers[state.nextSubscriber] = continuation
      return state.nextSubscriber
    }
    continuation.onTermination = { [weak self] _ in
      _ = self?.update { $0.subscribers.removeValue(forKey: id) }
    }
    return stream
  }
}

/// What one request reads of its networking's hooks, when it leaves the queue: one object, made when they change.
final class HooksSnapshot: Sendable {
  let validate: (@Sendable (Response) throws -> Void)?
  let isObserved: Bool
  /// Whether `shouldContinue` stopped the networking.
  let isStopped: Bool
  let mockMode: MockMode
  let mocks: [Request: Mock]
  let interceptors: [any RequestInterceptor]

  init(
    validate: (@Sendable (Response) throws -> Void)?,
    isObserved: Bool,
    isStopped: Bool,
    mockMode: MockMode,
    mocks: [Request: Mock],
    interceptors: [any RequestInterceptor]
  ) {
    self.validate = validate
    self.isObserved = isObserved
    self.isStopped = isStopped
    self.mockMode = mockMode
    self.mocks = mocks
    self.interceptors = interceptors
  }
}

extension NetworkingHooks {
  /// Runs the networking's `validate` hook on a response and gives the response a reporter of its own when anything
  /// listens to failures, so that its `validate()`/`toX()`/`decode()` failures reach them with the endpoint.
  /// - Throws: ``ValidationHookFailure`` with the hook's error as it was thrown, after reporting it.
  func accept(
    _ response: Response,
    as snapshot: HooksSnapshot,
    of subject: Subject,
    request: Request,
    logger: NetworkLogger
  ) throws -> Response {
    if let validate = snapshot.validate {
      do {
        try validate(response)
      } catch {
        throw rejectedByHook(response, error: error, of: subject, request: request, logger: logger)
      }
    }
    guard snapshot.isObserved else { return response }
    return reporting(response, of: subject, request: request)
  }

  // The two below are apart from `accept` so that a response with no hook to run, and no one listening, costs it
  // no run-time lookup of the types generic over the endpoint that they use.

  /// Reports the error of the `validate` hook on `response`.
  @inline(never)
  private func rejectedByHook(
    _ response: Response,
    error: any Error,
    of subject: Subject,
    request: Request,
    logger: NetworkLogger
  ) -> ValidationHookFailure {
    (response.failureReporter ?? logger).reportFailure(error, of: response)
    if !isCancellationError(error) {
      publish(subject.failure(request: request, error: error, response: response), asking: true)
    }
    return ValidationHookFailure(error: error)
  }

  /// `response` with a reporter of its own, for its failures to reach the failure hooks with its endpoint.
  @inline(never)
  private func reporting(_ response: Response, of subject: Subject, request: Request) -> Response {
    var response = response
    response.failureReporter = FailureReporter(
      hooks: self,
      subject: subject,
      request: request,
      next: response.failureReporter
    )
    return response
  }
}

/// The error of a networking's `validate` hook on its way to the promise, which receives it as it was thrown.
struct ValidationHookFailure: Error {
  let error: any Error
}

/// Reports the failed checks and conversions of one response: to the logger it had, then to the failure hooks of
/// its networking, with its endpoint and request.
final class FailureReporter<R: RequestConvertible>: ResponseFailureReporting {
  let hooks: NetworkingHooks<R>
  let subject: NetworkingHooks<R>.Subject
  let request: Request
  let next: (any ResponseFailureReporting)?

  init(
    hooks: NetworkingHooks<R>,
    subject: NetworkingHooks<R>.Subject,
    request: Request,
    next: (any ResponseFailureReporting)?
  ) {
    self.hooks = hooks
    self.subject = subject
    self.request = request
    self.next = next
  }

  func reportFailure(_ error: any Error, of response: Response) {
    (next ?? NetworkLogger.shared).reportFailure(error, of: response)
    guard !isCancellationError(error) else { return }
    // Left-out elements are reported, not failed requests: `shouldContinue` is not asked about them.
    let asking = (error as? NetworkError)?.code != .skippedElements
    hooks.publish(subject.failure(request: request, error: error, response: response), asking: asking)
  }
}

extension NetworkError {
  /// What the facade rejects a request's promise with: the error of the networking's `validate` hook as it was
  /// thrown, anything else as ``wrapping(_:)`` makes it.
  static func rejection(for error: any Error) -> any Error {
    if let failure = error as? ValidationHookFailure { return failure.error }
    return wrapping(error)
  }
}

extension NetworkingHooks {
  /// What a request was made from, as its failures name it: an endpoint, or a typed request.
  enum Subject: Sendable {
    case endpoint(R)
    case typed(any TypedRequest, Request)

    /// The request it describes (before `beforeEach`).
    var request: Request {
      switch self {
      case .endpoint(let endpoint): return endpoint.request
      case .typed(_, let request): return request
      }
    }

    /// The endpoint, for a request made from one.
    var endpoint: R? {
      guard case .endpoint(let endpoint) = self else { return nil }
      return endpoint
    }

    /// A failure of a request of this subject.
    func failure(request: Request, error: any Error, response: Response? = nil) -> NetworkingFailure<R> {
      switch self {
      case .endpoint(let endpoint):
        return NetworkingFailure(endpoint: endpoint, request: request, error: error, response: response)
      case .typed(let typed, _):
        return NetworkingFailure(typedRequest: typed, request: request, error: error, response: response)
      }
    }
  }
}
