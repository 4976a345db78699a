import Foundation
package import HTTPTypes

/// Which proxy a transfer goes through: the one the environment names (the default), none, or a server of your own.
///
/// ```swift
/// var options = TransferOptions()
/// options.proxy = .http(host: "proxy.internal", port: 3128, bypass: ["localhost", ".corp.example"])
/// options.proxy = .socks5(host: "127.0.0.1", port: 1080, credentials: ProxyCredentials(user: "u", password: "p"))
/// options.proxy = .direct       // no proxy, whatever `http_proxy` says
/// ```
///
/// - ``environment``: the `http_proxy`, `https_proxy`, `all_proxy` and `no_proxy` environment variables apply, as
///   libcurl reads them (`http_proxy` in lowercase only; the others in either case). Both transports on Linux honour
///   them (FoundationNetworking through its own libcurl); on Apple platforms URLSession uses the system's settings.
/// - ``direct``: no proxy at all, the environment notwithstanding.
/// - ``server(_:)``: every request goes through the given ``ProxyServer``, except to the hosts on its
///   ``ProxyServer/bypass`` list (the environment's `no_proxy` no longer applies). An `https://` request is tunnelled
///   through an HTTP proxy with `CONNECT`, so the proxy sees the host and port, never the request; an `http://`
///   request is forwarded in absolute form. A SOCKS5 proxy resolves host names itself (`socks5h`).
///
/// A proxy that refuses the credentials, or asks for some when none were given (`407`), fails the transfer with
/// ``TransportError/Code/proxyAuthenticationFailed`` (under ``direct`` a `407` is returned as a response). Passwords
/// never appear in error text, descriptions or logs. `CurlTransport` honours every setting; `URLSessionTransport`
/// fails with ``TransportError/Code/unsupportedOption`` where its platform cannot (see its documentation).
public enum ProxySettings: Hashable, Sendable {
  /// The environment's proxy variables apply (the default).
  case environment
  /// No proxy, whatever the environment says.
  case direct
  /// Through this proxy server.
  case server(ProxyServer)

  /// Through an HTTP proxy: `http://` requests forwarded, `https://` ones tunnelled with `CONNECT`.
  /// - Parameters:
  ///   - host: The proxy's host name or IP address.
  ///   - port: The proxy's port.
  ///   - credentials: Basic credentials for the proxy (`Proxy-Authorization`), if it asks for them.
  ///   - bypass: Hosts reached directly (see ``ProxyServer/bypass``).
  /// - Returns: The setting.
  public static func http(
    host: String,
    port: Int,
    credentials: ProxyCredentials? = nil,
    bypass: [String] = []
  ) -> ProxySettings {
    .server(ProxyServer(kind: .http, host: host, port: port, credentials: credentials, bypass: bypass))
  }

  /// Through a SOCKS5 proxy, which also resolves host names (`socks5h`).
  /// - Parameters:
  ///   - host: The proxy's host name or IP address.
  ///   - port: The proxy's port.
  ///   - credentials: Username and password for the proxy (RFC 1929), if it asks for them.
  ///   - bypass: Hosts reached directly (see ``ProxyServer/bypass``).
  /// - Returns: The setting.
  public static func socks5(
    host: String,
    port: Int,
    credentials: ProxyCredentials? = nil,
    bypass: [String] = []
  ) -> ProxySettings {
    .server(ProxyServer(kind: .socks5, host: host, port: port, credentials: credentials, bypass: bypass))
  }

  /// The error for a `407 Proxy Authentication Required` answer when a proxy stood between the request and its
  /// server: ``TransportError/Code/proxyAuthenticationFailed``. Without one (``direct``, an environment that names no
  /// proxy for the URL, a host on the bypass list) the `407` is the origin server's and is returned as it is.
  /// - Parameters:
  ///   - response: A response head just received.
  ///   - request: The request it answers.
  /// - Returns: The error, or `nil` when the response is to be returned as it is.
  package func refusal(in response: HTTPResponse, to request: HTTPRequest) -> TransportError? {
    guard response.status.code == 407 else { return nil }
    let scheme = request.scheme?.lowercased() ?? "http"
    let host = Self.host(of: request.authority ?? "")
    switch self {
    case .direct:
      return nil
    case .environment:
      guard Self.environmentProxyVariable(scheme: scheme, host: host) != nil else { return nil }
    case .server(let server):
      guard !Self.matches(host, server.bypass) else { return nil }
    }
    return .proxyAuthenticationFailed(credentialsGiven: server.map { $0.credentials != nil })
  }

  /// The name of the environment variable through which libcurl sends a request to a proxy, or `nil` when none
  /// applies (none is set, or `no_proxy` covers the host). libcurl's order: `http_proxy` (lowercase only) for `http`,
  /// `https_proxy` or `HTTPS_PROXY` for `https`, then `all_proxy` or `ALL_PROXY`.
  /// - Parameters:
  ///   - scheme: The request's scheme, lowercased.
  ///   - host: The request's host, lowercased, without brackets or port.
  /// - Returns: The variable's name (never its value, which may hold credentials).
  package static func environmentProxyVariable(scheme: String, host: String) -> String? {
    let environment = ProcessInfo.processInfo.environment
    let names = (scheme == "https" ? ["https_proxy", "HTTPS_PROXY"] : ["http_proxy"]) + ["all_proxy", "ALL_PROXY"]
    guard let name = names.first(where: { !(environment[$0] ?? "").isEmpty }) else { return nil }
    let noProxy = (environment["no_proxy"] ?? environment["NO_PROXY"] ?? "").split(separator: ",").map(String.init)
    return matches(host, noProxy) ? nil : name
  }

