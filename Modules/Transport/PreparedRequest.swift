import Foundation
public import HTTPTypes
public import MalibuCore
public import MalibuEncoding

/// A `Request` turned into what a transport sends: the head (method, URL, header fields) and the body.
///
/// Preparing a request builds its URL (the resource joined to the base URL, query parameters added), encodes its
/// parameters into a body by its content type (through a ``/MalibuEncoding/ParameterEncoderRegistry``), and merges
/// the header fields. The facade's `Networking` prepares every request this way; code that uses the modules alone
/// gets the same result:
///
/// ```swift
/// let request = Request.post("boards", parameters: ["title": "Balsa"])
/// let prepared = try PreparedRequest(request, baseUrl: "https://api.example.com/v1")
/// let (head, data, _) = try await CurlTransport().data(for: prepared.head, body: prepared.body)
/// ```
///
/// Header fields are merged in one order, later ones replacing earlier fields of the same name (names compared
/// without case): `DefaultHeaders` < the body's `Content-Type` < each of `headerLayers`, lowest first < the request's
/// own headers. A `multipart/…` body keeps the `Content-Type` its encoder chose, since its boundary must match the
/// bytes. Every value is checked: CR, LF or NUL fail with `NetworkError` code `invalidHeader`.
///
/// Bodies, by the request's task and content type:
/// - Parameters of a `.json` request are a JSON object. A POST, PUT or PATCH with content type `.json` and no
///   parameters sends `{}` with `Content-Type: application/json`: the method carries a body, and a JSON API parses an
///   empty object where an empty body would be a syntax error. A GET, HEAD or DELETE without parameters sends nothing.
/// - An `Encodable` body (`RequestTask.encodable`) is encoded as `EncodableBody` describes: by its own
///   `RequestBodyEncoder` (whose `contentType` is sent), else as JSON by the `JSONParameterEncoder` registered for
///   `.json` (or a default one); form, multipart and custom types from its fields. The request's `parameters` then go into the URL query.
public struct PreparedRequest: Sendable {
  /// The request head: method, scheme, authority, path and header fields.
  public var head: HTTPRequest
  /// The body, or `nil` when the request has none.
  public var body: RequestBody?

  /// Prepares a request: builds the URL, encodes the parameters and merges the header fields.
  /// - Parameters:
  ///   - request: The request.
  ///   - baseUrl: The base URL a relative resource is joined to; `nil` for an absolute resource.
  ///   - headerLayers: Header dictionaries between the body's `Content-Type` and the request's own headers, lowest
  ///     first (the facade passes the networking's, then the endpoint type's).
  ///   - encoders: Where the encoder of the request's content type is found; the shared registry by default.
  /// - Throws: `NetworkError`: `invalidURL` (a relative resource without a base URL included), `invalidHeader`,
  ///   `unsupportedParameter`, `missingEncoder` or `encodingFailed`.
  public init(
    _ request: Request,
    baseUrl: (any URLStringConvertible)?,
    headerLayers: [[String: String]] = [],
    encoders: ParameterEncoderRegistry = .shared
  ) throws(NetworkError) {
    if (baseUrl?.urlString ?? "").isEmpty, request.hasRelativeResource {
      throw NetworkError(
        code: .invalidURL,
        message: "the resource '\(request.resource.urlString)' is relative, and no base URL was given: pass one, or "
          + "make the resource an absolute URL"
      )
    }
    try self.init(request, checkedBaseUrl: baseUrl, headerLayers: headerLayers, encoders: encoders)
  }

  /// ``init(_:baseUrl:headerLayers:encoders:)`` for a caller that has checked that a relative resource has a base URL
  /// (and reports a missing one in its own words), and may have checked its lowest header layers once (`checked`,
  /// merged before `headerLayers`).
  package init(
    _ request: borrowing Request,
    checkedBaseUrl baseUrl: (any URLStringConvertible)?,
    checked: CheckedHeaderLayers = CheckedHeaderLayers(),
    headerLayers: [[String: String]],
    encoders: ParameterEncoderRegistry = .shared
  ) throws(NetworkError) {
    let target = try Self.target(of: request, baseUrl: baseUrl)
    let encoded = try Self.encodeBody(of: request, encoders: encoders)
    var fields = DefaultHeaders.fields
    // One copy of the defaults, with room for every field to come, rather than a copy and then a larger one.
    let checkedCount = (try? checked.outcome.get().count) ?? 0
    fields.reserveCapacity(
      fields.count + 1 + checkedCount + headerLayers.reduce(request.headers.count) { $0 + $1.count }
    )
    switch encoded.contentType {
    case .json: fields[.contentType] = "application/json"  // the library's own value: nothing to check
    case .given(let value): try fields.set(validating: value, for: "Content-Type")
    case nil: break
    }
    try fields.merge(checked)
    for layer in headerLayers {
      try fields.merge(validating: layer)
    }
    try fields.merge(validating: request.headers)
    if case .given(let value) = encoded.contentType, value.lowercased().hasPrefix("multipart/") {
      fields[.contentType] = value  // checked above
    }
    head = HTTPRequest(
      method: request.method,
      scheme: target.scheme,
      authority: target.authority,
      path: target.path,
      headerFields: fields
    )
    body = encoded.body
  }

