public import HTTPTypes

/// How one transfer behaves: timeouts, redirects, decompression, TLS, progress, request compression, retries, the
/// HTTPS-only policy, the proxy and the connection policy.
///
/// The defaults suit most API calls: 30 s to connect, 60 s of silence at most once connected, no total limit, up
/// to 10 redirects, gzip and deflate decoded up to 256 MiB and at most 1000 times their encoded size, certificates
/// verified, no retry, `http://` allowed, proxies taken from the environment, redirects into link-local addresses
/// refused (``ConnectionPolicy/default``).
///
/// ```swift
/// var options = TransferOptions()
/// options.timeouts = Timeouts(connect: .seconds(5), idle: .seconds(30), total: .seconds(120))
/// options.redirects = .follow(max: 3)
/// options.decompression = .enabled(limit: 100 << 20)
/// options.progress = { progress in print(progress.downloaded, progress.downloadTotal ?? -1) }
/// options.retry = .default
/// ```
public struct TransferOptions: Sendable {
  /// The timeouts, by kind.
  public var timeouts: Timeouts
  /// Whether and how far redirects are followed.
  public var redirects: RedirectPolicy
  /// Whether `Content-Encoding: gzip` / `deflate` bodies are decoded, and up to what size.
  public var decompression: Decompression
  /// Certificate verification and pinning.
  public var tls: TLSOptions
  /// Called as bytes move; see ``TransferProgress``.
  public var progress: (@Sendable (TransferProgress) -> Void)?
  /// Whether the request body is sent gzip-compressed (`Content-Encoding: gzip`).
  public var requestCompression: RequestCompression
  /// When a failed attempt is sent again; read by ``RetryMiddleware``, which must be in the chain (a transport alone
  /// sends once whatever this says).
  ///
  /// ``RetryPolicy/none`` by default: a retry sends a request the caller sent once several times, adds waits
  /// to its latency and load to a server that is already failing, so it is the application's choice, as with
  /// URLSession, Alamofire or async-http-client; a mock or a test sees exactly the requests it scripted.
  /// ``RetryPolicy/default`` is one assignment away.
  public var retry: RetryPolicy
  /// What happens to plain `http://` requests and redirects: sent (``InsecureHTTPPolicy/allow``, the default),
  /// refused or upgraded to `https://`.
  public var insecureHTTP: InsecureHTTPPolicy
  /// The proxy: the environment's (``ProxySettings/environment``, the default), none, or a server of your own.
  public var proxy: ProxySettings
  /// Which addresses connections may go to: ``ConnectionPolicy/default`` refuses redirects into link-local addresses
  /// (cloud metadata services); ``ConnectionPolicy/publicInternetOnly`` refuses every non-public address.
  public var connectionPolicy: ConnectionPolicy

  /// Creates options; every argument has the default described on the type.
  /// - Parameters:
  ///   - timeouts: The timeouts.
  ///   - redirects: The redirect policy.
  ///   - decompression: Response decoding.
  ///   - tls: TLS settings.
  ///   - progress: A progress handler.
  ///   - requestCompression: Request body compression.
  ///   - retry: The retry policy; none by default.
  ///   - insecureHTTP: The HTTPS-only policy.
  ///   - proxy: The proxy.
  ///   - connectionPolicy: Which addresses connections may go to.
  public init(
    timeouts: Timeouts = Timeouts(),
    redirects: RedirectPolicy = .follow(max: 10),
    decompression: Decompression = .enabled(limit: Decompression.defaultLimit),
    tls: TLSOptions = TLSOptions(),
    progress: (@Sendable (TransferProgress) -> Void)? = nil,
    requestCompression: RequestCompression = .none,
    retry: RetryPolicy = .none,
    insecureHTTP: InsecureHTTPPolicy = .allow,
    proxy: ProxySettings = .environment,
    connectionPolicy: ConnectionPolicy = .default
  ) {
    self.timeouts = timeouts
    self.redirects = redirects
    self.decompression = decompression
    self.tls = tls
    self.progress = progress
    self.requestCompression = requestCompression
    self.retry = retry
    self.insecureHTTP = insecureHTTP
    self.proxy = proxy
    self.connectionPolicy = connectionPolicy
  }
}

/// Timeouts by kind; `nil` means none of that kind.
public struct Timeouts: Hashable, Sendable {
  /// The longest time to establish a connection (DNS, TCP and TLS included).
  public var connect: Duration?
  /// The longest time without a byte moving in either direction, once connected.
  public var idle: Duration?
  /// The longest time for the whole transfer, redirects included. With a ``RetryPolicy``, the whole request:
  /// every attempt and every wait between them, counted from the first attempt (a `Retry-After` longer than what
  /// remains returns the last response at once; see ``RetryMiddleware``).
  public var total: Duration?

  /// Creates timeouts.
  /// - Parameters:
  ///   - connect: Connection timeout; 30 s by default.
  ///   - idle: Idle timeout; 60 s by default.
  ///   - total: Total timeout; none by default.
  public init(connect: Duration? = .seconds(30), idle: Duration? = .seconds(60), total: Duration? = nil) {
    self.connect = connect
    self.idle = idle
    self.total = total
  }
}

/// Whether redirects are followed.
///
/// Followed redirects behave the same on every transport: 301, 302 and 303 turn a POST into a GET without a body
/// (303 turns any method but HEAD into GET), 307 and 308 keep the method and the body. When a redirect leaves the
/// origin (scheme, host and port), `Authorization`, `Cookie` and `Proxy-Authorization` are dropped, and so are the
/// ``sensitiveFields`` named here (an API key in a field of its own, say):
///
/// ```swift
/// options.redirects.sensitiveFields = [HTTPField.Name("X-Api-Key")!]
/// ```
public struct RedirectPolicy: Hashable, Sendable {
  /// The most redirects followed; `0` follows none and returns the 3xx response itself.
  public var maxRedirects: Int

