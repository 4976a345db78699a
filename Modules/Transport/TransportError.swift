import MalibuCore
import MalibuGzip

/// Why a transfer failed, as reported by every transport alike.
///
/// ```swift
/// do {
///   let response = try await transport.send(request, body: nil, options: options)
/// } catch let error as TransportError where error.code == .idleTimeout {
///   // the server stopped sending for longer than options.timeouts.idle
/// }
/// ```
public struct TransportError: Error, Sendable, CustomStringConvertible {
  /// What went wrong. New codes can be added without breaking anyone's code.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private let name: String

    private init(_ name: String) {
      self.name = name
    }

    /// No connection could be made within ``Timeouts/connect``.
    public static let connectTimeout = Code("connectTimeout")
    /// No byte moved in either direction for longer than ``Timeouts/idle``.
    public static let idleTimeout = Code("idleTimeout")
    /// The whole transfer took longer than ``Timeouts/total``.
    public static let totalTimeout = Code("totalTimeout")
    /// The transfer was cancelled by the caller.
    public static let cancelled = Code("cancelled")
    /// The server refused the connection (nothing listens on that port).
    public static let connectionRefused = Code("connectionRefused")
    /// The connection was reset or closed before the response was complete.
    public static let connectionReset = Code("connectionReset")
    /// The host name could not be resolved.
    public static let dnsFailure = Code("dnsFailure")
    /// The TLS handshake or certificate verification failed, or a pinned key did not match.
    public static let tls = Code("tls")
    /// More redirects than ``RedirectPolicy`` allows, or a redirect loop.
    public static let tooManyRedirects = Code("tooManyRedirects")
    /// The body is larger than the limit it was collected or decompressed with.
    public static let bodyTooLarge = Code("bodyTooLarge")
    /// The body's content coding (gzip, deflate) could not be decoded: truncated or corrupt.
    public static let decodingFailed = Code("decodingFailed")
    /// The request cannot be sent as it is: a bad URL, CR or LF in a header, an unreadable body. Raised before
    /// anything is sent.
    public static let invalidRequest = Code("invalidRequest")
    /// The server's answer broke the HTTP protocol: a garbled status line, bytes that are not HTTP, a bad
    /// `Content-Length` or broken chunked framing.
    public static let protocolError = Code("protocolError")
    /// The transport cannot honour an option on this platform (key pinning with URLSession on Linux, say).
    public static let unsupportedOption = Code("unsupportedOption")
    /// A plain `http://` request, or a redirect to one, refused by ``InsecureHTTPPolicy/refuse`` (HTTPS only).
    /// Raised before anything is sent to that URL.
    public static let insecureScheme = Code("insecureScheme")
    /// The proxy refused the credentials, or asked for credentials (`407`) and none were given. The message never
    /// holds the password.
    public static let proxyAuthenticationFailed = Code("proxyAuthenticationFailed")
    /// The proxy was reached but would not relay the transfer: its handshake failed, or it could not reach the
    /// target (a SOCKS5 or `CONNECT` refusal).
    public static let proxyFailed = Code("proxyFailed")
    /// The transport is shutting down gracefully, or has shut down (`shutdown(gracePeriod:)`, ``Drainable``): it
    /// takes no new request. Raised before anything is sent.
    public static let shutDown = Code("shutDown")
    /// The ``ConnectionPolicy`` refused the address a connection was about to open (a redirect into `169.254.169.254`
    /// under the default policy, a private address under ``ConnectionPolicy/publicInternetOnly``). Raised before
    /// anything is sent to that address; the message names the host, the address and its class.
    public static let addressNotAllowed = Code("addressNotAllowed")
    /// Anything else the underlying library reported; the message says what.
    public static let other = Code("other")

    /// The code's name, as spelled in Swift.
    public var description: String { name }

    /// Every code, for reading one back by its name (cassettes keep the codes of recorded failures).
    package static let all: [Code] = [
      .connectTimeout, .idleTimeout, .totalTimeout, .cancelled, .connectionRefused, .connectionReset, .dnsFailure, .tls,
      .tooManyRedirects, .bodyTooLarge, .decodingFailed, .invalidRequest, .protocolError, .unsupportedOption,
      .insecureScheme, .proxyAuthenticationFailed, .proxyFailed, .shutDown, .addressNotAllowed, .other,
    ]

