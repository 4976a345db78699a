extension CurlTransport {
  /// How a ``CurlTransport`` manages its connections and buffers. The defaults suit a server talking to many hosts.
  ///
  /// ```swift
  /// var configuration = CurlTransport.Configuration()
  /// configuration.maximumConnectionsPerHost = 16
  /// configuration.receiveBufferSize = 1 << 20
  /// let transport = CurlTransport(configuration: configuration)
  /// ```
  public struct Configuration: Hashable, Sendable {
    /// The most connections open at once, to all hosts together (`CURLMOPT_MAX_TOTAL_CONNECTIONS`); `0` for no
    /// limit. Transfers beyond what the connections can start (one per connection, or 100 streams per connection to
    /// a host that answered over HTTP/2) wait in the transport, in order and without a libcurl handle or buffer,
    /// their total timeout running.
    public var maximumConnections: Int
    /// The most connections open at once to one host (`CURLMOPT_MAX_HOST_CONNECTIONS`); `0` for no limit. Transfers
    /// beyond it wait in the transport as for ``maximumConnections``.
    public var maximumConnectionsPerHost: Int
    /// The most idle connections kept open for reuse (`CURLMOPT_MAXCONNECTS`).
    public var maximumIdleConnections: Int
    /// The size of each transfer's receive buffer (`CURLOPT_BUFFERSIZE`), clamped to 16 KiB ... 10 MiB. Larger than
    /// libcurl's 16 KiB default for throughput: fewer reads per body. The 256 KiB default was chosen on the api-mix,
    /// fan-out and 100 MiB rows together (BENCHMARKS.md): only transfers libcurl can start hold one, so it costs
    /// 6 MiB over 16 KiB at 64 connections.
    public var receiveBufferSize: Int
    /// Whether HTTP/2 is negotiated over TLS when the server offers it (`CURL_HTTP_VERSION_2TLS`); otherwise
    /// HTTP/1.1 is used everywhere. Cleartext `http://` URLs always use HTTP/1.1.
    public var prefersHTTP2: Bool
    /// How many finished easy handles are kept for reuse.
    public var maximumPooledHandles: Int

    /// Creates a configuration; every argument has a default.
    /// - Parameters:
    ///   - maximumConnections: Connections to all hosts; 256 by default.
    ///   - maximumConnectionsPerHost: Connections to one host; 64 by default.
    ///   - maximumIdleConnections: Idle connections kept; 64 by default.
    ///   - receiveBufferSize: Receive buffer per transfer; 256 KiB by default.
    ///   - prefersHTTP2: HTTP/2 over TLS when offered; `true` by default.
    ///   - maximumPooledHandles: Easy handles kept for reuse; 64 by default.
    public init(
      maximumConnections: Int = 256,
      maximumConnectionsPerHost: Int = 64,
      maximumIdleConnections: Int = 64,
      receiveBufferSize: Int = 256 << 10,
      prefersHTTP2: Bool = true,
      maximumPooledHandles: Int = 64
    ) {
      self.maximumConnections = maximumConnections
      self.maximumConnectionsPerHost = maximumConnectionsPerHost
      self.maximumIdleConnections = maximumIdleConnections
      self.receiveBufferSize = receiveBufferSize
      self.prefersHTTP2 = prefersHTTP2
      self.maximumPooledHandles = maximumPooledHandles
    }
  }
}
