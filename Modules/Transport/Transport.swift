public import Foundation
public import HTTPTypes
package import struct MalibuCore.ResponseLocation

/// Sends HTTP requests: the seam between what to send and how.
///
/// Malibu ships `CurlTransport` (MalibuCurl) and `URLSessionTransport` (MalibuURLSession) and, for tests,
/// `MockTransport` (MalibuMocking). Every transport honours the same contract, so they can be swapped freely:
///
/// - The request's URL comes from its scheme, authority and path; its header fields are sent as they are.
///   Field values with CR, LF or NUL are rejected with ``TransportError/Code/invalidRequest`` before anything
///   is sent.
/// - Redirects are followed by the rules of ``RedirectPolicy``; the response returned is the last one.
/// - A body with `Content-Encoding: gzip` or `deflate` is decoded as it streams when ``TransferOptions/decompression``
///   is on; `Content-Encoding` and `Content-Length` are then removed from the returned header fields, which
///   describe the body the caller receives.
/// - `send` returns once the response head has arrived; the body follows through ``ResponseBody``.
/// - Cancelling the calling task, or dropping or cancelling the body, stops the transfer at once.
///
/// The shape follows swift-openapi-runtime's `ClientTransport`, so an adapter to it is a few lines.
public protocol Transport: Sendable {
  /// Sends a request and waits for the response head.
  /// - Parameters:
  ///   - request: The request head; its URL must be absolute.
  ///   - body: The request body, if any.
  ///   - options: Timeouts, redirects, decompression, TLS and progress.
  /// - Returns: The final response's head, URL and body.
  /// - Throws: ``TransportError``.
  func send(_ request: HTTPRequest, body: RequestBody?, options: TransferOptions) async throws -> TransportResponse

  /// Sends a request and collects the whole response body. A requirement, so that a transport can answer it with one
  /// hop back to the caller even when called through `any Transport`; the default implementation calls
  /// ``send(_:body:options:)`` and collects the body.
  /// - Parameters:
  ///   - request: The request head.
  ///   - body: The request body, if any.
  ///   - options: Transfer options.
  ///   - maxBytes: The largest body accepted.
  /// - Returns: The response head, its URL and the body.
  /// - Throws: ``TransportError``, ``TransportError/Code/bodyTooLarge`` past `maxBytes` included.
  func data(
    for request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions,
    upTo maxBytes: Int
  ) async throws -> (HTTPResponse, Data, URL?)

  /// Sends a request and collects the whole response body, with the transfer's final metrics. The default
  /// implementation calls `data(for:body:options:upTo:)` and measures nothing (`metrics` is `nil`); a transport
  /// that measures implements it (`CurlTransport`, `URLSessionTransport`, ``MiddlewareTransport``).
  /// - Parameters:
  ///   - request: The request head.
  ///   - body: The request body, if any.
  ///   - options: Transfer options.
  ///   - maxBytes: The largest body accepted.
  /// - Returns: The response head, its URL, the body and the metrics.
  /// - Throws: ``TransportError``, ``TransportError/Code/bodyTooLarge`` past `maxBytes` included.
  func collect(
    _ request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions,
    upTo maxBytes: Int
  ) async throws -> CollectedResponse

  /// The thread this transport does its I/O on, as a task executor, when tasks may run there; `nil` (the default)
  /// for transports without one.
  ///
  /// A task that prefers it (`withTaskExecutorPreference(_:operation:)`) sends and receives without a thread hop per
  /// request. Malibu's facade keeps the preference for the requests such a task starts. `CurlTransport` offers its
  /// loop thread.
  var taskExecutor: (any TaskExecutor)? { get }
}

extension Transport {
  /// `nil`: a transport offers no executor unless it says so.
  public var taskExecutor: (any TaskExecutor)? { nil }

  /// The largest body `data(for:body:options:upTo:)` collects when the caller names no limit (`upTo: nil`):
  /// 256 MiB, the default of the facade's `Networking.maximumResponseSize`.
  public static var defaultMaximumResponseSize: Int { 256 << 20 }

  /// Sends a request and collects the whole response body, with defaults for what is not given: no body, default
  /// ``TransferOptions``, and at most ``defaultMaximumResponseSize`` bytes.
  ///
  /// ```swift
  /// let (head, data, finalURL) = try await transport.data(for: HTTPRequest(method: .get, url: url))
  /// ```
  /// It calls the transport's own `data(for:body:options:upTo:)`, so a transport's one-hop path is kept. (The
  /// requirement itself cannot have default arguments; this overload's `maxBytes` is optional so that it is a
  /// different function, not a second implementation of the requirement that a call through `any Transport` would
  /// pick instead of the transport's.)
  /// - Parameters:
  ///   - request: The request head; its URL must be absolute.
  ///   - body: The request body, if any; none by default.
  ///   - options: Timeouts, redirects, decompression, TLS and progress; `TransferOptions()` by default.
  ///   - maxBytes: The largest body accepted; `nil` (the default) for ``defaultMaximumResponseSize``.
  /// - Returns: The response head, its URL and the body.
  /// - Throws: ``TransportError``, ``TransportError/Code/bodyTooLarge`` past the limit included.
  public func data(
    for request: HTTPRequest,
    body: RequestBody? = nil,
    options: TransferOptions = TransferOptions(),
    upTo maxBytes: Int? = nil
  ) async throws -> (HTTPResponse, Data, URL?) {
    try await data(for: request, body: body, options: options, upTo: maxBytes ?? Self.defaultMaximumResponseSize)
  }

