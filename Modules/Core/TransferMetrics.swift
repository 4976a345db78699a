/// Where the time of one transfer went, and how many bytes it moved: what `curl -w` prints, per response.
///
/// Times are offsets from the start of the transfer (the first hop's start, when redirects were followed), in the
/// order `curl -w` lists them: ``nameLookup`` ≤ ``connect`` ≤ ``secureConnect`` ≤ ``requestSent`` ≤ ``firstByte``
/// ≤ ``total``; ``redirect`` is the time spent in the hops before the final one, and every phase of the final hop
/// counts from the transfer's start, after it.
///
/// Every figure is optional: `nil` means the transport could not measure it, or the phase did not happen (no name
/// lookup, connect or TLS handshake on a reused connection; no TLS over plain `http`). `CurlTransport` fills every
/// figure; `URLSessionTransport` only what it measures itself — the head's arrival as ``firstByte``, ``total``,
/// ``redirect`` and the body's size — since FoundationNetworking on Linux reports no `URLSessionTaskMetrics` (Apple
/// platforms' are not read yet); a mock fills none.
///
/// ```swift
/// let response = try await networking.request(.fetchBoards).value
/// if let metrics = response.metrics, let firstByte = metrics.firstByte {
///   print("first byte after \(firstByte), HTTP/\(metrics.httpVersion ?? "?")")
/// }
/// ```
///
/// Figures known when the response head arrives (everything but ``total`` and the body's sizes) travel with the head;
/// the final ones with the collected body.
public struct TransferMetrics: Sendable, Hashable {
  /// When the host name was resolved (`time_namelookup`); `nil` on a reused connection.
  public var nameLookup: Duration?
  /// When the TCP connection was established (`time_connect`); `nil` on a reused connection.
  public var connect: Duration?
  /// When the TLS handshake was done (`time_appconnect`); `nil` without TLS and on a reused connection.
  public var secureConnect: Duration?
  /// When the request was about to be sent: the connection was ready (`time_pretransfer`).
  public var requestSent: Duration?
  /// When the first byte of the response arrived (`time_starttransfer`): the time to first byte.
  public var firstByte: Duration?
  /// When the transfer ended (`time_total`); `nil` until the body has been read to its end.
  public var total: Duration?
  /// The time spent in redirect hops before the final one (`time_redirect`); zero when none was followed.
  public var redirect: Duration?
  /// Whether the final hop went over a connection kept from an earlier transfer.
  public var isReusedConnection: Bool?
  /// The HTTP version of the final response as OpenTelemetry's `network.protocol.version` spells it: `"1.0"`,
  /// `"1.1"`, `"2"` or `"3"`.
  public var httpVersion: String?
  /// The IP address the final hop connected to (the proxy's, through a proxy).
  public var remoteAddress: String?
  /// The port the final hop connected to.
  public var remotePort: Int?
  /// The bytes of the request sent on the wire by the final hop: its head and body.
  public var requestBytesSent: Int?
  /// The bytes of the response head (status line and header fields, interim responses included) received.
  public var responseHeadBytes: Int?
  /// The bytes of the response body received on the wire, before content decoding; `nil` until the body has ended.
  public var responseBodyBytes: Int?
  /// The bytes of the body after content decoding (gzip inflated), as the caller receives them; `nil` until the body
  /// has ended, and for a streamed encoded body (its reader decodes it).
  public var decodedBodyBytes: Int?

  /// Creates metrics; every figure is `nil` unless given.
  /// - Parameters:
  ///   - nameLookup: When the host name was resolved.
  ///   - connect: When the connection was established.
  ///   - secureConnect: When the TLS handshake was done.
  ///   - requestSent: When the request was about to be sent.
  ///   - firstByte: When the first byte of the response arrived.
  ///   - total: When the transfer ended.
  ///   - redirect: The time spent in redirect hops before the final one.
  ///   - isReusedConnection: Whether the connection was reused.
  ///   - httpVersion: The HTTP version, `"1.1"` or `"2"`.
  ///   - remoteAddress: The IP address connected to.
  ///   - remotePort: The port connected to.
  ///   - requestBytesSent: The request's bytes on the wire.
  ///   - responseHeadBytes: The response head's bytes.
  ///   - responseBodyBytes: The response body's bytes on the wire.
  ///   - decodedBodyBytes: The response body's bytes after decoding.
  @inlinable public init(
    nameLookup: Duration? = nil,
    connect: Duration? = nil,
    secureConnect: Duration? = nil,
    requestSent: Duration? = nil,
    firstByte: Duration? = nil,
    total: Duration? = nil,
    redirect: Duration? = nil,
    isReusedConnection: Bool? = nil,
    httpVersion: String? = nil,
    remoteAddress: String? = nil,
    remotePort: Int? = nil,
    requestBytesSent: Int? = nil,
    responseHeadBytes: Int? = nil,
    responseBodyBytes: Int? = nil,
    decodedBodyBytes: Int? = nil
  ) {
    self.nameLookup = nameLookup
    self.connect = connect
    self.secureConnect = secureConnect
    self.requestSent = requestSent
    self.firstByte = firstByte
    self.total = total
    self.redirect = redirect
    self.isReusedConnection = isReusedConnection
    self.httpVersion = httpVersion
    self.remoteAddress = remoteAddress
    self.remotePort = remotePort
    self.requestBytesSent = requestBytesSent
    self.responseHeadBytes = responseHeadBytes
    self.responseBodyBytes = responseBodyBytes
    self.decodedBodyBytes = decodedBodyBytes
  }

  /// The times that are known, in `curl -w`'s order (redirect left out): each is at least the one before it.
  public var orderedTimes: [Duration] {
    [nameLookup, connect, secureConnect, requestSent, firstByte, total].compactMap { $0 }
  }
}
