import Foundation
public import HTTPTypes

/// Decides what is secret and replaces it with ``placeholder`` before anything is logged.
///
/// A header is secret when its name is one of ``headerNames`` (ignoring case). A header, query parameter, form
/// field or JSON key is also secret when its name, ignoring case, `-` and `_`, *contains* one of
/// ``parameterKeys``: with the default `token`, `access_token`, `X-Auth-Token` and `id_token` are all redacted.
///
/// ```swift
/// var redactor = Redactor()
/// redactor.parameterKeys.insert("pin")
/// redactor.redact(query: "user=ann&pin=1234")   // "user=ann&pin=<redacted>"
/// ```
public struct Redactor: Sendable, Hashable {
  /// What secret values are replaced with.
  public static let placeholder = "<redacted>"
  /// The header names redacted by default: `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`.
  public static let defaultHeaderNames: Set<String> = ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"]
  /// The parameter keys redacted by default (matched as fragments, see ``Redactor``).
  public static let defaultParameterKeys: Set<String> = [
    "password", "token", "secret", "access_token", "refresh_token", "client_secret", "api_key",
  ]

  /// Header names whose values are always redacted, compared ignoring case.
  public var headerNames: Set<String>
  /// Key fragments that make a query parameter, form field, JSON key or header secret.
  public var parameterKeys: Set<String>
  /// The longest body preview, in characters; longer previews are cut and say how much is left out. `0` turns
  /// body previews off.
  public var bodyPreviewLimit: Int

  /// Creates a redactor.
  /// - Parameters:
  ///   - headerNames: Header names to redact; ``defaultHeaderNames`` by default.
  ///   - parameterKeys: Key fragments to redact; ``defaultParameterKeys`` by default.
  ///   - bodyPreviewLimit: The longest body preview in characters; 1024 by default.
  public init(
    headerNames: Set<String> = Redactor.defaultHeaderNames,
    parameterKeys: Set<String> = Redactor.defaultParameterKeys,
    bodyPreviewLimit: Int = 1024
  ) {
    self.headerNames = headerNames
    self.parameterKeys = parameterKeys
    self.bodyPreviewLimit = bodyPreviewLimit
  }

  /// Whether a header's value must be redacted.
  /// - Parameter headerName: The header name, in any case.
  /// - Returns: `true` for a name in ``headerNames`` or one containing a key of ``parameterKeys``.
  public func isSecret(headerName: String) -> Bool {
    let lowercased = headerName.lowercased()
    if headerNames.contains(where: { $0.lowercased() == lowercased }) { return true }
    return isSecret(parameterKey: headerName)
  }

  /// Whether a parameter's value must be redacted.
  /// - Parameter parameterKey: The key of a query parameter, form field or JSON object member.
  /// - Returns: `true` when the key, ignoring case, `-` and `_`, contains one of ``parameterKeys``.
  public func isSecret(parameterKey: String) -> Bool {
    let key = Self.normalized(parameterKey)
    return parameterKeys.contains { fragment in
      let fragment = Self.normalized(fragment)
      return !fragment.isEmpty && key.contains(fragment)
    }
  }

  /// Header fields with every secret value replaced; names, order and repeated fields are kept.
  /// - Parameter fields: The header fields.
  /// - Returns: The redacted fields.
  public func redact(_ fields: HTTPFields) -> HTTPFields {
    var redacted = HTTPFields()
    for field in fields {
      if isSecret(headerName: field.name.rawName) {
        redacted.append(HTTPField(name: field.name, value: Self.placeholder))
      } else {
        redacted.append(field)
      }
    }
    return redacted
  }

  /// A query string (or form body) with the values of secret keys replaced; everything else is kept as written.
  /// - Parameter query: `name=value` pairs separated by `&`, without the leading `?`.
  /// - Returns: The redacted string.
  public func redact(query: String) -> String {
    // Split by Unicode scalars, not characters: a combining mark after `&` or `=` joins it into one character,
    // which would hide the delimiter and let the value through.
    query.unicodeScalars.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
      guard let equals = pair.firstIndex(of: "=") else { return String(Substring(pair)) }
      let rawName = String(Substring(pair[..<equals]))
      let name = rawName.replacingOccurrences(of: "+", with: " ")
      let decoded = name.removingPercentEncoding ?? name
      return isSecret(parameterKey: decoded) ? "\(rawName)=\(Self.placeholder)" : String(Substring(pair))
    }.joined(separator: "&")
  }

  /// The request's URL for the log: user information and secret query values redacted.
  /// - Parameter request: The request.
  /// - Returns: `scheme://authority/path?query`.
  public func redactedURL(of request: HTTPRequest) -> String {
    var text = ""
    if let scheme = request.scheme { text += "\(scheme)://" }
    // Delimiters are found among Unicode scalars, as in `redact(query:)`.
    if let authority = request.authority?.unicodeScalars {
      if let at = authority.lastIndex(of: "@") {
        text += "\(Self.placeholder)\(Substring(authority[at...]))"
      } else {
        text += String(authority)
      }
    }
    guard let path = request.path else { return text }
    var rest = Substring(path).unicodeScalars
    var fragment = Substring("").unicodeScalars
    if let hash = rest.firstIndex(of: "#") {
      fragment = rest[hash...]
      rest = rest[..<hash]
    }
    if let question = rest.firstIndex(of: "?") {
      let query = Substring(rest[rest.index(after: question)...])
      text += "\(Substring(rest[...question]))\(redact(query: String(query)))"
    } else {
      text += Substring(rest)
    }
    return text + Substring(fragment)
  }

  /// The secret values of a request, longest first: values of secret headers (and the credentials after an
  /// authorization scheme), values of secret query parameters (as written and decoded), user information.
  package func secretValues(of request: HTTPRequest) -> [String] {
    var values: Set<String> = []
    for field in request.headerFields where isSecret(headerName: field.name.rawName) {
      values.insert(field.value)
      if let space = field.value.firstIndex(of: " ") {
        values.insert(String(field.value[field.value.index(after: space)...]).trimmingCharacters(in: .whitespaces))
      }
    }
    if let authority = request.authority?.unicodeScalars, let at = authority.lastIndex(of: "@") {
      let userInfo = authority[..<at]
      values.insert(String(Substring(userInfo)))
      if let colon = userInfo.firstIndex(of: ":") {
        values.insert(String(Substring(userInfo[userInfo.index(after: colon)...])))
      }
    }
    if let path = request.path?.unicodeScalars, let question = path.firstIndex(of: "?") {
      let query = path[path.index(after: question)...].prefix { $0 != "#" }
      for pair in query.split(separator: "&") {
        guard let equals = pair.firstIndex(of: "=") else { continue }
        let name = String(Substring(pair[..<equals])).replacingOccurrences(of: "+", with: " ")
        guard isSecret(parameterKey: name.removingPercentEncoding ?? name) else { continue }
        let value = String(Substring(pair[pair.index(after: equals)...]))
        values.insert(value)
        values.insert(value.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? value)
      }
    }
    return values.filter { $0.count >= 4 }.sorted { $0.count > $1.count }
  }

  private static func normalized(_ name: String) -> String {
    String(name.lowercased().filter { $0 != "-" && $0 != "_" })
  }
}
