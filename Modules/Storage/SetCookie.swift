import Foundation
import MalibuTransport

/// Parsing `Set-Cookie` fields into cookies: RFC 6265 §5.2, with the storage-model checks of §5.3 that need no
/// jar (domain, Secure, prefixes), after RFC 6265bis where it is stricter.
enum SetCookie {
  /// The longest a cookie's name and value may be together (RFC 6265bis §5.6 steps 4 and 6).
  static let maxNameValueBytes = 4096
  /// The longest attribute value that is read; a longer one is ignored (RFC 6265bis §5.6 step 8).
  static let maxAttributeValueBytes = 1024
  /// The furthest in the future an expiry may lie: 400 days (RFC 6265bis §5.6.1, §5.6.2).
  static let maxLifetime: TimeInterval = 400 * 86_400

  /// The `Set-Cookie` lines in one field value. A URLSession response joins repeated fields with `, `; a comma is
  /// taken as such a join when the text after it starts with a `name=` before any `;` (an `Expires` date's comma is
  /// followed by a day, not a name). Applied to every transport's fields, so that all of them store the same cookies.
  static func lines(in value: String) -> [Substring] {
    var lines: [Substring] = []
    var start = value.startIndex
    var index = value.startIndex
    while let comma = value[index...].firstIndex(of: ",") {
      index = value.index(after: comma)
      if startsWithName(value[index...]) {
        lines.append(value[start..<comma])
        start = index
      }
    }
    lines.append(value[start...])
    return lines.filter { !$0.allSatisfy(\.isWhitespace) }
  }

  /// Whether the text begins (after blanks) with a token and `=`.
  private static func startsWithName(_ text: Substring) -> Bool {
    var sawName = false
    for character in text.drop(while: { $0 == " " || $0 == "\t" }) {
      switch character {
      case "=": return sawName
      case ";", ",", " ", "\t", "\"": return false
      default: sawName = true
      }
    }
    return false
  }

  /// What one `Set-Cookie` line comes to.
  enum Outcome {
    /// The cookie to store.
    case stored(Cookie)
    /// Why the line is refused.
    case rejected(CookieRejection)
  }

  /// Parses one `Set-Cookie` line received from `url` at `now` into the cookie to store (an expiry at or before
  /// `now` means "delete"), or the reason it is refused.
  static func parse(_ line: Substring, from url: URL, now: Date) -> Outcome {
    let parts = line.split(separator: ";", omittingEmptySubsequences: false)
    let pair = parts[0]
    guard let equals = pair.firstIndex(of: "=") else { return .rejected(CookieRejection(name: "", reason: .malformed)) }
    let name = String(pair[..<equals]).trimmingBlanks
    let value = String(pair[pair.index(after: equals)...]).trimmingBlanks
    // A control character anywhere refuses the whole line (RFC 6265bis §5.6 step 1), attributes included, so that
    // nothing stored (and saved) could break a header or the jar's file.
    guard !name.isEmpty, !hasControlCharacter(line) else {
      return .rejected(CookieRejection(name: hasControlCharacter(name) ? "" : name, reason: .malformed))
    }
    guard name.utf8.count + value.utf8.count <= maxNameValueBytes else {
      return .rejected(CookieRejection(name: name, reason: .tooLarge))
    }
    guard let host = CookieRules.host(of: url) else { return .rejected(CookieRejection(name: name, reason: .noHost)) }

    var attributes = Attributes()
    for part in parts.dropFirst() { attributes.read(part, now: now) }

    var cookie = Cookie(
      name: name,
      value: value,
      domain: host,
      path: attributes.path ?? CookieRules.defaultPath(of: url),
      expires: attributes.expires(now: now),
      isSecure: attributes.isSecure,
      isHTTPOnly: attributes.isHTTPOnly,
      sameSite: attributes.sameSite,
      created: now
    )
    // A public suffix (`com`, `co.uk`, `github.io`; see CookieRules.isPublicSuffix) is a domain only its own host may
    // set, and then as host-only (RFC 6265 §5.3 step 5); so is an IP address.
    if let domain = attributes.domain {
      let isPublicSuffix = CookieRules.isPublicSuffix(domain)
      if domain != host || !(isPublicSuffix || CookieRules.isIPAddress(host)) {
        guard !CookieRules.isIPAddress(host), CookieRules.domainMatches(host: host, domain: domain) else {
          return .rejected(CookieRejection(name: name, reason: .domainMismatch))
        }
        guard !isPublicSuffix else { return .rejected(CookieRejection(name: name, reason: .publicSuffix)) }
        cookie.domain = domain
        cookie.isHostOnly = false
      }
    }
    if cookie.isSecure, !CookieRules.isSecureScheme(url) {
      return .rejected(CookieRejection(name: name, reason: .insecureOrigin))
    }
    if name.lowercased().hasPrefix("__secure-"), !cookie.isSecure {
      return .rejected(CookieRejection(name: name, reason: .invalidPrefix))
    }
    if name.lowercased().hasPrefix("__host-"), !cookie.isSecure || attributes.domain != nil || cookie.path != "/" {
      return .rejected(CookieRejection(name: name, reason: .invalidPrefix))
    }
    return .stored(cookie)
  }

