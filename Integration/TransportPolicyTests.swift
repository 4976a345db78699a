import Foundation
import HTTPTypes
import MalibuTransport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The HTTPS-only policy and proxies, on every transport, against httpbin, nginx's TLS port and the suite's forward
/// proxy (`Tools/servers/proxy.py`, which records what it relays). After every failure the same transport serves a
/// good request.
///
/// URLSession on Linux cannot trust the suite's private CA (so its https cases run on curl there) and cannot use an
/// explicit proxy (FoundationNetworking ignores `connectionProxyDictionary`): those cases check the
/// `unsupportedOption` error instead, and the environment's proxy variables, which it does honour.
@Suite("Transport policy", .serialized)
struct TransportPolicyTests {
  /// Whether `backend` can reach nginx's TLS port with the test CA on this platform.
  static func speaksLocalTLS(_ backend: Backend) -> Bool {
    #if canImport(FoundationNetworking)
    return backend == .curl
    #else
    return true
    #endif
  }

  /// Whether `backend` honours an explicit proxy on this platform.
  static func usesExplicitProxy(_ backend: Backend) -> Bool {
    #if canImport(FoundationNetworking)
    return backend == .curl
    #else
    return true
    #endif
  }

  static func tlsOptions() async throws -> TransferOptions {
    var options = TransferOptions()
    options.tls.caFile = try await LocalServers.shared.tlsMaterial().caFile
    return options
  }

  static func marker() -> String { "m" + UUID().uuidString.prefix(12).lowercased() }

  // MARK: HTTPS only

  @Test("refuse: an http:// request fails before a byte is sent", arguments: Backend.allCases)
  func refusedRequestSendsNothing(_ backend: Backend) async throws {
    let proxy = try await LocalServers.shared.proxy()
    let marker = Self.marker()
    var options = TransferOptions()
    options.insecureHTTP = .refuse
    // curl: through the proxy, which would record the request had anything been sent.
    if backend == .curl { options.proxy = .http(host: "127.0.0.1", port: proxy.port) }
    do {
      _ = try await backend.exchange(Servers.httpbin("/anything/\(marker)"), options: options)
      Issue.record("an http:// request was sent under .refuse")
    } catch let error as TransportError {
      #expect(error.code == .insecureScheme, "\(error)")
      #expect(error.message.contains("http://127.0.0.1:"))
      #expect(!error.message.contains(marker), "the message names the host, not the path")
    }
    #expect(try await proxy.relays(marked: marker).isEmpty)
    #expect(try await backend.exchange(Servers.httpbin("/get")).status == 200)
  }

  @Test("upgrade: an http:// request goes over https:// to the same host and port", arguments: Backend.allCases)
  func upgradedRequestUsesTLS(_ backend: Backend) async throws {
    let secure = try await LocalServers.shared.nginxTLS()
    let plain = try #require(URL(string: "http://127.0.0.1:\(secure.port ?? 0)/health"))
    var options = try await Self.speaksLocalTLS(backend) ? Self.tlsOptions() : TransferOptions()
    options.insecureHTTP = .upgrade
    if Self.speaksLocalTLS(backend) {
      let exchange = try await backend.exchange(plain, options: options)
      #expect(exchange.status == 200)
      #expect(exchange.url?.scheme == "https")
    } else {
      // The TLS handshake was tried (the suite's CA is not trusted here): the upgrade happened. Sent as plain HTTP
      // to the TLS port, the request would have been answered with nginx's 400.
      await expectTransportError(.tls) { try await backend.exchange(plain, options: options) }
    }
    #expect(try await backend.exchange(Servers.httpbin("/get")).status == 200)
  }

  @Test("refuse: a redirect from https:// to http:// fails", arguments: Backend.allCases.filter(speaksLocalTLS))
  func redirectToHTTPIsRefused(_ backend: Backend) async throws {
    var options = try await Self.tlsOptions()
    options.insecureHTTP = .refuse
    let url = try await Servers.nginxTLS("/to-http")
    do {
      _ = try await backend.exchange(url, options: options)
      Issue.record("a redirect to http:// was followed under .refuse")
    } catch let error as TransportError {
      #expect(error.code == .insecureScheme, "\(error)")
      #expect(error.message.contains("redirect from https://127.0.0.1:"))
    }
    #expect(try await backend.exchange(Servers.nginxTLS("/health"), options: options).status == 200)
  }

  @Test("upgrade: a redirect to http:// is followed over https://", arguments: Backend.allCases.filter(speaksLocalTLS))
  func redirectToHTTPIsUpgraded(_ backend: Backend) async throws {
    var options = try await Self.tlsOptions()
    options.insecureHTTP = .upgrade
    let exchange = try await backend.exchange(Servers.nginxTLS("/to-http"), options: options)
    #expect(exchange.status == 200)
    #expect(exchange.url?.scheme == "https")
    #expect(exchange.url?.path == "/health")
  }

