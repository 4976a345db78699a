#if Tracing
/// The names of the span attributes ``TracingMiddleware`` sets: OpenTelemetry's semantic conventions for HTTP client
/// spans (stable since semantic conventions 1.23).
public enum HTTPClientAttributes: Sendable {
  /// The request method, `GET`; `_OTHER` for a method the conventions do not list.
  public static let requestMethod = "http.request.method"
  /// The method as sent, when ``requestMethod`` is `_OTHER`.
  public static let requestMethodOriginal = "http.request.method_original"
  /// The absolute URL, user information and secret query values replaced by `REDACTED`.
  public static let urlFull = "url.full"
  /// The host the request goes to.
  public static let serverAddress = "server.address"
  /// The port the request goes to: the URL's, or the scheme's default (80, 443).
  public static let serverPort = "server.port"
  /// The response status code, `200`.
  public static let responseStatusCode = "http.response.status_code"
  /// Why the request failed: the status code for a `4xx` or `5xx` answer, the `TransportError` code
  /// (`connectionRefused`, `idleTimeout`, …) or the error's type name for an error.
  public static let errorType = "error.type"
  /// How many times the request had been sent before this send, retries and redirect hops alike; set only when above
  /// zero, as the conventions say.
  public static let requestResendCount = "http.request.resend_count"
  /// The HTTP version of the response, `1.1` or `2`, from the transport's `TransferMetrics`.
  public static let networkProtocolVersion = "network.protocol.version"
  /// The IP address the transport connected to (`TransferMetrics.remoteAddress`).
  public static let networkPeerAddress = "network.peer.address"
  /// The port the transport connected to (`TransferMetrics.remotePort`).
  public static let networkPeerPort = "network.peer.port"
  /// The response body's size in bytes on the wire: the transport's measure when the body is already complete,
  /// otherwise the length the head announces (`Content-Length`, when no decoding changes it). The span ends with the
  /// head, so a body of unannounced length has none.
  public static let responseBodySize = "http.response.body.size"
}
#endif
