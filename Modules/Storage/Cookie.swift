public import Foundation

/// One cookie as a ``CookieJar`` keeps it: the storage model of RFC 6265 §5.3.
///
/// ```swift
/// let jar = CookieJar()
/// jar.add(Cookie(name: "lang", value: "en", domain: "example.com"))
/// for cookie in jar.cookies(for: URL(string: "https://example.com/boards")!) {
///   print(cookie.name, cookie.value, cookie.expires ?? "session")
/// }
/// ```
public struct Cookie: Hashable, Sendable, Codable {
  /// The `SameSite` attribute (RFC 6265bis §4.1.2.7). A jar keeps it with the cookie and does not enforce it: an HTTP
  /// client has no "site" of its own that a request could come from.
  public enum SameSite: String, Hashable, Sendable, Codable, CaseIterable {
    /// `SameSite=Strict`.
    case strict = "Strict"
    /// `SameSite=Lax`.
    case lax = "Lax"
    /// `SameSite=None`.
    case none = "None"
  }

  /// The name.
  public var name: String
  /// The value, exactly as the server sent it (quotes included).
  public var value: String
  /// The domain, lowercased, without a leading dot.
  public var domain: String
  /// Whether the cookie goes only to ``domain`` itself (`true`) or to its subdomains too (`false`).
  public var isHostOnly: Bool
  /// The path; the cookie goes to this path and the paths below it.
  public var path: String
  /// When the cookie expires; `nil` for a session cookie, which lives as long as the jar and is never saved.
  public var expires: Date?
  /// Whether the cookie is sent over `https` only.
  public var isSecure: Bool
  /// The `HttpOnly` attribute; kept, and without meaning for an HTTP client, which sends every cookie over HTTP.
  public var isHTTPOnly: Bool
  /// The `SameSite` attribute, if the server sent a known one.
  public var sameSite: SameSite?
  /// When the cookie was first stored; a replacement keeps its predecessor's time (RFC 6265 §5.3 step 11).
  public var created: Date

  /// Creates a cookie.
  /// - Parameters:
  ///   - name: The name.
  ///   - value: The value.
  ///   - domain: The domain (a leading dot is removed, letters are lowercased).
  ///   - isHostOnly: Whether only `domain` itself gets the cookie; `true` by default.
  ///   - path: The path; `/` by default.
  ///   - expires: The expiry; `nil`, the default, makes a session cookie.
  ///   - isSecure: Whether the cookie is sent over `https` only; `false` by default.
  ///   - isHTTPOnly: The `HttpOnly` attribute; `false` by default.
  ///   - sameSite: The `SameSite` attribute; `nil` by default.
  ///   - created: The creation time; now by default.
  public init(
    name: String,
    value: String,
    domain: String,
    isHostOnly: Bool = true,
    path: String = "/",
    expires: Date? = nil,
    isSecure: Bool = false,
    isHTTPOnly: Bool = false,
    sameSite: SameSite? = nil,
    created: Date = Date()
  ) {
    self.name = name
    self.value = value
    self.domain = CookieRules.canonicalDomain(domain)
    self.isHostOnly = isHostOnly
    self.path = path
    self.expires = expires
    self.isSecure = isSecure
    self.isHTTPOnly = isHTTPOnly
    self.sameSite = sameSite
    self.created = created
  }

  /// Whether the cookie has an expiry and so outlives the jar's process when the jar has a file.
  public var isPersistent: Bool { expires != nil }

  /// Whether the cookie has expired at `date`.
  /// - Parameter date: The time to check against.
  /// - Returns: `true` when ``expires`` is at or before `date`.
  public func isExpired(at date: Date) -> Bool {
    expires.map { $0 <= date } ?? false
  }

  /// Whether the cookie may be sent with a request for `url` (RFC 6265 §5.4 step 1): the host matches the domain
  /// (exactly for a host-only cookie), the path matches, and a Secure cookie only goes over `https`. Expiry is not
  /// checked here.
  /// - Parameter url: The request URL.
  /// - Returns: `true` when the cookie belongs in that request's `Cookie` field.
  public func matches(_ url: URL) -> Bool {
    guard let host = CookieRules.host(of: url) else { return false }
    guard isHostOnly ? host == domain : CookieRules.domainMatches(host: host, domain: domain) else { return false }
    guard !isSecure || CookieRules.isSecureScheme(url) else { return false }
    return CookieRules.pathMatches(requestPath: CookieRules.requestPath(of: url), cookiePath: path)
  }

  /// Whether this cookie and `other` are the same cookie for replacement: same name, domain and path.
  func isSameSlot(as other: Cookie) -> Bool {
    name == other.name && domain == other.domain && path == other.path
  }
}