  /// Whether the text holds a control character other than a tab.
  private static func hasControlCharacter(_ text: some StringProtocol) -> Bool {
    text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }
  }

  /// A cookie date: an HTTP-date, or the same with `-` between day, month and year (`Wed, 21-Oct-2026 07:28:00 GMT`,
  /// common in the wild).
  static func date(_ text: String) -> Date? {
    HTTPDate.parse(text) ?? (text.contains("-") ? HTTPDate.parse(text.replacingOccurrences(of: "-", with: " ")) : nil)
  }

  /// The attributes of one line; for each, the last occurrence counts (RFC 6265 §5.3).
  private struct Attributes {
    var expiresDate: Date?
    /// Seconds from now; `Max-Age` wins over `Expires`.
    var maxAge: Int?
    var domain: String?
    var path: String?
    var isSecure = false
    var isHTTPOnly = false
    var sameSite: Cookie.SameSite?

    mutating func read(_ attribute: Substring, now: Date) {
      let key: String
      let value: String
      if let equals = attribute.firstIndex(of: "=") {
        key = String(attribute[..<equals]).trimmingBlanks.lowercased()
        value = String(attribute[attribute.index(after: equals)...]).trimmingBlanks
      } else {
        key = String(attribute).trimmingBlanks.lowercased()
        value = ""
      }
      guard value.utf8.count <= SetCookie.maxAttributeValueBytes else { return }
      switch key {
      case "expires":
        if let date = SetCookie.date(value) { expiresDate = date }
      case "max-age":
        readMaxAge(value)
      case "domain":
        // An empty Domain is ignored (RFC 6265 §5.2.3); a leading dot is dropped.
        let domain = CookieRules.canonicalDomain(value)
        if !domain.isEmpty { self.domain = domain }
      case "path":
        path = value.hasPrefix("/") ? value : nil
      case "secure":
        isSecure = true
      case "httponly":
        isHTTPOnly = true
      case "samesite":
        sameSite = Cookie.SameSite.allCases.first { $0.rawValue.lowercased() == value.lowercased() }
      default:
        break
      }
    }

    /// RFC 6265 §5.2.2: an optional `-` and digits, else ignored; too many digits to count is as far as allowed.
    private mutating func readMaxAge(_ value: String) {
      let digits = value.hasPrefix("-") ? value.dropFirst() : Substring(value)
      guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return }
      if value.hasPrefix("-") {
        maxAge = 0
      } else {
        maxAge = Int(digits) ?? Int.max
      }
    }

    /// The expiry: `Max-Age` if given (zero or less: the earliest date), else `Expires`, at most ``maxLifetime`` away.
    func expires(now: Date) -> Date? {
      let limit = now.addingTimeInterval(SetCookie.maxLifetime)
      if let maxAge {
        return maxAge <= 0 ? .distantPast : min(limit, now.addingTimeInterval(TimeInterval(min(maxAge, 1 << 40))))
      }
      return expiresDate.map { min(limit, $0) }
    }
  }
}

extension String {
  /// The text without leading and trailing spaces and tabs.
  fileprivate var trimmingBlanks: String {
    trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
  }
}
