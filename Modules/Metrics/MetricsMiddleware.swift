#if Metrics
public import CoreMetrics
import Foundation
public import HTTPTypes
public import MalibuTransport

/// Middleware that reports each request to swift-metrics: how many, how long, how many at once, how many bytes each
/// way and how many resends, under the names of ``HTTPClientMetrics``.
///
/// ```swift
/// MetricsSystem.bootstrap(myMetricsFactory)   // once, at start-up (Prometheus, OTel, …)
/// let transport = CurlTransport().with(middleware: [MetricsMiddleware()])
/// let networking = Networking<SharkywatersEndpoint>(transport: .custom(transport))
/// ```
///
/// - **Where.** Placed outermost it counts requests as callers see them, with the resends made below it (by
///   `RetryMiddleware` or a token refresh) in ``HTTPClientMetrics/resends``; below `RetryMiddleware` (a transport
///   handed to a `Networking`, under its chain) it counts every attempt.
/// - **Duration.** From the send to the response head (or the failure), as the tracing span; the body streams after.
///   When the transport measured the transfer (`TransportResponse.metrics`), its time to first byte and, for a new
///   connection, its connect time are recorded too (``HTTPClientMetrics/timeToFirstByte``,
///   ``HTTPClientMetrics/connectDuration``), with the same dimensions.
/// - **Bytes.** Out: the request body's length when known before sending (a stream of unknown length is not
///   recorded). In: the response body's size on the wire (before content decoding, as the conventions ask) when the
///   transport measured it (`TransferMetrics.responseBodyBytes`), else the bytes the caller read; recorded when the
///   body ends, fails or is dropped. The body is passed through a counting sequence, with its back-pressure and
///   cancellation.
/// - **Cardinality.** Dimensions are the method, the server's address and port, the status and the error's type;
///   never the URL's path or query.
/// - **One set of dimension names per metric.** Prometheus refuses a name reported with two sets of labels, so every
///   report of a metric carries the same dimension names: one that does not apply (`error.type` of a success, the
///   status of a failure) has the empty value, which Prometheus treats as absent.
/// - **Backend.** A factory given to ``init(factory:)`` is used; otherwise each request reports to
///   `MetricsSystem.factory` as it is then, so a middleware made before `MetricsSystem.bootstrap(_:)` reports to the
///   backend bootstrapped after it.
public struct MetricsMiddleware: Middleware {
  private let injectedFactory: (any MetricsFactory)?

  /// Creates the middleware.
  /// - Parameter factory: Where metrics go; by default the bootstrapped backend, `MetricsSystem.factory`, read when
  ///   each request is sent.
  public init(factory: (any MetricsFactory)? = nil) {
    injectedFactory = factory
  }

  /// Reports the request, sends it on and reports its outcome.
  /// - Parameters:
  ///   - request: The request head, passed on.
  ///   - body: The request body, passed on; its length is recorded when known.
  ///   - options: The transfer options, passed on.
  ///   - next: The rest of the chain.
  /// - Returns: The response, its body wrapped to count the bytes read.
  /// - Throws: The error of the rest of the chain, unchanged.
  public func intercept(
    _ request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions,
    next: Next
  ) async throws -> TransportResponse {
    let factory = injectedFactory ?? MetricsSystem.factory
    let method = HTTPConventions.method(request.method).name
    let server = HTTPConventions.server(of: request)
    let base = [
      (HTTPClientMetrics.Dimension.method, method),
      (HTTPClientMetrics.Dimension.serverAddress, server?.address ?? ""),
      (HTTPClientMetrics.Dimension.serverPort, server.map { "\($0.port)" } ?? ""),
    ]
    let active = Meter(label: HTTPClientMetrics.activeRequests, dimensions: base, factory: factory)
    if let length = body?.length {
      Recorder(label: HTTPClientMetrics.requestBodySize, dimensions: base, factory: factory).record(length)
    }
    let attempts = TransferAttempts.current ?? TransferAttempts()
    let start = ContinuousClock.now
    active.increment()
    defer { active.decrement() }
    do {
      var response = try await TransferAttempts.$current.withValue(attempts) {
        try await next(request, body, options)
      }
      let elapsed = start.duration(to: .now)
      let status = response.head.status.code
      let errorType = status >= 400 ? "\(status)" : ""
      let outcome =
        base + [
          (HTTPClientMetrics.Dimension.statusCode, "\(status)"), (HTTPClientMetrics.Dimension.errorType, errorType),
        ]
      record(
        elapsed,
        outcome: outcome,
        method: method,
        statusClass: "\(status / 100)xx",
        errorType: errorType,
        resends: attempts,
        base: base,
        factory: factory
      )
      if let metrics = response.metrics { record(metrics, outcome: outcome, factory: factory) }
      let received = base + [(HTTPClientMetrics.Dimension.statusCode, "\(status)")]
      response.body = ResponseBody(
        chunks: CountingBody(body: response.body) { bytesRead, metrics in
          Recorder(label: HTTPClientMetrics.responseBodySize, dimensions: received, factory: factory)
            .record(metrics?.responseBodyBytes ?? bytesRead)
        },
        expectedLength: response.body.expectedLength
      )
      return response
    } catch {
      let elapsed = start.duration(to: .now)
      let type = HTTPConventions.errorType(of: error)
      let outcome =
        base + [(HTTPClientMetrics.Dimension.statusCode, ""), (HTTPClientMetrics.Dimension.errorType, type)]
      record(
        elapsed,
        outcome: outcome,
        method: method,
        statusClass: "",
        errorType: type,
        resends: attempts,
        base: base,
        factory: factory
      )
      throw error
    }
  }