  /// Sends a request and collects the whole response body with `data(for:body:options:upTo:)`; measures
  /// nothing.
  /// - Parameters:
  ///   - request: The request head.
  ///   - body: The request body, if any.
  ///   - options: Transfer options.
  ///   - maxBytes: The largest body accepted.
  /// - Returns: The response head, its URL and the body; `metrics` is `nil`.
  /// - Throws: ``TransportError``, ``TransportError/Code/bodyTooLarge`` past `maxBytes` included.
  public func collect(
    _ request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions,
    upTo maxBytes: Int
  ) async throws -> CollectedResponse {
    let (head, data, url) = try await data(for: request, body: body, options: options, upTo: maxBytes)
    return CollectedResponse(head: head, url: url, data: data)
  }

  /// Sends a request and collects the whole response body.
  ///
  /// Transports may implement this more directly (one hop back to the caller for the whole exchange).
  /// - Parameters:
  ///   - request: The request head.
  ///   - body: The request body, if any.
  ///   - options: Transfer options.
  ///   - maxBytes: The largest body accepted.
  /// - Returns: The response head, its URL and the body.
  /// - Throws: ``TransportError``, ``TransportError/Code/bodyTooLarge`` past `maxBytes` included.
  public func data(
    for request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions,
    upTo maxBytes: Int
  ) async throws -> (HTTPResponse, Data, URL?) {
    let response = try await send(request, body: body, options: options)
    return (response.head, try await response.body.collect(upTo: maxBytes), response.url)
  }
}

/// What a transport returns: the final response head, the URL it came from and the body.
public struct TransportResponse: Sendable {
  /// The status and header fields.
  public var head: HTTPResponse
  /// The URL of the final response, after redirects, parsed when read.
  public var url: URL? {
    get { location.url }
    set { location = ResponseLocation(newValue) }
  }
  /// The final URL as the transport has it.
  package var location: ResponseLocation
  /// The body, to collect or stream.
  public var body: ResponseBody
  /// The transfer's metrics as they stand when the head arrives: everything but `total` and the body's sizes, which
  /// ``ResponseBody/metrics`` has once the body has been read to its end. `nil` when the transport measures nothing.
  public var metrics: TransferMetrics?

  /// Creates a response.
  /// - Parameters:
  ///   - head: The status and header fields.
  ///   - url: The final URL.
  ///   - body: The body.
  ///   - metrics: The metrics known with the head, if measured.
  public init(head: HTTPResponse, url: URL?, body: ResponseBody, metrics: TransferMetrics? = nil) {
    self.init(head: head, location: ResponseLocation(url), body: body, metrics: metrics)
  }

  /// Creates a response whose URL is parsed only when read.
  package init(head: HTTPResponse, location: ResponseLocation, body: ResponseBody, metrics: TransferMetrics? = nil) {
    self.head = head
    self.location = location
    self.body = body
    self.metrics = metrics
  }

  /// Reads the whole body and returns it with the head, the URL and the most complete metrics known: the body's final
  /// ones, or else those that came with the head.
  /// - Parameter maxBytes: The largest body accepted.
  /// - Returns: The collected response.
  /// - Throws: As ``ResponseBody/collect(upTo:)``.
  public func collected(upTo maxBytes: Int) async throws -> CollectedResponse {
    let data = try await body.collect(upTo: maxBytes)
    return CollectedResponse(head: head, location: location, data: data, metrics: body.metrics ?? metrics)
  }
}

/// A response with its whole body: what ``Transport/collect(_:body:options:upTo:)`` returns.
public struct CollectedResponse: Sendable {
  /// The status and header fields.
  public var head: HTTPResponse
  /// The URL of the final response, after redirects, parsed when read.
  public var url: URL? {
    get { location.url }
    set { location = ResponseLocation(newValue) }
  }
  /// The final URL as the transport has it.
  package var location: ResponseLocation
  /// The body, decoded.
  public var data: Data
  /// The transfer's final metrics; `nil` when the transport measures nothing.
  public var metrics: TransferMetrics?

  /// Creates a collected response.
  /// - Parameters:
  ///   - head: The status and header fields.
  ///   - url: The final URL.
  ///   - data: The body.
  ///   - metrics: The metrics, if measured.
  public init(head: HTTPResponse, url: URL?, data: Data, metrics: TransferMetrics? = nil) {
    self.init(head: head, location: ResponseLocation(url), data: data, metrics: metrics)
  }

  /// Creates a collected response whose URL is parsed only when read.
  package init(head: HTTPResponse, location: ResponseLocation, data: Data, metrics: TransferMetrics? = nil) {
    self.head = head
    self.location = location
    self.data = data
    self.metrics = metrics
  }
}
