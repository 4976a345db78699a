/// The metadata keys of Malibu's log records, for handlers and tests that read them.
///
/// Names follow OpenTelemetry's HTTP conventions where one exists. Every value is already redacted: a secret header,
/// query parameter or body member appears as `Redactor.placeholder`, never as its value.
///
/// ```swift
/// // debug malibu: response received http.request.method=GET url.full=https://example.com/boards?token=<redacted>
/// //   http.response.status_code=200 http.duration_ms=12.0 http.response.body.size=42
/// ```
public enum LogMetadataKey: Sendable {
  /// The request method, `GET`.
  public static let method = "http.request.method"
  /// The request URL, secret query values and user information redacted.
  public static let url = "url.full"
  /// How many times the request was sent again after its first send, `0` when it was sent once, `1` after a token
  /// refresh retried it (`TransferAttempts` in MalibuTransport counts them). On `response received`, `request failed`
  /// and `request cancelled`; unlike OpenTelemetry, which writes it only after a resend, Malibu writes the `0` too.
  public static let resendCount = "http.request.resend_count"
  /// The response status code, `200`.
  public static let status = "http.response.status_code"
  /// Milliseconds from sending the request to the response head or the failure.
  public static let durationMilliseconds = "http.duration_ms"
  /// The response body's length as announced by the server (the body is never read to log it).
  public static let responseBodySize = "http.response.body.size"
  /// The request body's length, when known before sending (``LogLevel/verbose``).
  public static let requestBodySize = "http.request.body.size"
  /// The request's `Content-Type` (``LogLevel/verbose``).
  public static let requestContentType = "http.request.content_type"
  /// A redacted preview of a small text request body, on one line (``LogLevel/verbose``).
  public static let requestBodyPreview = "http.request.body.preview"
  /// The request header fields, secret values redacted (``LogLevel/verbose``).
  public static let requestHeaders = "http.request.headers"
  /// The response header fields, secret values redacted (``LogLevel/verbose``).
  public static let responseHeaders = "http.response.headers"
  /// The error's type, `NetworkError` or `TransportError`.
  public static let errorType = "error.type"
  /// The error's code, `connectionRefused`, for errors that have one (`NetworkError`, `TransportError`,
  /// `StorageError`, ...).
  public static let errorCode = "error.code"
  /// The code of the error's underlying `TransportError`, when a `NetworkError` wraps one.
  public static let underlyingErrorCode = "error.underlying_code"
  /// The error's description, secrets of the request scrubbed, on one line.
  public static let errorMessage = "error.message"
}
