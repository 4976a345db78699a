import Foundation

/// The matching rules of RFC 6265 §5.1: canonical hosts, domain-match, default-path and path-match.
enum CookieRules {
  /// A domain as stored: lowercased, without one leading dot.
  static func canonicalDomain(_ domain: String) -> String {
    let lowered = domain.lowercased()
    return lowered.hasPrefix(".") ? String(lowered.dropFirst()) : lowered
  }

  /// The request host, lowercased, without IPv6 brackets or a trailing dot; `nil` when the URL has none.
  static func host(of url: URL) -> String? {
    guard var host = url.host(percentEncoded: false)?.lowercased(), !host.isEmpty else { return nil }
    if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    if host.hasSuffix(".") { host.removeLast() }
    return host.isEmpty ? nil : host
  }

  /// Whether a host is an IP address (IPv4 dotted decimal, or IPv6, whose text has a colon).
  static func isIPAddress(_ host: String) -> Bool {
    if host.contains(":") { return true }
    let parts = host.split(separator: ".", omittingEmptySubsequences: false)
    return parts.count == 4
      && parts.allSatisfy { part in part.count <= 3 && !part.isEmpty && part.allSatisfy(\.isASCIIDigit) }
  }

  /// Whether a cookie domain is a public suffix (RFC 6265 §5.3 step 5): a name with no dot always (`com`,
  /// `localhost`), others by the system's ``PublicSuffixList`` (`co.uk`, `github.io`); where the system has no list
  /// (Apple platforms), only the dot-less ones.
  static func isPublicSuffix(_ domain: String, list: PublicSuffixList? = PublicSuffixList.system) -> Bool {
    guard domain.contains(".") else { return true }
    return list?.isPublicSuffix(domain) ?? false
  }

  /// RFC 6265 §5.1.3: the host is the domain, or ends with `.` + domain and is not an IP address.
  static func domainMatches(host: String, domain: String) -> Bool {
    if host == domain { return true }
    guard host.count > domain.count, host.hasSuffix(domain), !isIPAddress(host) else { return false }
    return host.dropLast(domain.count).hasSuffix(".")
  }

  /// The path of a request URL as sent (percent-encoded); `/` when it has none.
  static func requestPath(of url: URL) -> String {
    let path = url.path(percentEncoded: true)
    return path.isEmpty ? "/" : path
  }

  /// RFC 6265 §5.1.4: the directory of the request path, the path of a cookie without a `Path` attribute.
  static func defaultPath(of url: URL) -> String {
    let path = requestPath(of: url)
    guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
    return String(path[..<slash])
  }

  /// RFC 6265 §5.1.4: the paths are equal, or the cookie path is a prefix of the request path ending at a `/`.
  static func pathMatches(requestPath: String, cookiePath: String) -> Bool {
    guard requestPath.hasPrefix(cookiePath) else { return false }
    if requestPath.count == cookiePath.count || cookiePath.hasSuffix("/") { return true }
    return requestPath.dropFirst(cookiePath.count).hasPrefix("/")
  }

  /// Whether the URL's scheme counts as a secure channel for Secure cookies.
  static func isSecureScheme(_ url: URL) -> Bool {
    switch url.scheme?.lowercased() {
    case "https", "wss": true
    default: false
    }
  }
}

extension Character {
  /// An ASCII `0`–`9`.
  fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
