import Foundation

/// The local servers the integration suite runs against: httpbin (gunicorn, from the repository's `.venv`), nginx
/// (static files, gzip, an upload sink) and the fault-injection server (`Tools/servers/faults.py`, a route per way an
/// HTTP peer can misbehave). Each is started once per test process, on first use, on a free port of
/// 127.0.0.1, and stopped when the process exits. A server that cannot start fails the test with an error that
/// shows its output and the command that fixes the machine; it is never skipped.
///
/// ```swift
/// let httpbin = try await LocalServers.shared.httpbin()        // http://127.0.0.1:PORT
/// let (data, _) = try await URLSession.shared.data(from: httpbin.appendingPathComponent("get"))
/// let nginx = try await LocalServers.shared.nginx()
/// let file = nginx.appendingPathComponent(StaticContent.small.name)   // 1 KiB, see StaticContent
/// ```
///
/// nginx serves `/1k.bin`, `/1m.bin`, `/100m.bin` (gzip when asked), the same files uncompressed under
/// `/identity/`, `/upload` (reads any body, then answers `{"method":..,"received":N}`), `/discard` (answers at once,
/// drops the body) and `/health`. A second nginx port speaks TLS only (``nginxTLS()``): HTTP/2 or HTTP/1.1, a
/// certificate signed by the suite's private test CA (``tlsMaterial()``), serving `/health`, the static files,
/// `/identity/`, `/protocol` (the protocol the request came in with: `HTTP/2.0` or `HTTP/1.1`) and `/to-http` (a 302
/// to `http://` on the same port).
///
/// ```swift
/// let secure = try await LocalServers.shared.nginxTLS()       // https://127.0.0.1:PORT
/// let material = try await LocalServers.shared.tlsMaterial()  // material.caFile, material.pin
/// ```
///
/// The fault server's routes (`/reset/mid-body`, `/stall/head`, `/gzip/bomb`, ...) are listed in its docstring; `/ok`
/// answers `200 ok`. The GraphQL server (`Tools/servers/graphql_server.py`, graphql-core from the `.venv`) answers
/// `POST /graphql`; its schema is in its docstring.
///
/// ```swift
/// let faults = try await LocalServers.shared.faults()         // http://127.0.0.1:PORT
/// let proxy = try await LocalServers.shared.proxy()           // proxy.port, proxy.authPort, proxy.relays()
/// ```
actor LocalServers {
  /// A server the harness can start.
  enum Server: String, Sendable, CaseIterable {
    /// httpbin served by gunicorn.
    case httpbin
    /// nginx with the repository's `Tools/servers/nginx.conf.template`.
    case nginx
    /// `Tools/servers/faults.py`, run by the `.venv`'s Python (standard library only).
    case faults
    /// `Tools/servers/proxy.py`, a forward proxy (HTTP, CONNECT, SOCKS5), run by the `.venv`'s Python.
    case proxy
    /// `Tools/servers/graphql_server.py`, a GraphQL server (graphql-core from the `.venv`).
    case graphQL
  }

  /// The servers of this test process, for the repository this file is in.
  static let shared = LocalServers(configuration: Result { () throws(LocalServerError) in try .default() })

  private let configuration: Result<Configuration, LocalServerError>
  private var starts: [Server: Task<ServerProcess, any Error>] = [:]

  /// Servers described by `configuration` (a test hook: the suite uses ``shared``).
  init(configuration: Configuration) {
    self.configuration = .success(configuration)
  }

  private init(configuration: Result<Configuration, LocalServerError>) {
    self.configuration = configuration
  }

  /// The base URL of httpbin, `http://127.0.0.1:PORT`, starting it on first use.
  /// - Throws: `LocalServerError` when it cannot start; every later call throws the same error.
  func httpbin() async throws -> URL {
    try await baseURL(of: .httpbin)
  }

  /// The base URL of nginx, `http://127.0.0.1:PORT`, starting it on first use.
  /// - Throws: `LocalServerError` when it cannot start; every later call throws the same error.
  func nginx() async throws -> URL {
    try await baseURL(of: .nginx)
  }

  /// The base URL of the fault-injection server, `http://127.0.0.1:PORT`, starting it on first use.
  /// - Throws: `LocalServerError` when it cannot start; every later call throws the same error.
  func faults() async throws -> URL {
    try await baseURL(of: .faults)
  }

  /// The base URL of the GraphQL server, `http://127.0.0.1:PORT` (queries go to `/graphql`), starting it on first use.
  /// - Throws: `LocalServerError` when it cannot start; every later call throws the same error.
  func graphQL() async throws -> URL {
    try await baseURL(of: .graphQL)
  }

  /// The forward proxy (`Tools/servers/proxy.py`), starting it on first use: its open port, which relays for anyone,
  /// and its second port, which asks for ``ProxyEndpoint/user`` and ``ProxyEndpoint/password``. Both count what they
  /// relay (``ProxyEndpoint/relays()``).
  /// - Throws: `LocalServerError` when it cannot start; every later call throws the same error.
  func proxy() async throws -> ProxyEndpoint {
    let base = try await baseURL(of: .proxy)
    let stats = try await ProxyEndpoint.stats(at: base)
    guard let authPort = stats["authPort"] as? Int else {
      throw LocalServerError(.notReady, "the proxy's /stats names no authPort: \(stats)")
    }
    return ProxyEndpoint(port: base.port ?? 0, authPort: authPort)
  }

  /// The base URL of nginx's TLS port, `https://127.0.0.1:PORT`, starting nginx on first use. Its certificate is
  /// valid for `127.0.0.1` and `localhost` only for a client that trusts ``tlsMaterial()``'s `caFile`.
  /// - Throws: `LocalServerError` when nginx cannot start; every later call throws the same error.
  func nginxTLS() async throws -> URL {
    try await tlsEndpoint().baseURL
  }

  /// The test CA and the server's public-key pin of ``nginxTLS()``, starting nginx on first use.
  /// - Throws: `LocalServerError` when nginx cannot start; every later call throws the same error.
  func tlsMaterial() async throws -> TLSMaterial {
    try await tlsEndpoint().material
  }

  private func tlsEndpoint() async throws -> ServerProcess.TLSEndpoint {
    guard let endpoint = try await process(of: .nginx).tls else {
      throw LocalServerError(.startFailed, "nginx was started without its TLS port.")
    }
    return endpoint
  }

  /// The base URL of `server`, starting it on first use. Concurrent callers share one start.
  func baseURL(of server: Server) async throws -> URL {
    try await process(of: server).baseURL
  }

  /// The running `server`, starting it on first use.
  func process(of server: Server) async throws -> ServerProcess {
    if let start = starts[server] {
      return try await start.value
    }
    let configuration = try self.configuration.get()
    let launcher = ServerLauncher(configuration: configuration)
    let start = Task {
      // The launcher blocks (files, process start, probes): a thread of its own keeps the shared pool free.
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ServerProcess, any Error>) in
        Thread.detachNewThread {
          continuation.resume(with: Result { () throws(LocalServerError) in try launcher.start(server) })
        }
      }
    }
    starts[server] = start
    return try await start.value
  }

  /// Stops the servers this instance started (the shared ones are otherwise stopped when the process exits).
  func stopAll() async {
    let started = starts.values
    starts = [:]
    for start in started {
      if let process = try? await start.value {
        process.stop()
      }
    }
  }
}