  /// Creates a prepared request from its parts.
  /// - Parameters:
  ///   - head: The request head.
  ///   - body: The body, if any.
  public init(head: HTTPRequest, body: RequestBody?) {
    self.head = head
    self.body = body
  }

  /// The request's URL: with an `Encodable` body, its parameters go into the query (and, for content type `.query`,
  /// the body's fields before them).
  private static func target(
    of request: borrowing Request,
    baseUrl: (any URLStringConvertible)?
  ) throws(NetworkError) -> RequestTarget {
    guard case .encodable(let body) = request.task else { return try request.buildTarget(baseUrl: baseUrl) }
    var urlRequest = copy request
    if request.contentType.encodesInURL {
      urlRequest.parameters = try body.parameters(for: .query)
      urlRequest.parameters.merge(request.parameters) { _, parameter in parameter }
    } else {
      urlRequest.contentType = .query
    }
    return try urlRequest.buildTarget(baseUrl: baseUrl)
  }

  /// A body's `Content-Type`: the library's own JSON type, or a value an encoder or the caller gave, checked like any
  /// header.
  private enum BodyContentType {
    case json
    case given(String)
  }

  /// The body of a request and the `Content-Type` that describes it.
  private static func encodeBody(
    of request: Request,
    encoders: ParameterEncoderRegistry
  ) throws(NetworkError) -> (body: RequestBody?, contentType: BodyContentType?) {
    switch request.task {
    case .data:
      guard !request.contentType.encodesInURL else { return (nil, nil) }
      let encoded = try encodeParameters(request.parameters, as: request.contentType, encoders: encoders)
      if encoded.body == nil, request.contentType == .json, methodsWithBody.contains(request.method) {
        return (.data(Data("{}".utf8)), .json)
      }
      return encoded
    case .encodable(let body):
      if request.contentType.encodesInURL { return (nil, nil) }
      if request.contentType == .json {
        // The body's own encoder names its media type (a property-list encoder's is not JSON).
        if let own = try body.encodedWithOwnEncoder() { return (.data(own), body.ownContentType.map { .given($0) }) }
        let json = (try? encoders.encoder(for: .json)) as? JSONParameterEncoder ?? JSONParameterEncoder()
        return (.data(try json.encode(body.value)), .json)
      }
      let contentType = request.contentType
      return try encodeParameters(try body.parameters(for: contentType), as: contentType, encoders: encoders)
    case .uploadMultipart:
      return try encodeParameters(request.parameters, as: .multipartFormData, encoders: encoders)
    case .uploadData(let data):
      return (.data(data), request.contentType.headerValue.map { .given($0) })
    case .uploadFile(let file):
      return (.source(try FileBody(url: file)), request.contentType.headerValue.map { .given($0) })
    }
  }

  /// The methods whose JSON request without parameters sends `{}` rather than nothing.
  private static let methodsWithBody: Set<HTTPRequest.Method> = [.post, .put, .patch]

  private static func encodeParameters(
    _ parameters: Parameters,
    as contentType: ContentType,
    encoders: ParameterEncoderRegistry
  ) throws(NetworkError) -> (body: RequestBody?, contentType: BodyContentType?) {
    let encoder = try encoders.encoder(for: contentType)
    let encoded: EncodedBody
    do {
      encoded = try encoder.encodeBody(parameters: parameters, contentType: contentType)
    } catch let error as NetworkError {
      throw error
    } catch {
      throw NetworkError(
        code: .encodingFailed,
        message: "the parameters could not be encoded as \(contentType): \(error)",
        underlyingError: error
      )
    }
    switch encoded.content {
    case nil: return (nil, nil)
    case .data(let data): return (.data(data), encoded.contentType.map { .given($0) })
    case .stream(let source): return (.source(source), encoded.contentType.map { .given($0) })
    }
  }
}
