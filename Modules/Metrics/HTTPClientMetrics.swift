#if Metrics
/// The names of the metrics ``MetricsMiddleware`` reports and of their dimensions: OpenTelemetry's semantic
/// conventions for HTTP clients where they name one, and names in the same style where they do not.
public enum HTTPClientMetrics: Sendable {
  /// Timer: from sending the request to its response head, or its failure (`http.client.request.duration`).
  /// Dimensions: method, server address and port, status code (empty for a failure without a response), `error.type`
  /// (empty for a success).
  public static let requestDuration = "http.client.request.duration"
  /// Counter: requests finished, by method, status class (`2xx` … `5xx`; empty for a failure without a response) and
  /// `error.type` (empty for a success). Not in the conventions (which count the duration histogram); for backends
  /// without one.
  public static let requests = "http.client.requests"
  /// Meter: requests sent and not yet answered or failed (`http.client.active_requests`). Dimensions: method, server
  /// address and port.
  public static let activeRequests = "http.client.active_requests"
  /// Timer: from the start of the transfer to the first byte of its response (`TransferMetrics.firstByte`), when the
  /// transport measured it. Dimensions: those of ``requestDuration``. Not in the conventions; named in their style.
  public static let timeToFirstByte = "http.client.request.time_to_first_byte"
  /// Timer: from the start of the transfer to an established connection (`TransferMetrics.connect`), recorded only
  /// for a transfer that opened a new connection (a reused one has none). Dimensions: those of ``requestDuration``.
  public static let connectDuration = "http.client.connection.connect_duration"
  /// Recorder: the request body's size in bytes, when known before sending (`http.client.request.body.size`).
  public static let requestBodySize = "http.client.request.body.size"
  /// Recorder: the response body's size in bytes on the wire, before content decoding, when the transport measured
  /// it, else as the caller read it (`http.client.response.body.size`); recorded when the body ends, is dropped or
  /// fails. Dimensions: method, server address and port, status code.
  public static let responseBodySize = "http.client.response.body.size"
  /// Counter: sends of a request after its first (retries and token refreshes, counted through `TransferAttempts`),
  /// in the style of the conventions' `http.request.resend_count` attribute.
  public static let resends = "http.client.request.resends"

  /// The dimension names.
  public enum Dimension: Sendable {
    /// `GET`; `_OTHER` for a method the conventions do not list.
    public static let method = "http.request.method"
    /// The host the request goes to.
    public static let serverAddress = "server.address"
    /// The port the request goes to: the URL's, or the scheme's default.
    public static let serverPort = "server.port"
    /// The response status code, `200`.
    public static let statusCode = "http.response.status_code"
    /// The status class, `2xx` (Malibu's, for ``HTTPClientMetrics/requests``).
    public static let statusClass = "http.response.status_class"
    /// The status code of a `4xx` or `5xx` answer, or the `TransportError` code (`connectionRefused`) or the type of
    /// the error that ended the request.
    public static let errorType = "error.type"
  }
}
#endif