/// The forward proxy of the suite (`Tools/servers/proxy.py`): an open port and one that asks for credentials.
struct ProxyEndpoint: Sendable {
  /// One relayed connection or request, as the proxy recorded it.
  struct Relay: Sendable {
    /// `http` (absolute-form forwarding), `connect` (a tunnel) or `socks5`.
    let kind: String
    /// `host:port` of the target.
    let target: String
    /// The proxy port the client came in on.
    let port: Int
    /// The user the client authenticated as, if any.
    let user: String?
    /// The first request line seen in plain text (none through TLS).
    let line: String?
  }

  /// The user the second port accepts.
  static let user = "malibu"
  /// The password the second port accepts.
  static let password = "proxy-secret"

  /// The open port: relays for anyone.
  let port: Int
  /// The port that asks for ``user`` and ``password``.
  let authPort: Int

  /// What the proxy relayed so far, on either port.
  func relays() async throws -> [Relay] {
    let stats = try await Self.stats(at: URL(string: "http://127.0.0.1:\(port)")!)
    let list = stats["relays"] as? [[String: any Sendable]] ?? []
    return list.map { entry in
      Relay(
        kind: entry["kind"] as? String ?? "",
        target: entry["target"] as? String ?? "",
        port: entry["port"] as? Int ?? 0,
        user: entry["user"] as? String,
        line: entry["line"] as? String
      )
    }
  }

  /// How many requests the proxy refused for bad or missing credentials so far.
  func rejected() async throws -> Int {
    try await Self.stats(at: URL(string: "http://127.0.0.1:\(port)")!)["rejected"] as? Int ?? 0
  }

  /// The relays whose request line holds `marker` (a unique path segment of one test).
  func relays(marked marker: String) async throws -> [Relay] {
    try await relays().filter { $0.line?.contains(marker) == true }
  }

  /// The proxy's `/stats`, read over a raw loopback socket (no transport, no proxy variable involved).
  static func stats(at base: URL) async throws -> [String: any Sendable] {
    let port = UInt16(base.port ?? 0)
    let answer = await withCheckedContinuation { continuation in
      Thread.detachNewThread { continuation.resume(returning: LoopbackSocket.get(port: port, path: "/stats")) }
    }
    guard let answer, answer.status == 200 else {
      throw LocalServerError(.notReady, "the proxy on port \(port) did not answer /stats")
    }
    let body = answer.head.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
    let object = try JSONSerialization.jsonObject(with: Data(body.utf8))
    return object as? [String: any Sendable] ?? [:]
  }
}
