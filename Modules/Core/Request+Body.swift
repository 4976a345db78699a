public import Foundation
public import HTTPTypes
import MalibuJSON

/// A value sent as a request's body by encoding it: any `Encodable & Sendable`, top-level arrays included (see
/// ``RequestTask/encodable(_:)`` and ``Request/post(_:body:contentType:encoder:parameters:headers:storePolicy:)``).
///
/// How it is encoded depends on the request's ``ContentType``:
/// - ``ContentType/json`` (the default): written by ``encoder`` when given (any ``RequestBodyEncoder``:
///   `MalibuJSONEncoder`, Foundation's `JSONEncoder`, a property-list or other encoder of your own, whose
///   ``RequestBodyEncoder/contentType`` is then the request's `Content-Type`), else as JSON by Malibu's rules (those
///   of MalibuEncoding's `JSONParameterEncoder`, or of the encoder registered for `.json` when that is one: keys
///   sorted, `/` not escaped, dates in ISO 8601 UTC, data in Base64, non-finite numbers an error).
/// - ``ContentType/formURLEncoded``, ``ContentType/multipartFormData``, a ``ContentType/custom(_:)`` type and
///   ``ContentType/query``: the value is normalised into a ``ParameterValue`` tree (as parameters are) and its keys
///   become the form's fields, the parts, the custom encoder's parameters or the query's; it must then be keyed (a
///   struct or a dictionary), not an array or a single value.
///
/// A value whose encoding throws fails its request with ``NetworkError`` code ``NetworkError/Code/encodingFailed``,
/// the thrown error as its `underlyingError`.
///
/// Two bodies are equal when their values are of the same type and normalise to the same ``ParameterValue`` tree
/// (the ``encoder`` is not compared); values that cannot be normalised compare by their description.
public struct EncodableBody: Sendable, Hashable, CustomStringConvertible {
  /// The value.
  public let value: any Encodable & Sendable
  /// The encoder that writes the body of a ``ContentType/json`` request, or `nil` for Malibu's rules.
  public let encoder: (any RequestBodyEncoder)?

  /// Wraps a value to send as a body.
  /// - Parameters:
  ///   - value: The value; any `Encodable & Sendable`, an array of them included.
  ///   - encoder: The encoder of a ``ContentType/json`` body (`MalibuJSONEncoder()`, `JSONEncoder()` or one of your
  ///     own); `nil` (the default) for Malibu's rules.
  public init(_ value: some Encodable & Sendable, encoder: (any RequestBodyEncoder)? = nil) {
    self.value = value
    self.encoder = encoder
  }

  /// The value as a parameter tree: what form, multipart, custom and query encodings send.
  /// - Returns: The tree.
  /// - Throws: ``NetworkError`` with code ``NetworkError/Code/encodingFailed`` when the value cannot be encoded.
  public func parameterValue() throws(NetworkError) -> ParameterValue {
    do {
      return try ParameterValue(normalizing: value)
    } catch {
      throw NetworkError(
        code: .encodingFailed,
        message: "a body of type \(type(of: value)) could not be encoded: \(error.message)",
        underlyingError: error.underlyingError ?? error
      )
    }
  }

  /// The value's fields as parameters, for the encodings that need keys (form, multipart, custom, query).
  /// - Parameter contentType: The request's content type, named in the error.
  /// - Returns: The fields.
  /// - Throws: ``NetworkError`` with code ``NetworkError/Code/encodingFailed`` when the value cannot be encoded or is
  ///   not keyed (an array or a single value).
  public func parameters(for contentType: ContentType) throws(NetworkError) -> Parameters {
    guard case .object(let fields) = try parameterValue() else {
      throw NetworkError(
        code: .encodingFailed,
        message: "a body of type \(type(of: value)) cannot be sent as \(contentType): it needs named fields (a "
          + "struct or a dictionary); send arrays and single values as JSON"
      )
    }
    return fields.mapValues { $0 }
  }

