import MalibuCore
import MalibuTransport

#if canImport(FoundationNetworking)
import Foundation
public import FoundationNetworking
#else
public import Foundation
#endif

/// The session configuration of a ``Networking``: what a URLSession transport is made from, and what every transport
/// takes from it.
///
/// ```swift
/// let configuration = URLSessionConfiguration.ephemeral
/// configuration.httpAdditionalHeaders = ["X-Client": "board-app"]
/// configuration.timeoutIntervalForRequest = 20
/// let networking = Networking<SharkywatersEndpoint>(sessionConfiguration: .custom(configuration))
/// ```
///
/// A ``custom(_:)`` configuration means the same on every transport where it can:
///
/// | setting | curl and URLSession alike |
/// | --- | --- |
/// | `httpAdditionalHeaders` | header fields every request gets, below ``Networking/headers``, `R.headers` and the request's own |
/// | `timeoutIntervalForRequest` | ``Networking/transferOptions``' `timeouts.idle` |
/// | `timeoutIntervalForResource` | `timeouts.total` (Foundation's default of 7 days leaves it unset) |
/// | `connectionProxyDictionary` | `transferOptions.proxy`: HTTP/HTTPS or SOCKS proxy, `ExceptionsList` as the bypass list; empty means `.direct` |
/// | `httpShouldSetCookies`, `httpCookieAcceptPolicy` | no transport keeps cookies in URLSession's stores; Malibu's own cookie handling, where a networking has it, follows these two |
/// | `requestCachePolicy` | the cache policy of requests that keep the default (`useProtocolCachePolicy`), with ``Networking/cache`` |
///
/// What no Malibu transport uses is said, not ignored: when the networking is created, a warning goes to
/// `Malibu.logger`'s swift-log logger for a `urlCache` or `urlCredentialStorage` other than the shared ones (Malibu
/// caches with `HTTPCache` and authenticates with `authenticate(...)` on every transport), an `httpCookieStorage` of
/// its own (cookies live in the networking's jar), proxy settings that cannot be expressed (separate HTTP and HTTPS
/// proxies, automatic configuration), and ``background`` with a transport that has no background sessions. A proxy the
/// transport cannot use fails each request with `TransportError` code `unsupportedOption` (URLSession on Linux ignores
/// `connectionProxyDictionary`). ``default`` and ``ephemeral`` keep Malibu's own defaults; nothing Malibu writes
/// depends on ``ephemeral`` (the transports keep no cookie, cache or credential store of URLSession's).
public enum SessionConfiguration {
  /// `URLSessionConfiguration.default`.
  case `default`
  /// `URLSessionConfiguration.ephemeral`: nothing written to disk.
  case ephemeral
  /// A background configuration with a unique identifier, for the URLSession transport on Apple platforms.
  /// FoundationNetworking on Linux has no background sessions: there it is ``default``; the curl transport has none
  /// either. Both cases are logged as a warning when the networking is created.
  case background
  /// A configuration of your own; see the table above for what each transport takes from it.
  case custom(URLSessionConfiguration)

  /// The configuration to create a session with.
  var urlSessionConfiguration: URLSessionConfiguration {
    switch self {
    case .default: return .default
    case .ephemeral: return .ephemeral
    case .background:
      #if canImport(FoundationNetworking)
      return .default
      #else
      return .background(withIdentifier: "malibu.background.\(UUID().uuidString)")
      #endif
    case .custom(let configuration): return configuration
    }
  }
}

// `URLSessionConfiguration` is a mutable class; a `SessionConfiguration` is only read once, when a ``Networking``
// creates its URLSession transport (which copies it into its session), so sharing the value across threads is safe.
extension SessionConfiguration: @unchecked Sendable {}

/// What a ``SessionConfiguration`` means for a networking's requests, on whichever transport sends them.
struct SessionDefaults: Sendable {
  /// The transfer options requests start from: the given options with the configuration's timeouts and proxy.
  var transferOptions: TransferOptions
  /// Header fields every request gets, the lowest layer (`httpAdditionalHeaders`).
  var headers: [String: String] = [:]
  /// Whether the configuration asks for cookies to be kept and sent, or `nil` when it says nothing (not ``custom``).
  var acceptsCookies: Bool?
  /// The cache policy for requests that do not choose one, or `nil` when the configuration says nothing.
  var cachePolicy: CachePolicy?
  /// What the configuration asks for that no Malibu transport does, one sentence each, for a warning.
  var ignored: [String] = []
}

extension SessionConfiguration {
  /// Foundation's `timeoutIntervalForResource` default (7 days), which stands for "no total limit".
  static let foundationResourceTimeout: TimeInterval = 7 * 24 * 3600

  /// What this configuration means for requests sent with `transport`, starting from `options`.
  /// - Parameters:
  ///   - options: The options before the configuration applies (a networking's defaults).
  ///   - isURLSession: Whether the transport is the networking's own URLSession transport.
  /// - Returns: The options, header fields, cookie and cache settings, and the warnings.
  func defaults(from options: TransferOptions = TransferOptions(), isURLSession: Bool) -> SessionDefaults {
    var defaults = SessionDefaults(transferOptions: options)
    switch self {
    case .default, .ephemeral:
      break
    case .background:
      #if canImport(FoundationNetworking)
      defaults.ignored.append(
        "SessionConfiguration.background: FoundationNetworking has no background sessions; requests run in the "
          + "foreground"
      )
      #else
      if !isURLSession {
        defaults.ignored.append(
          "SessionConfiguration.background: only the URLSession transport has background sessions; requests run in "
            + "the foreground"
        )
      }
      #endif
    case .custom(let configuration):
      Self.apply(configuration, to: &defaults)
    }
    return defaults
  }

