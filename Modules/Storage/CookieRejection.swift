/// Why a `Set-Cookie` field was not stored; ``CookieJar/store(setCookie:from:)`` returns one per refused field.
///
/// It names the cookie, never its value (a value is often a session secret).
///
/// ```swift
/// let refused = jar.store(setCookie: ["id=1; Domain=evil.example"], from: URL(string: "https://example.com/")!)
/// print(refused.map(\.reason))  // [domainMismatch]
/// ```
public struct CookieRejection: Hashable, Sendable, CustomStringConvertible {
  /// The rule the field broke. New reasons can be added without breaking anyone's code.
  public struct Reason: Hashable, Sendable, CustomStringConvertible {
    private let name: String

    private init(_ name: String) {
      self.name = name
    }

    /// No `name=value` pair, an empty name, or a control character in the name or value.
    public static let malformed = Reason("malformed")
    /// The `Domain` attribute does not domain-match the request host (another site, or any other host than an IP
    /// address the response came from).
    public static let domainMismatch = Reason("domainMismatch")
    /// The `Domain` attribute is a public suffix (`com`, `co.uk`, `github.io`, `herokuapp.com`) that the response host
    /// lies under: such a cookie would reach every site registered below it (RFC 6265 §5.3 step 5). A host that is
    /// itself the suffix may name it, and gets a host-only cookie. Which names are suffixes: see ``CookieJar``.
    public static let publicSuffix = Reason("publicSuffix")
    /// A `Secure` cookie from a response that did not come over `https` (RFC 6265bis §5.7 step 8), or a cookie from
    /// such a response that would overwrite or shadow a stored `Secure` cookie of that name (step 16).
    public static let insecureOrigin = Reason("insecureOrigin")
    /// A `__Secure-` cookie without `Secure`, or a `__Host-` cookie without `Secure`, with a `Domain` or with a
    /// `Path` other than `/` (RFC 6265bis §4.1.3).
    public static let invalidPrefix = Reason("invalidPrefix")
    /// The name and value together are longer than 4096 bytes.
    public static let tooLarge = Reason("tooLarge")
    /// The response URL has no host, so no cookie can belong to it.
    public static let noHost = Reason("noHost")

    /// The reason's name, as spelled in Swift.
    public var description: String { name }
  }

  /// The cookie's name; empty when the field had none that could be read.
  public var name: String
  /// The rule the field broke.
  public var reason: Reason

  /// Creates a rejection.
  /// - Parameters:
  ///   - name: The cookie's name.
  ///   - reason: The rule the field broke.
  public init(name: String, reason: Reason) {
    self.name = name
    self.reason = reason
  }

  /// `cookie '<name>' refused: <reason>`.
  public var description: String { "cookie '\(name)' refused: \(reason)" }
}
