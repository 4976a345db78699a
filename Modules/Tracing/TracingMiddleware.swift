#if Tracing
import Foundation
public import HTTPTypes
@_spi(Malibu) import MalibuCore
public import MalibuTransport
public import Tracing

/// Middleware that traces each request with swift-distributed-tracing: a client span named for the method, with
/// OpenTelemetry's HTTP client attribute names (``HTTPClientAttributes``), and the span's context injected into the
/// request's header fields (`traceparent` with a W3C propagator) through the bootstrapped instrument.
///
/// ```swift
/// InstrumentationSystem.bootstrap(myTracer)   // once, at start-up (OTel, or any Tracer)
/// let transport = CurlTransport().with(middleware: [TracingMiddleware()])
/// let networking = Networking<SharkywatersEndpoint>(transport: .custom(transport))
/// ```
///
/// - **Which tracer.** A tracer given to ``init(tracer:redactor:)`` makes the spans and injects their context (a
///   library, or a test, needs no process-wide bootstrap). Otherwise each request uses the bootstrapped
///   `InstrumentationSystem.tracer` and instrument as they are then, so a middleware made before
///   `InstrumentationSystem.bootstrap(_:)` traces with what is bootstrapped after it.
/// - **No tracer, no change.** With no tracer given and none bootstrapped, the request passes through untouched: no
///   span, no header field.
/// - **Parent.** The span is a child of the caller's `ServiceContext.current` (a server's request span, say).
/// - **Duration.** The span ends when the response head arrives, or the request fails: the body streams after it
///   (the conventions allow either end). The response status and `4xx`/`5xx` as an error are known then.
/// - **Connection.** When the transport measured the transfer (`TransportResponse.metrics`), the span gets the
///   response's `network.protocol.version`, the `network.peer.address` and `network.peer.port` connected to, and
///   `http.response.body.size` (see ``HTTPClientAttributes/responseBodySize``).
/// - **Errors.** A thrown error is recorded on the span (as a ``TracedError``: its type, code and description with the
///   request's secrets scrubbed), `error.type` is set and the status is `error`; so is a `4xx` or `5xx` answer, with
///   the status code as `error.type`. The error reaches the caller unchanged.
/// - **Secrets.** `url.full` has user information and the values of secret query parameters (those of ``redactor``)
///   replaced by `REDACTED`; no header value is recorded.
/// - **Attempts and hops.** One middleware makes one span per call: placed outermost it traces the request as the
///   caller sees it (with `http.request.resend_count` for the retries below it, counted through `TransferAttempts`);
///   placed below `RetryMiddleware` (as in a transport handed to a `Networking`, under its chain) it traces each
///   attempt. Used twice, outermost and innermost, the inner one makes a child span for every send within the outer
///   span — each retry, and each redirect hop where a middleware follows redirects one at a time (the cookie jar's
///   `CookieMiddleware`) — with `http.request.resend_count` counting the sends before it. Redirects the transport
///   follows by itself are inside one span.
public struct TracingMiddleware: Middleware {
  /// The request being traced by an outer `TracingMiddleware`, so that an inner one makes child spans.
  @TaskLocal static var tracedRequest: TracedRequest?

  /// Decides which query parameters of `url.full` are secret (their values become `REDACTED`).
  public let redactor: Redactor
  /// The tracer given to ``init(tracer:redactor:)``; `nil` to use the bootstrapped one.
  public let tracer: (any Tracer)?

  /// Creates the middleware.
  /// - Parameters:
  ///   - tracer: The tracer that makes the spans and injects their context into the request; by default the
  ///     bootstrapped `InstrumentationSystem.tracer`, read when each request is sent.
  ///   - redactor: Which query parameters are secret; by default the logging defaults plus the signatures the
  ///     conventions name (`Signature`, `X-Goog-Signature`, `AWSAccessKeyId`, ...).
  public init(tracer: (any Tracer)? = nil, redactor: Redactor = TracingMiddleware.defaultRedactor) {
    self.tracer = tracer
    self.redactor = redactor
  }

  /// The default ``redactor``: `Redactor()`'s keys and the query parameters OpenTelemetry names as carrying
  /// credentials.
  public static var defaultRedactor: Redactor {
    var redactor = Redactor()
    redactor.parameterKeys.formUnion(["sig", "signature", "awsaccesskeyid", "credential"])
    return redactor
  }