  @Test("allow (the default): a redirect to http:// is followed as it is", arguments: [Backend.curl])
  func redirectToHTTPIsAllowedByDefault(_ backend: Backend) async throws {
    let exchange = try await backend.exchange(Servers.nginxTLS("/to-http"), options: Self.tlsOptions())
    // Plain HTTP sent to the TLS port: nginx answers 400, which shows the request went out as http://.
    #expect(exchange.status == 400)
    #expect(exchange.url?.scheme == "http")
  }

  // MARK: Proxies

  @Test("an explicit HTTP proxy relays http:// requests", arguments: Backend.allCases)
  func httpProxyRelays(_ backend: Backend) async throws {
    let proxy = try await LocalServers.shared.proxy()
    let marker = Self.marker()
    var options = TransferOptions()
    options.proxy = .http(host: "127.0.0.1", port: proxy.port)
    guard Self.usesExplicitProxy(backend) else {
      await expectTransportError(.unsupportedOption) {
        try await backend.exchange(Servers.httpbin("/anything/\(marker)"), options: options)
      }
      #expect(try await proxy.relays(marked: marker).isEmpty)
      #expect(try await backend.exchange(Servers.httpbin("/get")).status == 200)
      return
    }
    let exchange = try await backend.exchange(Servers.httpbin("/anything/\(marker)"), options: options)
    #expect(exchange.status == 200)
    let relays = try await proxy.relays(marked: marker)
    #expect(relays.count == 1)
    #expect(relays.first?.kind == "http")
  }

  @Test("an https:// request is tunnelled through an HTTP proxy with CONNECT", arguments: [Backend.curl])
  func httpsThroughConnect(_ backend: Backend) async throws {
    let proxy = try await LocalServers.shared.proxy()
    let secure = try await LocalServers.shared.nginxTLS()
    var options = try await Self.tlsOptions()
    options.proxy = .http(host: "127.0.0.1", port: proxy.port)
    let before = try await proxy.relays().filter { $0.kind == "connect" }.count
    let exchange = try await backend.exchange(Servers.nginxTLS("/health"), options: options)
    #expect(exchange.status == 200)
    let tunnels = try await proxy.relays().filter { $0.kind == "connect" && $0.target.hasSuffix(":\(secure.port!)") }
    #expect(tunnels.count > before)
    #expect(tunnels.last?.line == nil, "the proxy sees TLS bytes only")
  }

  @Test("SOCKS5 with credentials relays, resolving names at the proxy", arguments: [Backend.curl])
  func socks5WithCredentials(_ backend: Backend) async throws {
    let proxy = try await LocalServers.shared.proxy()
    let httpbin = try await LocalServers.shared.httpbin()
    let marker = Self.marker()
    var options = TransferOptions()
    options.proxy = .socks5(
      host: "127.0.0.1",
      port: proxy.authPort,
      credentials: ProxyCredentials(user: ProxyEndpoint.user, password: ProxyEndpoint.password)
    )
    let url = try #require(URL(string: "http://localhost:\(httpbin.port!)/anything/\(marker)"))
    let exchange = try await backend.exchange(url, options: options)
    #expect(exchange.status == 200)
    let relays = try await proxy.relays(marked: marker)
    #expect(relays.count == 1)
    #expect(relays.first?.kind == "socks5")
    #expect(relays.first?.user == ProxyEndpoint.user)
    #expect(relays.first?.target == "localhost:\(httpbin.port!)", "the name reached the proxy unresolved")
  }

  struct CredentialCase: Sendable, CustomTestStringConvertible {
    let kind: ProxyServer.Kind
    let https: Bool
    let credentials: ProxyCredentials?
    var testDescription: String {
      "\(kind)\(https ? " CONNECT" : "") \(credentials == nil ? "without credentials" : "wrong password")"
    }
  }

  static let wrongPassword = "not-the-password-3141"

  static let credentialCases: [CredentialCase] = [ProxyServer.Kind.http, .socks5].flatMap { kind in
    [false, true].flatMap { https in
      [nil, ProxyCredentials(user: ProxyEndpoint.user, password: wrongPassword)].map {
        CredentialCase(kind: kind, https: https, credentials: $0)
      }
    }
  }

  @Test(
    "wrong or missing proxy credentials: proxyAuthenticationFailed, no password in the text",
    arguments: credentialCases
  )
  func wrongCredentials(_ testCase: CredentialCase) async throws {
    let backend = Backend.curl
    let proxy = try await LocalServers.shared.proxy()
    let rejectedBefore = try await proxy.rejected()
    var options = testCase.https ? try await Self.tlsOptions() : TransferOptions()
    options.proxy = .server(
      ProxyServer(kind: testCase.kind, host: "127.0.0.1", port: proxy.authPort, credentials: testCase.credentials)
    )
    let url = try await testCase.https ? Servers.nginxTLS("/health") : Servers.httpbin("/get")
    do {
      _ = try await backend.exchange(url, options: options)
      Issue.record("the proxy let the request through")
    } catch let error as TransportError {
      #expect(error.code == .proxyAuthenticationFailed, "\(error)")
      #expect(!"\(error)".contains(Self.wrongPassword))
      #expect(!"\(error)".contains(ProxyEndpoint.password))
    }
    #expect(try await proxy.rejected() > rejectedBefore)
    var good = options
    good.proxy = .server(
      ProxyServer(
        kind: testCase.kind,
        host: "127.0.0.1",
        port: proxy.authPort,
        credentials: ProxyCredentials(user: ProxyEndpoint.user, password: ProxyEndpoint.password)
      )
    )
    #expect(try await backend.exchange(url, options: good).status == 200)
  }

