import Foundation
public import MalibuCore

/// The credentials sent in the `Authorization` header field: HTTP Basic, a Bearer token, a custom value, or none.
///
/// ```swift
/// let basic = Authorization.basic(username: "malibu", password: "surfingparadise")
/// try basic.headerValue()   // "Basic bWFsaWJ1OnN1cmZpbmdwYXJhZGlzZQ=="
/// let bearer = Authorization.bearer("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9")
/// let custom = Authorization.header("Malibu-Header")
/// let nothing = Authorization.none
/// ```
///
/// The credentials are checked when a header value is made from them, not when the value is created, so the
/// facade's non-throwing `authenticate(...)` calls stay non-throwing: a bad value fails the request that would have
/// carried it with `NetworkError.Code.invalidHeader`. Printing a value never shows a secret.
public struct Authorization: Hashable, Sendable, CustomStringConvertible {
  private enum Kind: Hashable, Sendable {
    case none
    case basic(username: String, password: String)
    case bearer(String)
    case header(String)
  }

  private let kind: Kind

  private init(_ kind: Kind) {
    self.kind = kind
  }

  /// No credentials: requests are sent without an `Authorization` field.
  public static let none = Authorization(.none)

  /// HTTP Basic authentication (RFC 7617): `Basic ` and the Base64 of the UTF-8 bytes of `username:password`.
  ///
  /// ```swift
  /// try Authorization.basic(username: "Aladdin", password: "open sesame").headerValue()
  /// // "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="
  /// ```
  /// - Parameters:
  ///   - username: The user id; it may not contain a colon or a control character (RFC 7617, section 2).
  ///   - password: The password; it may not contain a control character.
  /// - Returns: The credentials.
  public static func basic(username: String, password: String) -> Authorization {
    Authorization(.basic(username: username, password: password))
  }

  /// A Bearer token (RFC 6750): `Bearer <token>`.
  /// - Parameter token: The token; not empty, without white space or control characters.
  /// - Returns: The credentials.
  public static func bearer(_ token: String) -> Authorization {
    Authorization(.bearer(token))
  }

  /// A custom `Authorization` value, sent exactly as given.
  /// - Parameter value: The whole field value; not empty, without control characters other than tab.
  /// - Returns: The credentials.
  public static func header(_ value: String) -> Authorization {
    Authorization(.header(value))
  }

  /// Whether these are no credentials at all (``none``).
  public var isNone: Bool { kind == .none }

  /// The `Authorization` field value, or `nil` for ``none``.
  /// - Returns: The value, byte for byte as it is sent.
  /// - Throws: `NetworkError` with `NetworkError.Code.invalidHeader` when the credentials
  ///   cannot be sent: a colon in a Basic user id, a control character, an empty or spaced Bearer token, an empty
  ///   custom value. The message never contains the secret.
  public func headerValue() throws(NetworkError) -> String? {
    switch kind {
    case .none:
      return nil
    case .basic(let username, let password):
      guard !username.contains(":") else {
        throw Self.invalid("a Basic user id may not contain a colon (RFC 7617)")
      }
      guard !username.unicodeScalars.contains(where: Self.isControl),
        !password.unicodeScalars.contains(where: Self.isControl)
      else {
        throw Self.invalid("a Basic user id or password may not contain a control character (RFC 7617)")
      }
      return "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
    case .bearer(let token):
      guard Self.isSendableToken(token) else {
        throw Self.invalid("a Bearer token must be non-empty, without white space or control characters")
      }
      return "Bearer " + token
    case .header(let value):
      guard !value.isEmpty, !value.unicodeScalars.contains(where: { $0 != "\t" && Self.isControl($0) }) else {
        throw Self.invalid("a custom Authorization value must be non-empty, without CR, LF, NUL or other controls")
      }
      return value
    }
  }

  /// The kind of credentials, with every secret replaced by `<redacted>` (the Basic user id is shown, quoted).
  public var description: String {
    switch kind {
    case .none: return "Authorization.none"
    case .basic(let username, _):
      return "Authorization.basic(username: \(String(reflecting: username)), password: <redacted>)"
    case .bearer: return "Authorization.bearer(<redacted>)"
    case .header: return "Authorization.header(<redacted>)"
    }
  }

  /// Whether `token` can follow `Bearer `: not empty, no white space, no control character.
  static func isSendableToken(_ token: String) -> Bool {
    !token.isEmpty && !token.unicodeScalars.contains { isControl($0) || $0.properties.isWhitespace }
  }

  private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || scalar.value == 0x7F
  }

  private static func invalid(_ message: String) -> NetworkError {
    NetworkError(code: .invalidHeader, message: "invalid Authorization credentials: " + message)
  }
}