  /// Whether `host` is on a bypass list of host names (each covering its subdomains; a leading dot allowed) or `*`.
  private static func matches(_ host: String, _ list: [String]) -> Bool {
    list.contains { entry in
      var pattern = entry.trimmingCharacters(in: .whitespaces).lowercased()
      if pattern == "*" { return true }
      if pattern.hasPrefix(".") { pattern.removeFirst() }
      return !pattern.isEmpty && (host == pattern || host.hasSuffix("." + pattern))
    }
  }

  /// The host of an authority, lowercased, without user information, port or IPv6 brackets.
  private static func host(of authority: String) -> String {
    var host = Substring(authority.lowercased())
    if let at = host.lastIndex(of: "@") { host = host[host.index(after: at)...] }
    if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
      return String(host[host.index(after: host.startIndex)..<close])
    }
    if let colon = host.lastIndex(of: ":") { host = host[..<colon] }
    return String(host)
  }

  /// The server of ``server(_:)``, `nil` for the others.
  public var server: ProxyServer? {
    if case .server(let server) = self { return server }
    return nil
  }
}

/// A proxy server: its kind, address, credentials and the hosts reached without it.
public struct ProxyServer: Hashable, Sendable {
  /// The protocol spoken with the proxy.
  public enum Kind: Hashable, Sendable {
    /// An HTTP proxy: absolute-form requests for `http://`, `CONNECT` tunnels for `https://`.
    case http
    /// A SOCKS5 proxy (RFC 1928), host names resolved by the proxy.
    case socks5
  }

  /// The protocol spoken with the proxy.
  public var kind: Kind
  /// The proxy's host name or IP address (an IPv6 address with or without brackets).
  public var host: String
  /// The proxy's port, 1...65535.
  public var port: Int
  /// The credentials the proxy asks for, if any.
  public var credentials: ProxyCredentials?
  /// Hosts reached directly, each a host name (which covers its subdomains too; a leading dot is allowed), an IP
  /// address, an IP range in CIDR form (`10.0.0.0/8`), or `*` for every host. Empty by default.
  public var bypass: [String]

  /// Creates a proxy server.
  /// - Parameters:
  ///   - kind: HTTP or SOCKS5.
  ///   - host: The proxy's host name or IP address.
  ///   - port: The proxy's port.
  ///   - credentials: Credentials, if the proxy asks for them.
  ///   - bypass: Hosts reached directly.
  public init(kind: Kind, host: String, port: Int, credentials: ProxyCredentials? = nil, bypass: [String] = []) {
    self.kind = kind
    self.host = host
    self.port = port
    self.credentials = credentials
    self.bypass = bypass
  }

  /// The host as it goes into a URL: an IPv6 address in brackets.
  package var urlHost: String {
    host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
  }

  /// Checks the settings before anything is sent.
  /// - Throws: ``TransportError`` with ``TransportError/Code/invalidRequest`` for an empty or malformed host, a
  ///   port outside 1...65535, or a bypass entry with a comma, a space or a control character.
  package func validate() throws(TransportError) {
    func bad(_ text: some StringProtocol) -> Bool {
      text.isEmpty || text.utf8.contains { $0 <= 0x20 || $0 == 0x7F || $0 == UInt8(ascii: ",") }
    }
    if bad(host) || host.contains("/") || host.contains("@") {
      throw TransportError(code: .invalidRequest, message: "the proxy host \(host.debugDescription) is not valid")
    }
    guard (1...65535).contains(port) else {
      throw TransportError(code: .invalidRequest, message: "the proxy port \(port) is not in 1...65535")
    }
    for entry in bypass where bad(entry) {
      throw TransportError(
        code: .invalidRequest,
        message: "the proxy bypass entry \(entry.debugDescription) is empty or holds a comma, a space or a control "
          + "character"
      )
    }
  }
}

/// A username and password for a proxy. The password is never shown: descriptions, dumps and mirrors say
/// `<redacted>`.
public struct ProxyCredentials: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible,
  CustomReflectable
{
  /// The username.
  public var user: String
  /// The password.
  public var password: String

  /// Creates credentials.
  /// - Parameters:
  ///   - user: The username.
  ///   - password: The password.
  public init(user: String, password: String) {
    self.user = user
    self.password = password
  }

  /// `ProxyCredentials(user: "…", password: <redacted>)`.
  public var description: String { "ProxyCredentials(user: \(user.debugDescription), password: <redacted>)" }

  /// The same as ``description``.
  public var debugDescription: String { description }

  /// The user, and the password as `<redacted>`.
  public var customMirror: Mirror {
    Mirror(self, children: ["user": user, "password": "<redacted>"], displayStyle: .struct)
  }
}
