/// How a request's parameters travel: in the URL query or as a body of a given media type.
///
/// An open set: the four built-in kinds plus ``custom(_:)`` for any media type that has an encoder registered.
///
/// ```swift
/// Request.post("boards", contentType: .formURLEncoded, parameters: ["title": "Balsa"])
/// Request.post("boards", contentType: .custom("application/xml"), parameters: ["title": "Balsa"])
/// ```
public struct ContentType: Hashable, Sendable, CustomStringConvertible {
  private enum Kind: Hashable, Sendable {
    case query
    case formURLEncoded
    case json
    case multipartFormData
    case custom(String)
  }

  private let kind: Kind

  private init(_ kind: Kind) {
    self.kind = kind
  }

  /// Parameters are percent-encoded into the URL's query; the request has no body from them.
  public static let query = ContentType(.query)
  /// Parameters are sent as an `application/x-www-form-urlencoded` body.
  public static let formURLEncoded = ContentType(.formURLEncoded)
  /// Parameters are sent as an `application/json` body.
  public static let json = ContentType(.json)
  /// Parameters are sent as a `multipart/form-data` body.
  public static let multipartFormData = ContentType(.multipartFormData)

  /// Parameters are sent as a body of the given media type, encoded by the encoder registered for it.
  /// - Parameter mediaType: The `Content-Type` header value, for example `"application/xml"`.
  /// - Returns: The custom content type.
  public static func custom(_ mediaType: String) -> ContentType {
    ContentType(.custom(mediaType))
  }

  /// The `Content-Type` header value for a body of this kind, or `nil` for ``query``.
  ///
  /// For ``multipartFormData`` this is the bare media type: the encoder adds the boundary parameter.
  public var headerValue: String? {
    switch kind {
    case .query: return nil
    case .formURLEncoded: return "application/x-www-form-urlencoded"
    case .json: return "application/json"
    case .multipartFormData: return "multipart/form-data"
    case .custom(let value): return value
    }
  }

  /// Whether this is a ``custom(_:)`` content type.
  public var isCustom: Bool {
    if case .custom = kind { return true }
    return false
  }

  /// Whether parameters of this kind go into the URL query rather than a body.
  public var encodesInURL: Bool { kind == .query }

  /// A short name: `query`, `formURLEncoded`, `json`, `multipartFormData` or `custom(<media type>)`.
  public var description: String {
    switch kind {
    case .query: return "query"
    case .formURLEncoded: return "formURLEncoded"
    case .json: return "json"
    case .multipartFormData: return "multipartFormData"
    case .custom(let value): return "custom(\(value))"
    }
  }
}