  /// The value as ``encoder`` writes it.
  /// - Returns: The body, or `nil` when there is no ``encoder`` (Malibu's rules then apply, in MalibuEncoding).
  /// - Throws: ``NetworkError`` with code ``NetworkError/Code/encodingFailed`` when the encoder throws.
  public func encodedWithOwnEncoder() throws(NetworkError) -> Data? {
    guard let encoder else { return nil }
    do {
      return try encoder.encode(value)
    } catch {
      throw NetworkError(
        code: .encodingFailed,
        message: "a value of type \(type(of: value)) could not be encoded as \(encoder.contentType): \(error)",
        underlyingError: error
      )
    }
  }

  /// The `Content-Type` of the body ``encodedWithOwnEncoder()`` writes, or `nil` when there is no ``encoder``.
  public var ownContentType: String? { encoder?.contentType }

  /// The value as JSON: written by ``encoder`` when given, else the ``parameterValue()`` tree with keys sorted and
  /// `/` not escaped (Malibu's rules; what the offline store keeps of a JSON body).
  /// - Returns: The JSON.
  /// - Throws: ``NetworkError`` with code ``NetworkError/Code/encodingFailed`` when the value cannot be encoded.
  public func jsonData() throws(NetworkError) -> Data {
    if let data = try encodedWithOwnEncoder() { return data }
    let tree = try parameterValue()
    do {
      return try MalibuJSONEncoder.malibuRules().encode(tree)
    } catch {
      throw NetworkError(
        code: .encodingFailed,
        message: "a value of type \(type(of: value)) could not be encoded as JSON: \(error)",
        underlyingError: error
      )
    }
  }

  /// The value's type and description.
  public var description: String { "\(type(of: value)): \(String(reflecting: value))" }

  /// Whether two bodies hold values of the same type that normalise to the same tree.
  /// - Parameters:
  ///   - lhs: A body.
  ///   - rhs: Another body.
  /// - Returns: `true` when they send the same content.
  public static func == (lhs: EncodableBody, rhs: EncodableBody) -> Bool {
    type(of: lhs.value) == type(of: rhs.value) && lhs.comparable == rhs.comparable
  }

  /// Hashes the value's type and tree.
  /// - Parameter hasher: The hasher to feed.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(type(of: value)))
    hasher.combine(comparable)
  }

  private enum Comparable: Hashable {
    case normalized(ParameterValue)
    case described(String)
  }

  private var comparable: Comparable {
    if let tree = try? ParameterValue(normalizing: value) { return .normalized(tree) }
    return .described(String(reflecting: value))
  }
}

extension Request {
  /// Creates a request whose body is an `Encodable` value (see ``EncodableBody``).
  ///
  /// ```swift
  /// let request = Request(method: .post, resource: "boards", body: [Board(title: "Balsa")])   // a JSON array
  /// ```
  /// - Parameters:
  ///   - method: The HTTP method.
  ///   - resource: A path joined to the base URL, or an absolute URL.
  ///   - body: The value to send; any `Encodable & Sendable`, top-level arrays included.
  ///   - contentType: How the body is encoded; ``ContentType/json`` by default.
  ///   - encoder: The encoder of a ``ContentType/json`` body (see ``RequestBodyEncoder``); `nil` for Malibu's rules.
  ///   - parameters: Parameters for the URL query.
  ///   - headers: Header fields of this request.
  ///   - storePolicy: Offline storage; ``StorePolicy/unspecified`` by default.
  ///   - cachePolicy: HTTP cache use; ``CachePolicy/useProtocolCachePolicy`` by default.
  public init(
    method: HTTPRequest.Method,
    resource: any URLStringConvertible,
    body: some Encodable & Sendable,
    contentType: ContentType = .json,
    encoder: (any RequestBodyEncoder)? = nil,
    parameters: Parameters = [:],
    headers: [String: String] = [:],
    storePolicy: StorePolicy = .unspecified,
    cachePolicy: CachePolicy = .useProtocolCachePolicy
  ) {
    self.init(
      method: method,
      resource: resource,
      contentType: contentType,
      task: .encodable(EncodableBody(body, encoder: encoder)),
      parameters: parameters,
      headers: headers,
      storePolicy: storePolicy,
      cachePolicy: cachePolicy
    )
  }