  /// Further fields that never follow a redirect to another origin, besides `Authorization`, `Cookie` and
  /// `Proxy-Authorization`, which are always dropped there. Empty by default. Names match case-insensitively; a
  /// redirect within the origin keeps every field.
  public var sensitiveFields: Set<HTTPField.Name> = []

  /// Follow up to `max` redirects; one more is a ``TransportError/Code/tooManyRedirects`` error.
  /// - Parameter max: The most redirects followed.
  /// - Returns: The policy.
  public static func follow(max: Int) -> RedirectPolicy {
    RedirectPolicy(maxRedirects: Swift.max(0, max))
  }

  /// Never follow: a 3xx response is returned as it is.
  public static let none = RedirectPolicy(maxRedirects: 0)
}

/// Whether response bodies with a content coding are decoded, and how much a decompression bomb may cost.
///
/// Two bounds apply while a body is decoded, each failing the transfer with ``TransportError/Code/bodyTooLarge``:
/// - ``limit``: the decoded size (256 MiB by default, the facade's response ceiling);
/// - ``maximumRatio``: once the decoded body has passed ``ratioThreshold`` (8 MiB), it may not be more than this many
///   times the encoded bytes received so far (1000 by default). Real bodies rarely compress better than 100:1;
///   deflate's best is about 1030:1, which only long runs of one byte reach, so a bomb is refused after about
///   8 MiB of work instead of the whole limit.
public struct Decompression: Hashable, Sendable {
  /// The decoded size ``TransferOptions`` accepts by default: 256 MiB.
  public static let defaultLimit = 256 << 20
  /// The ratio of decoded to encoded bytes accepted by default: 1000.
  public static let defaultMaximumRatio = 1000
  /// The decoded size below which ``maximumRatio`` is not checked: 8 MiB (a small body may compress very well).
  public static let ratioThreshold = 8 << 20

  /// The largest decoded size accepted, when decoding is on.
  public var limit: Int?
  /// Whether decoding is on.
  public var isEnabled: Bool
  /// The most decoded bytes per encoded byte once the body has passed ``ratioThreshold``, or `nil` for no check.
  public var maximumRatio: Int? = Decompression.defaultMaximumRatio

  /// Decode gzip and deflate bodies; a body that decodes to more than `limit` bytes, or (past
  /// ``ratioThreshold``) to more than `maximumRatio` times its encoded size, fails with
  /// ``TransportError/Code/bodyTooLarge``.
  /// - Parameters:
  ///   - limit: The largest decoded size, or `nil` for no limit.
  ///   - maximumRatio: The most decoded bytes per encoded byte, or `nil` for no check; 1000 by default.
  /// - Returns: The setting.
  public static func enabled(limit: Int?, maximumRatio: Int? = defaultMaximumRatio) -> Decompression {
    Decompression(limit: limit, isEnabled: true, maximumRatio: maximumRatio.map { max($0, 1) })
  }

  /// Hand bodies over as they arrived, still encoded; `Accept-Encoding` is then left to the caller.
  public static let disabled = Decompression(limit: nil, isEnabled: false, maximumRatio: nil)
}

/// TLS settings. Certificates are verified unless ``insecure`` is set explicitly.
public struct TLSOptions: Hashable, Sendable {
  /// A PEM file of extra certificate authorities to trust.
  public var caFile: String?
  /// A public-key pin in curl's form: `sha256//<base64 of the SHA-256 of the DER public key>` (several joined by
  /// `;`). Transports that cannot pin fail with ``TransportError/Code/unsupportedOption`` rather than ignore it.
  public var pinnedPublicKey: String?
  /// Skip certificate and host-name verification. For local testing only.
  public var insecure: Bool

  /// Creates TLS settings.
  /// - Parameters:
  ///   - caFile: Extra certificate authorities.
  ///   - pinnedPublicKey: A public-key pin.
  ///   - insecure: Skip verification.
  public init(caFile: String? = nil, pinnedPublicKey: String? = nil, insecure: Bool = false) {
    self.caFile = caFile
    self.pinnedPublicKey = pinnedPublicKey
    self.insecure = insecure
  }
}

/// Bytes moved so far in a transfer. Totals are `nil` when unknown. Progress is monotonic within one transfer.
public struct TransferProgress: Hashable, Sendable {
  /// Request body bytes sent.
  public var uploaded: Int64
  /// The request body's length, when known.
  public var uploadTotal: Int64?
  /// Response body bytes received (before decoding).
  public var downloaded: Int64
  /// The response body's announced length, when known (before decoding).
  public var downloadTotal: Int64?

  /// Creates a progress value.
  /// - Parameters:
  ///   - uploaded: Bytes sent.
  ///   - uploadTotal: Bytes to send, if known.
  ///   - downloaded: Bytes received.
  ///   - downloadTotal: Bytes to receive, if known.
  public init(uploaded: Int64, uploadTotal: Int64?, downloaded: Int64, downloadTotal: Int64?) {
    self.uploaded = uploaded
    self.uploadTotal = uploadTotal
    self.downloaded = downloaded
    self.downloadTotal = downloadTotal
  }
}

/// Whether a request body is compressed before sending.
public struct RequestCompression: Hashable, Sendable {
  private let gzip: Bool

  /// Send the body as it is.
  public static let none = RequestCompression(gzip: false)
  /// Compress the body with gzip and send `Content-Encoding: gzip` (the length becomes unknown: the body is sent
  /// chunked).
  public static let gzip = RequestCompression(gzip: true)

  /// Whether gzip is on.
  public var isEnabled: Bool { gzip }
}