  private static func apply(_ configuration: URLSessionConfiguration, to defaults: inout SessionDefaults) {
    for (key, value) in configuration.httpAdditionalHeaders ?? [:] {
      guard let name = key as? String,
        let text = value as? String ?? (value as? any CustomStringConvertible)?.description
      else {
        defaults.ignored.append("httpAdditionalHeaders: the field \(key) does not have a text name and value")
        continue
      }
      defaults.headers[name] = text
    }
    let idle = configuration.timeoutIntervalForRequest
    if idle > 0 { defaults.transferOptions.timeouts.idle = .milliseconds(Int64(idle * 1000)) }
    let total = configuration.timeoutIntervalForResource
    if total > 0 && total != foundationResourceTimeout {
      defaults.transferOptions.timeouts.total = .milliseconds(Int64(total * 1000))
    }
    if let dictionary = configuration.connectionProxyDictionary {
      defaults.transferOptions.proxy = proxy(from: dictionary, ignored: &defaults.ignored)
    }
    defaults.acceptsCookies =
      configuration.httpShouldSetCookies && configuration.httpCookieAcceptPolicy != .never
      && configuration.httpCookieStorage != nil
    if let storage = configuration.httpCookieStorage, storage !== HTTPCookieStorage.shared,
      defaults.acceptsCookies == true
    {
      defaults.ignored.append(
        "httpCookieStorage: cookies are kept in the networking's own jar, not in this HTTPCookieStorage"
      )
    }
    defaults.cachePolicy = cachePolicy(for: configuration.requestCachePolicy)
    if let cache = configuration.urlCache, cache !== URLCache.shared {
      defaults.ignored.append(
        "urlCache: no Malibu transport uses a URLCache; pass an HTTPCache as Networking(cache:) instead"
      )
    }
    if let storage = configuration.urlCredentialStorage, storage !== URLCredentialStorage.shared {
      defaults.ignored.append(
        "urlCredentialStorage: no Malibu transport uses URLCredentialStorage; use Networking.authenticate(...)"
      )
    }
  }

  /// Malibu's cache policy for URLRequest's (`reloadRevalidatingCacheData` is revalidation: the protocol policy).
  static func cachePolicy(for policy: URLRequest.CachePolicy) -> CachePolicy {
    switch policy {
    case .reloadIgnoringLocalCacheData, .reloadIgnoringLocalAndRemoteCacheData: return .reloadIgnoringLocalCacheData
    case .returnCacheDataElseLoad: return .returnCacheDataElseLoad
    case .returnCacheDataDontLoad: return .returnCacheDataDontLoad
    default: return .useProtocolCachePolicy
    }
  }

  /// The proxy a `connectionProxyDictionary` names (CFNetwork's keys: `HTTPEnable`, `HTTPProxy`, `HTTPPort`, their
  /// `HTTPS` and `SOCKS` siblings, `ExceptionsList`, `kCFProxyUsernameKey`, `kCFProxyPasswordKey`). Empty: no proxy.
  static func proxy(from dictionary: [AnyHashable: Any], ignored: inout [String]) -> ProxySettings {
    var entries: [String: Any] = [:]
    for (key, value) in dictionary {
      if let key = key as? String { entries[key] = value }
    }
    if entries.isEmpty { return .direct }
    func enabled(_ prefix: String) -> (host: String, port: Int)? {
      let flag = entries[prefix + "Enable"]
      let on = (flag as? Bool) ?? ((flag as? Int).map { $0 != 0 } ?? ((flag as? String) == "1"))
      guard on, let host = entries[prefix + "Proxy"] as? String, !host.isEmpty else { return nil }
      let port = (entries[prefix + "Port"] as? Int) ?? (entries[prefix + "Port"] as? String).flatMap { Int($0) }
      return (host, port ?? (prefix == "SOCKS" ? 1080 : 8080))
    }
    let http = enabled("HTTP")
    let https = enabled("HTTPS")
    let socks = enabled("SOCKS")
    if entries.keys.contains(where: { $0.hasPrefix("ProxyAutoConfig") }) {
      ignored.append("connectionProxyDictionary: automatic proxy configuration (PAC) is not supported")
    }
    if let http, let https, http != https {
      ignored.append(
        "connectionProxyDictionary: one proxy serves every scheme; the HTTPS proxy is used for http:// requests too"
      )
    }
    let bypass = (entries["ExceptionsList"] as? [String]) ?? []
    var credentials: ProxyCredentials?
    if let user = entries["kCFProxyUsernameKey"] as? String {
      credentials = ProxyCredentials(user: user, password: entries["kCFProxyPasswordKey"] as? String ?? "")
    }
    if let server = https ?? http {
      if socks != nil {
        ignored.append("connectionProxyDictionary: an HTTP proxy and a SOCKS proxy; the HTTP proxy is used")
      }
      return .http(host: server.host, port: server.port, credentials: credentials, bypass: bypass)
    }
    if let socks {
      return .socks5(host: socks.host, port: socks.port, credentials: credentials, bypass: bypass)
    }
    return .direct
  }
}