  /// The transport's time to first byte and connect time, when it measured them.
  private func record(_ metrics: TransferMetrics, outcome: [(String, String)], factory: any MetricsFactory) {
    if let firstByte = metrics.firstByte {
      Timer(label: HTTPClientMetrics.timeToFirstByte, dimensions: outcome, factory: factory)
        .recordNanoseconds(Self.nanoseconds(firstByte))
    }
    if let connect = metrics.connect {
      Timer(label: HTTPClientMetrics.connectDuration, dimensions: outcome, factory: factory)
        .recordNanoseconds(Self.nanoseconds(connect))
    }
  }

  private static func nanoseconds(_ duration: Duration) -> Int64 {
    duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
  }

  private func record(
    _ elapsed: Duration,
    outcome: [(String, String)],
    method: String,
    statusClass: String,
    errorType: String,
    resends: TransferAttempts,
    base: [(String, String)],
    factory: any MetricsFactory
  ) {
    Timer(label: HTTPClientMetrics.requestDuration, dimensions: outcome, factory: factory)
      .recordNanoseconds(Self.nanoseconds(elapsed))
    let counted = [
      (HTTPClientMetrics.Dimension.method, method), (HTTPClientMetrics.Dimension.statusClass, statusClass),
      (HTTPClientMetrics.Dimension.errorType, errorType),
    ]
    Counter(label: HTTPClientMetrics.requests, dimensions: counted, factory: factory).increment()
    let resendCount = resends.resendCount
    if resendCount > 0 {
      Counter(label: HTTPClientMetrics.resends, dimensions: base, factory: factory).increment(by: resendCount)
    }
  }
}

/// A response body passed through, counting its bytes; `onEnd` gets the count and the transfer's final metrics (when
/// the transport measured them) once, when the body ends, fails or its reading is cancelled. The body it wraps keeps
/// its transfer's final metrics.
struct CountingBody: AsyncSequence, TransferMeasured {
  typealias Element = Data

  let body: ResponseBody
  let onEnd: @Sendable (Int, TransferMetrics?) -> Void

  var metrics: TransferMetrics? { body.metrics }

  func makeAsyncIterator() -> Iterator {
    Iterator(body: body, base: body.makeAsyncIterator(), onEnd: onEnd)
  }

  struct Iterator: AsyncIteratorProtocol {
    let body: ResponseBody
    var base: ResponseBody.Iterator
    let onEnd: @Sendable (Int, TransferMetrics?) -> Void
    var count = 0
    var ended = false

    mutating func next() async throws -> Data? {
      guard !ended else { return nil }
      do {
        guard let chunk = try await base.next() else {
          finish()
          return nil
        }
        count += chunk.count
        return chunk
      } catch {
        finish()
        throw error
      }
    }

    private mutating func finish() {
      ended = true
      onEnd(count, body.metrics)
    }
  }
}
#endif