  /// A POST request whose body is an `Encodable` value, JSON unless another content type is given.
  ///
  /// ```swift
  /// Request.post("boards", body: Board(title: "Balsa"))                          // {"title":"Balsa"}
  /// Request.post("boards/batch", body: [Board(title: "A"), Board(title: "B")])    // a top-level JSON array
  /// Request.post("boards", body: board, contentType: .formURLEncoded)             // title=Balsa
  /// ```
  /// - Parameters:
  ///   - resource: A path joined to the base URL, or an absolute URL.
  ///   - body: The value to send; any `Encodable & Sendable`, top-level arrays included.
  ///   - contentType: How the body is encoded; ``ContentType/json`` by default (see ``EncodableBody``).
  ///   - encoder: The encoder of a ``ContentType/json`` body (see ``RequestBodyEncoder``); `nil` for Malibu's rules.
  ///   - parameters: Parameters for the URL query.
  ///   - headers: Header fields of this request.
  ///   - storePolicy: Offline storage.
  /// - Returns: The request.
  public static func post(
    _ resource: any URLStringConvertible,
    body: some Encodable & Sendable,
    contentType: ContentType = .json,
    encoder: (any RequestBodyEncoder)? = nil,
    parameters: Parameters = [:],
    headers: [String: String] = [:],
    storePolicy: StorePolicy = .unspecified
  ) -> Request {
    Request(
      method: .post,
      resource: resource,
      body: body,
      contentType: contentType,
      encoder: encoder,
      parameters: parameters,
      headers: headers,
      storePolicy: storePolicy
    )
  }

  /// A PUT request whose body is an `Encodable` value, JSON unless another content type is given.
  /// - Parameters:
  ///   - resource: A path joined to the base URL, or an absolute URL.
  ///   - body: The value to send; any `Encodable & Sendable`, top-level arrays included.
  ///   - contentType: How the body is encoded; ``ContentType/json`` by default (see ``EncodableBody``).
  ///   - encoder: The encoder of a ``ContentType/json`` body (see ``RequestBodyEncoder``); `nil` for Malibu's rules.
  ///   - parameters: Parameters for the URL query.
  ///   - headers: Header fields of this request.
  ///   - storePolicy: Offline storage.
  /// - Returns: The request.
  public static func put(
    _ resource: any URLStringConvertible,
    body: some Encodable & Sendable,
    contentType: ContentType = .json,
    encoder: (any RequestBodyEncoder)? = nil,
    parameters: Parameters = [:],
    headers: [String: String] = [:],
    storePolicy: StorePolicy = .unspecified
  ) -> Request {
    Request(
      method: .put,
      resource: resource,
      body: body,
      contentType: contentType,
      encoder: encoder,
      parameters: parameters,
      headers: headers,
      storePolicy: storePolicy
    )
  }

  /// A PATCH request whose body is an `Encodable` value, JSON unless another content type is given.
  /// - Parameters:
  ///   - resource: A path joined to the base URL, or an absolute URL.
  ///   - body: The value to send; any `Encodable & Sendable`, top-level arrays included.
  ///   - contentType: How the body is encoded; ``ContentType/json`` by default (see ``EncodableBody``).
  ///   - encoder: The encoder of a ``ContentType/json`` body (see ``RequestBodyEncoder``); `nil` for Malibu's rules.
  ///   - parameters: Parameters for the URL query.
  ///   - headers: Header fields of this request.
  ///   - storePolicy: Offline storage.
  /// - Returns: The request.
  public static func patch(
    _ resource: any URLStringConvertible,
    body: some Encodable & Sendable,
    contentType: ContentType = .json,
    encoder: (any RequestBodyEncoder)? = nil,
    parameters: Parameters = [:],
    headers: [String: String] = [:],
    storePolicy: StorePolicy = .unspecified
  ) -> Request {
    Request(
      method: .patch,
      resource: resource,
      body: body,
      contentType: contentType,
      encoder: encoder,
      parameters: parameters,
      headers: headers,
      storePolicy: storePolicy
    )
  }
}