  struct BypassCase: Sendable, CustomTestStringConvertible {
    let bypass: [String]
    let proxied: Bool
    var testDescription: String { "bypass \(bypass) → \(proxied ? "proxied" : "direct")" }
  }

  @Test(
    "the bypass list sends matching hosts directly",
    arguments: [
      BypassCase(bypass: [], proxied: true),
      BypassCase(bypass: ["localhost", "example.com"], proxied: true),
      BypassCase(bypass: ["127.0.0.1"], proxied: false),
      BypassCase(bypass: ["example.com", "127.0.0.0/8"], proxied: false),
      BypassCase(bypass: ["*"], proxied: false),
    ]
  )
  func bypassList(_ testCase: BypassCase) async throws {
    let proxy = try await LocalServers.shared.proxy()
    let marker = Self.marker()
    var options = TransferOptions()
    options.proxy = .http(host: "127.0.0.1", port: proxy.port, bypass: testCase.bypass)
    #expect(try await Backend.curl.exchange(Servers.httpbin("/anything/\(marker)"), options: options).status == 200)
    #expect(try await proxy.relays(marked: marker).count == (testCase.proxied ? 1 : 0))
  }

  @Test("a malformed proxy setting is an invalidRequest before sending", arguments: Backend.allCases)
  func malformedProxy(_ backend: Backend) async throws {
    for setting in [
      ProxySettings.http(host: "", port: 8080),
      .http(host: "127.0.0.1", port: 0),
      .socks5(host: "proxy host", port: 1080),
      .http(host: "127.0.0.1", port: 3128, bypass: ["a,b"]),
    ] {
      var options = TransferOptions()
      options.proxy = setting
      await expectTransportError(.invalidRequest) {
        try await backend.exchange(Servers.httpbin("/get"), options: options)
      }
    }
    #expect(try await backend.exchange(Servers.httpbin("/get")).status == 200)
  }

  /// The environment's `http_proxy` applies by default and `.direct` bypasses it. The variable is process-wide:
  /// set only inside this test (the integration suite runs one test at a time) and removed before it returns.
  @Test("http_proxy in the environment: honoured by default, bypassed by .direct", arguments: Backend.allCases)
  func environmentProxy(_ backend: Backend) async throws {
    let proxy = try await LocalServers.shared.proxy()
    let previous = getenv("http_proxy").map { String(cString: $0) }
    setenv("http_proxy", "http://127.0.0.1:\(proxy.port)", 1)
    defer {
      if let previous { setenv("http_proxy", previous, 1) } else { unsetenv("http_proxy") }
    }
    let viaEnvironment = Self.marker()
    #expect(try await backend.exchange(Servers.httpbin("/anything/\(viaEnvironment)")).status == 200)
    #expect(try await proxy.relays(marked: viaEnvironment).count == 1, "the environment's proxy was not used")

    let direct = Self.marker()
    var options = TransferOptions()
    options.proxy = .direct
    #if canImport(FoundationNetworking)
    if backend == .urlSession {
      do {
        _ = try await backend.exchange(Servers.httpbin("/anything/\(direct)"), options: options)
        Issue.record("URLSession on Linux claimed to bypass http_proxy")
      } catch let error as TransportError {
        #expect(error.code == .unsupportedOption)
        #expect(error.message.contains("http_proxy"))
        #expect(!error.message.contains("\(proxy.port)"), "the variable is named, its value is not quoted")
      }
      #expect(try await proxy.relays(marked: direct).isEmpty)
      return
    }
    #endif
    #expect(try await backend.exchange(Servers.httpbin("/anything/\(direct)"), options: options).status == 200)
    #expect(try await proxy.relays(marked: direct).isEmpty, ".direct went through the environment's proxy")
  }

  @Test(
    "a 407 from the environment's proxy is proxyAuthenticationFailed on both transports",
    arguments: Backend.allCases
  )
  func environmentProxyWithWrongCredentials(_ backend: Backend) async throws {
    let proxy = try await LocalServers.shared.proxy()
    let previous = getenv("http_proxy").map { String(cString: $0) }
    setenv("http_proxy", "http://\(ProxyEndpoint.user):\(Self.wrongPassword)@127.0.0.1:\(proxy.authPort)", 1)
    defer {
      if let previous { setenv("http_proxy", previous, 1) } else { unsetenv("http_proxy") }
    }
    do {
      _ = try await backend.exchange(Servers.httpbin("/get"))
      Issue.record("the proxy let the request through")
    } catch let error as TransportError {
      #expect(error.code == .proxyAuthenticationFailed, "\(error)")
      #expect(!"\(error)".contains(Self.wrongPassword))
    }
    unsetenv("http_proxy")
    #expect(try await backend.exchange(Servers.httpbin("/get")).status == 200)
  }
}