  /// Traces the request, injects the span's context and sends it on.
  /// - Parameters:
  ///   - request: The request head; the trace context is added to its fields.
  ///   - body: The request body, passed on.
  ///   - options: The transfer options, passed on.
  ///   - next: The rest of the chain.
  /// - Returns: The response of the rest of the chain, unchanged.
  /// - Throws: The error of the rest of the chain, unchanged, after it is recorded on the span.
  public func intercept(
    _ request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions,
    next: Next
  ) async throws -> TransportResponse {
    let tracer: any Tracer
    let instrument: any Instrument
    if let injected = self.tracer {
      (tracer, instrument) = (injected, injected)
    } else {
      instrument = InstrumentationSystem.instrument
      guard !(instrument is NoOpInstrument), !(instrument is NoOpTracer) else {
        return try await next(request, body, options)
      }
      tracer = InstrumentationSystem.tracer
    }
    let outer = Self.tracedRequest
    let parent = ServiceContext.current ?? .topLevel
    let (method, original) = HTTPConventions.method(request.method)
    let span = tracer.startSpan(method, context: parent, ofKind: .client)
    defer { span.end() }
    span.updateAttributes { attributes in
      attributes[HTTPClientAttributes.requestMethod] = method
      if let original { attributes[HTTPClientAttributes.requestMethodOriginal] = original }
      attributes[HTTPClientAttributes.urlFull] = redactedURL(of: request)
      if let server = HTTPConventions.server(of: request) {
        attributes[HTTPClientAttributes.serverAddress] = server.address
        attributes[HTTPClientAttributes.serverPort] = server.port
      }
    }
    var traced = request
    instrument.inject(span.context, into: &traced.headerFields, using: HTTPFieldsInjector())

    // An inner middleware counts its sends within the outer one's request; an outer one reads the resends counted
    // below it (by `RetryMiddleware`, through `TransferAttempts`).
    let sendIndex = outer?.nextSend()
    if let sendIndex, sendIndex > 0 { span.attributes[HTTPClientAttributes.requestResendCount] = sendIndex }
    let attempts = TransferAttempts.current ?? TransferAttempts()
    let own = outer == nil ? TracedRequest() : nil
    do {
      let response = try await InstrumentationContext.$current.withValue(span.context) {
        try await TransferAttempts.$current.withValue(attempts) {
          try await Self.$tracedRequest.withValue(own ?? outer) {
            try await next(traced, body, options)
          }
        }
      }
      let status = response.head.status.code
      span.updateAttributes { attributes in
        attributes[HTTPClientAttributes.responseStatusCode] = status
        Self.setConnectionAttributes(of: response, in: &attributes)
        if sendIndex == nil {
          let resends = max(attempts.resendCount, (own?.sends ?? 1) - 1)
          if resends > 0 { attributes[HTTPClientAttributes.requestResendCount] = resends }
        }
        if status >= 400 { attributes[HTTPClientAttributes.errorType] = String(status) }
      }
      if status >= 400 { span.setStatus(SpanStatus(code: .error)) }
      return response
    } catch {
      let type = HTTPConventions.errorType(of: error)
      span.recordError(TracedError(error, scrubbing: request, with: redactor))
      span.updateAttributes { attributes in
        attributes[HTTPClientAttributes.errorType] = type
        if sendIndex == nil, attempts.resendCount > 0 {
          attributes[HTTPClientAttributes.requestResendCount] = attempts.resendCount
        }
      }
      span.setStatus(SpanStatus(code: .error, message: type))
      throw error
    }
  }

  /// The attributes from the transport's metrics, and the body's size when known.
  private static func setConnectionAttributes(of response: TransportResponse, in attributes: inout SpanAttributes) {
    let metrics = response.metrics
    if let version = metrics?.httpVersion { attributes[HTTPClientAttributes.networkProtocolVersion] = version }
    if let address = metrics?.remoteAddress { attributes[HTTPClientAttributes.networkPeerAddress] = address }
    if let port = metrics?.remotePort { attributes[HTTPClientAttributes.networkPeerPort] = port }
    if let size = metrics?.responseBodyBytes ?? response.body.expectedLength {
      attributes[HTTPClientAttributes.responseBodySize] = size
    }
  }

  /// `url.full`: the redactor's URL with OpenTelemetry's `REDACTED` for each secret.
  private func redactedURL(of request: HTTPRequest) -> String {
    redactor.redactedURL(of: request).replacingOccurrences(of: Redactor.placeholder, with: "REDACTED")
  }
}

/// The request an outer ``TracingMiddleware`` traces: how many sends the inner one has made for it.
final class TracedRequest: Sendable {
  private let count = Locked(0)

  /// How many sends were made.
  var sends: Int { count.withLock { $0 } }

  /// Counts a send; returns how many came before it.
  func nextSend() -> Int {
    count.withLock { count in
      defer { count += 1 }
      return count
    }
  }
}
#endif
