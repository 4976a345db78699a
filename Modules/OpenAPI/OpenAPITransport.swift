#if OpenAPI
public import Foundation
public import HTTPTypes
import MalibuCore
public import MalibuTransport
public import OpenAPIRuntime

#if canImport(MalibuCurl)
import MalibuCurl
#endif

/// A swift-openapi-runtime `ClientTransport` that sends a generated client's requests with any Malibu
/// `Transport`: `CurlTransport` by default, `URLSessionTransport`, a mock, or a transport wrapped in
/// Malibu middleware.
///
/// ```swift
/// let transport = OpenAPITransport(
///   options: TransferOptions(timeouts: Timeouts(total: .seconds(30))),
///   middleware: [AuthenticationMiddleware(authorization: .bearer(token))]
/// )
/// let client = Client(serverURL: try Servers.Server1.url(), transport: transport)   // swift-openapi-generator's
/// let item = try await client.getItem(path: .init(id: 7)).ok.body.json
/// ```
///
/// - Bodies stream both ways with back-pressure: a request body is pulled from the `HTTPBody` chunk by chunk as the
///   transport sends it, and the response's `HTTPBody` reads the transport's `ResponseBody`, so a
///   slow reader slows the transfer instead of filling memory. A request body that can be read more than once and
///   is at most ``repeatableBodyLimit`` long is sent from memory, so a redirect (307, 308) or a retry can send it
///   again; any other body is streamed once.
/// - ``options`` (timeouts, redirects, the decompression limit, TLS, retries, the proxy) apply to every request.
///   While decompression is on (the default), a request without `Accept-Encoding` asks for `gzip, deflate`, as
///   Malibu's `Networking` does, and the body arrives decoded within the limit.
/// - The middleware runs around every request, outermost first, as `MiddlewareTransport` runs
///   it; it sees the operation's ID in ``operationID``.
/// - Cancelling the task that calls an operation, or that reads its response body, stops the transfer; dropping the
///   response body unread stops it too.
/// - Failures are `TransportError`s; the generated client wraps them in its `ClientError`
///   (`underlyingError`). `ClientError`'s description lists the request's header fields as the generated code made
///   them, so credentials belong in Malibu middleware (added after that), never in an operation's header parameters.
public struct OpenAPITransport: ClientTransport {
  /// The largest request body sent from memory so that it can be sent again (see the type's overview): 1 MiB.
  public static let repeatableBodyLimit = 1 << 20

  /// The ID of the OpenAPI operation being sent, as the document names it, for Malibu middleware to read (a span or
  /// log name, say); `nil` outside an ``OpenAPITransport``.
  @TaskLocal public static var operationID: String?

  /// The Malibu transport that sends every request, middleware included.
  public let transport: any Transport
  /// The transfer options of every request: timeouts, redirects, the decompression limit, TLS, retries, the proxy.
  public var options: TransferOptions

  /// Creates a transport over a Malibu transport.
  /// - Parameters:
  ///   - transport: The transport that sends the requests.
  ///   - options: The transfer options of every request; `TransferOptions()` by default.
  ///   - middleware: Malibu middleware run around every request, outermost first; none by default.
  public init(transport: any Transport, options: TransferOptions = TransferOptions(), middleware: [any Middleware] = [])
  {
    self.transport = middleware.isEmpty ? transport : transport.with(middleware: middleware)
    self.options = options
  }

  #if canImport(MalibuCurl)
  /// Creates a transport over `CurlTransport.shared` (Linux and macOS, which ship libcurl).
  /// - Parameters:
  ///   - options: The transfer options of every request; `TransferOptions()` by default.
  ///   - middleware: Malibu middleware run around every request, outermost first; none by default.
  public init(options: TransferOptions = TransferOptions(), middleware: [any Middleware] = []) {
    self.init(transport: CurlTransport.shared, options: options, middleware: middleware)
  }
  #endif

  /// Sends one operation's request and returns the response head as soon as it has arrived; the body streams after.
  /// - Parameters:
  ///   - request: The request the generated client made; its path is relative to `baseURL`.
  ///   - body: The request body, if any.
  ///   - baseURL: The server URL the client was created with.
  ///   - operationID: The operation's ID in the OpenAPI document.
  /// - Returns: The response head and its body (none for `HEAD`).
  /// - Throws: `TransportError`: `TransportError.Code.invalidRequest` when the
  ///   server URL and the request's path do not form a URL, and whatever the transport reports.
  public func send(
    _ request: HTTPRequest,
    body: HTTPBody?,
    baseURL: URL,
    operationID: String
  ) async throws -> (HTTPResponse, HTTPBody?) {
    var request = try Self.absoluteRequest(request, baseURL: baseURL, operationID: operationID)
    if options.decompression.isEnabled, !request.headerFields.contains(.acceptEncoding) {
      request.headerFields[.acceptEncoding] = DefaultHeaders.acceptEncoding
    }
    var requestBody: RequestBody?
    if let body { requestBody = try await Self.requestBody(from: body) }
    let response = try await Self.$operationID.withValue(operationID) {
      try await transport.send(request, body: requestBody, options: options)
    }
    return (response.head, Self.responseBody(from: response.body, method: request.method))
  }

  /// The request with the server URL's scheme and authority, and its path appended to the server URL's path.
  package static func absoluteRequest(
    _ request: HTTPRequest,
    baseURL: URL,
    operationID: String
  ) throws(TransportError)
    -> HTTPRequest
  {
    let base = baseURL.absoluteString
    let prefix = base.hasSuffix("/") ? String(base.dropLast()) : base
    let path = request.path ?? "/"
    guard let url = URL(string: prefix + (path.hasPrefix("/") ? path : "/" + path)), url.host != nil else {
      // Neither URL is quoted: a query may hold a key.
      throw TransportError(
        code: .invalidRequest,
        message: "the server URL and the path of operation \(operationID) do not form an absolute URL"
      )
    }
    var absolute = HTTPRequest(method: request.method, url: url)
    absolute.headerFields = request.headerFields
    return absolute
  }
}
#endif