    /// The code spelled `name` (its ``description``), or `nil` for none.
    package init?(named name: String) {
      guard let code = Self.all.first(where: { $0.name == name }) else { return nil }
      self = code
    }
  }

  /// What went wrong.
  public var code: Code
  /// A sentence for people, with what the underlying library said.
  public var message: String
  /// The error of the underlying layer, if any (a `GzipError`, a `URLError`, ...).
  public var underlyingError: (any Error)?

  /// Creates an error.
  /// - Parameters:
  ///   - code: What went wrong.
  ///   - message: A sentence for people.
  ///   - underlyingError: The cause, if any.
  public init(code: Code, message: String, underlyingError: (any Error)? = nil) {
    self.code = code
    self.message = message
    self.underlyingError = underlyingError
  }

  /// Whether the transfer was cancelled (``Code/cancelled``).
  public var isCancellation: Bool { code == .cancelled }

  /// Whether a timeout of any kind ended the transfer.
  public var isTimeout: Bool { code == .connectTimeout || code == .idleTimeout || code == .totalTimeout }

  /// `TransportError.<code>: <message>`, followed by the cause when present. The cause's text appears once: what
  /// the message already quotes of it is left out of the `(cause: …)` part.
  public var description: String {
    "TransportError.\(code): \(message)" + CauseText.suffix(for: underlyingError, after: message)
  }

  /// A collected body past the caller's limit, naming the settings that raise it.
  /// - Parameters:
  ///   - limit: The limit that applied (the `upTo:` argument).
  ///   - size: The body's size, when known.
  ///   - announced: Whether `size` comes from the `Content-Length` field rather than the bytes received.
  /// - Returns: A ``Code/bodyTooLarge`` error.
  package static func bodyTooLarge(limit: Int, size: Int? = nil, announced: Bool = false) -> TransportError {
    let source = announced ? ", by its Content-Length" : ""
    let body = size.map { "the response body (\($0) bytes\(source))" } ?? "the response body"
    return TransportError(
      code: .bodyTooLarge,
      message: "\(body) is larger than the limit of \(limit) bytes: raise `Networking.maximumResponseSize`, or the "
        + "`upTo:` argument when calling a transport's `data(for:body:options:upTo:)` directly"
    )
  }

  /// A decoded (decompressed) body past ``Decompression/limit``, naming the setting that raises it.
  /// - Parameter limit: The decompression limit that applied.
  /// - Returns: A ``Code/bodyTooLarge`` error.
  package static func decodedBodyTooLarge(limit: Int) -> TransportError {
    TransportError(
      code: .bodyTooLarge,
      message: "the decoded body is larger than the decompression limit of \(limit) bytes: raise "
        + "`TransferOptions.decompression` (`.enabled(limit:)`; on a networking, `transferOptions.decompression`)"
    )
  }

  /// A proxy's refusal of the credentials (or its demand for some), which never quotes them.
  /// - Parameter credentialsGiven: Whether the transfer gave the proxy credentials; `nil` when the environment named
  ///   the proxy (and perhaps credentials with it).
  /// - Returns: A ``Code/proxyAuthenticationFailed`` error.
  package static func proxyAuthenticationFailed(credentialsGiven: Bool?) -> TransportError {
    let message: String
    switch credentialsGiven {
    case true?:
      message = "the proxy refused the credentials it was given (407 Proxy Authentication Required)"
    case false?:
      message =
        "the proxy asks for credentials and none were given (407 Proxy Authentication Required): set "
        + "`ProxyServer.credentials` (`TransferOptions.proxy`)"
    case nil:
      message =
        "the proxy named by the environment refused the credentials, or asks for some "
        + "(407 Proxy Authentication Required)"
    }
    return TransportError(code: .proxyAuthenticationFailed, message: message)
  }

  /// The refusal of a request sent after a graceful shutdown began (``Code/shutDown``).
  /// - Parameter transport: The transport's type name, for the message.
  /// - Returns: The error.
  package static func shuttingDown(_ transport: String) -> TransportError {
    TransportError(
      code: .shutDown,
      message: "the \(transport) is shutting down (shutdown(gracePeriod:) was called): it takes no new requests"
    )
  }

  /// A request with a method that is not idempotent (RFC 9110 §9.2.2: `POST`, `PATCH`, ...) whose connection closed
  /// after it was sent and before a byte of the response: it may have reached the server, so the transport does not
  /// send it again by itself. Whether it is retried is the caller's retry policy's choice.
  /// - Parameter method: The request's method.
  /// - Returns: A ``Code/connectionReset`` error.
  package static func connectionClosedAfterSending(method: String) -> TransportError {
    TransportError(
      code: .connectionReset,
      message: "the connection closed before any response to this \(method) request; the request may have reached "
        + "the server, so it was not sent again (a \(method) is retried only when `RetryPolicy.methods` includes it)"
    )
  }

  static func cancelled() -> TransportError {
    TransportError(code: .cancelled, message: "the transfer was cancelled")
  }
}

extension TransportError: MessageCarrying {}

extension GzipError: MessageCarrying {}
