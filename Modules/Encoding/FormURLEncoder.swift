public import Foundation
public import MalibuCore

/// Encodes parameters as `application/x-www-form-urlencoded` text, for URL queries and form bodies.
///
/// The algorithm is MalibuCore's `FormURLEncoding`, used as is: keys sorted at every depth, nested
/// dictionaries as `key[sub]=v`, arrays as `key[]=v` (or another `FormURLEncoding.ArrayStyle`),
/// booleans as `1`/`0` (or `true`/`false`), `nil` as `key=`, and RFC 3986 escaping that leaves `?` and `/` alone and
/// writes a space as `%20`.
///
/// ```swift
/// let body = try FormURLEncoder().encode(parameters: ["firstname": "John", "lastname": "Doe"])
/// // "firstname=John&lastname=Doe"
/// try FormURLEncoder().queryString(from: ["a": ["b": 1]])   // "a%5Bb%5D=1"
/// FormURLEncoder.escape("a+b=c&d")                           // "a%2Bb%3Dc%26d"
/// ```
///
/// Empty parameters give no body (`nil`), not an empty one. A body is sent with
/// `Content-Type: application/x-www-form-urlencoded; charset=utf-8`: the escaped bytes are UTF-8, and servers that
/// otherwise assume ISO-8859-1 read them right.
public struct FormURLEncoder: ParameterEncoding, Hashable {
  /// The `Content-Type` header value of a form body.
  public static let formContentType = "application/x-www-form-urlencoded; charset=utf-8"

  /// The rules: array and boolean styles.
  public var rules: FormURLEncoding

  /// An encoder with the given styles; `FormURLEncoder()` uses MalibuCore's defaults.
  /// - Parameters:
  ///   - arrayStyle: How array elements are keyed; `key[]=v` by default.
  ///   - boolStyle: How booleans are written; `1`/`0` by default.
  public init(
    arrayStyle: FormURLEncoding.ArrayStyle = .brackets,
    boolStyle: FormURLEncoding.BoolStyle = .numeric
  ) {
    self.init(rules: FormURLEncoding(arrayStyle: arrayStyle, boolStyle: boolStyle))
  }

  /// An encoder with the given rules.
  /// - Parameter rules: Array and boolean styles.
  public init(rules: FormURLEncoding) {
    self.rules = rules
  }

  /// The parameters as escaped `key=value` pairs joined with `&`, for a URL query or a form body.
  ///
  /// ```swift
  /// try FormURLEncoder().queryString(from: ["a": ["b": 1]])   // "a%5Bb%5D=1"
  /// ```
  /// - Parameter parameters: The parameters.
  /// - Returns: The text; empty for no parameters.
  /// - Throws: `NetworkError` with code `NetworkError.Code.unsupportedParameter` naming the
  ///   key path of a value that cannot be sent.
  public func queryString(from parameters: Parameters) throws(NetworkError) -> String {
    try rules.queryString(from: parameters)
  }

  /// The form body: ``queryString(from:)`` as UTF-8.
  /// - Parameter parameters: The parameters.
  /// - Returns: The body, or `nil` when there are no parameters.
  /// - Throws: `NetworkError` with code `NetworkError.Code.unsupportedParameter` naming the
  ///   key path of a value that cannot be sent.
  public func encode(parameters: Parameters) throws(NetworkError) -> Data? {
    guard !parameters.isEmpty else { return nil }
    return Data(try queryString(from: parameters).utf8)
  }

  /// The form body with its header: ``formContentType`` for `ContentType.formURLEncoded`, otherwise
  /// the content type's own header value (when this encoder is registered for a custom type).
  /// - Parameters:
  ///   - parameters: The parameters.
  ///   - contentType: The content type the encoder was chosen for.
  /// - Returns: The body in memory, or ``EncodedBody/empty`` for no parameters.
  /// - Throws: Like ``encode(parameters:)``.
  public func encodeBody(parameters: Parameters, contentType: ContentType) throws(NetworkError) -> EncodedBody {
    let header = contentType == .formURLEncoded ? Self.formContentType : contentType.headerValue
    return EncodedBody(data: try encode(parameters: parameters), contentType: header)
  }

  /// Percent-escapes a key or value by RFC 3986 (MalibuCore's `FormURLEncoding.escape(_:)`): every
  /// UTF-8 byte but the unreserved `A–Z a–z 0–9 - . _ ~` and `?` `/` becomes `%XX`; a space is `%20`.
  ///
  /// ```swift
  /// FormURLEncoder.escape("a+b=c&d")   // "a%2Bb%3Dc%26d"
  /// ```
  /// - Parameter string: The text.
  /// - Returns: The escaped text.
  public static func escape(_ string: String) -> String {
    FormURLEncoding.escape(string)
  }
}
