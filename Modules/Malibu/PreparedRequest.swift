import Foundation
import HTTPTypes
import MalibuCore
import MalibuEncoding
import MalibuTransport

/// A `Request` turned into what a transport sends: the head (method, URL, header fields) and the body.
struct PreparedRequest: Sendable {
  var head: HTTPRequest
  var body: RequestBody?

  /// Builds the URL, encodes the parameters and merges the header fields.
  /// - Parameters:
  ///   - request: The request, after `beforeEach`.
  ///   - endpoint: The endpoint type, whose `baseUrl` the resource is joined to.
  ///   - headerLayers: Header dictionaries between the body's `Content-Type` and the request's own headers, lowest
  ///     first (the networking's, then the endpoint type's).
  /// - Throws: `NetworkError`: `invalidURL`, `invalidHeader`, `unsupportedParameter`, `missingEncoder` or
  ///   `encodingFailed`.
  init<R: RequestConvertible>(
    _ request: Request,
    for endpoint: R.Type,
    headerLayers: [[String: String]]
  )
    throws(NetworkError)
  {
    let baseUrl = R.baseUrl
    if request.hasRelativeResource, (baseUrl?.urlString ?? "").isEmpty {
      throw Self.missingBaseUrl(request, endpoint)
    }
    let target = try request.buildTarget(baseUrl: baseUrl)
    let encoded = try Self.encodeBody(of: request)
    var fields = DefaultHeaders.fields
    if let contentType = encoded.contentType {
      try fields.set(validating: contentType, for: "Content-Type")
    }
    for layer in headerLayers {
      try Self.merge(layer, into: &fields)
    }
    try Self.merge(request.headers, into: &fields)
    if let contentType = encoded.contentType, contentType.lowercased().hasPrefix("multipart/") {
      try fields.set(validating: contentType, for: "Content-Type")
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

  /// Replaces the fields of `fields` named in `headers` (names compared without case).
  private static func merge(_ headers: [String: String], into fields: inout HTTPFields) throws(NetworkError) {
    guard !headers.isEmpty else { return }
    let validated = try HTTPFields(validating: headers)
    var seen = Set<HTTPField.Name>()
    for field in validated where seen.insert(field.name).inserted {
      fields[values: field.name] = validated[values: field.name]
    }
  }

  /// The body of a request and the `Content-Type` that describes it.
  private static func encodeBody(of request: Request) throws(NetworkError) -> (body: RequestBody?, contentType: String?)
  {
    switch request.task {
    case .data:
      guard !request.contentType.encodesInURL else { return (nil, nil) }
      return try encodeParameters(request.parameters, as: request.contentType)
    case .uploadMultipart:
      return try encodeParameters(request.parameters, as: .multipartFormData)
    case .uploadData(let data):
      return (.data(data), request.contentType.headerValue)
    case .uploadFile(let file):
      return (.source(try FileBody(url: file)), request.contentType.headerValue)
    }
  }

  private static func encodeParameters(
    _ parameters: Parameters,
    as contentType: ContentType
  ) throws(NetworkError) -> (body: RequestBody?, contentType: String?) {
    let encoder = try ParameterEncoderRegistry.shared.encoder(for: contentType)
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
    case .data(let data): return (.data(data), encoded.contentType)
    case .stream(let source): return (.source(source), encoded.contentType)
    }
  }
}

extension PreparedRequest {
  /// The error for a relative resource on an endpoint type whose `baseUrl` is `nil` or empty: it names the
  /// declaration to write, in that type.
  static func missingBaseUrl<R: RequestConvertible>(_ request: Request, _ endpoint: R.Type) -> NetworkError {
    let state = R.baseUrl == nil ? "nil" : "empty"
    return NetworkError(
      code: .invalidURL,
      message: "the resource '\(request.resource.urlString)' is relative, and \(R.self).baseUrl is \(state): "
        + "declare `static let baseUrl: (any URLStringConvertible)? = \"https://…\"` in \(R.self) (exactly this "
        + "type), or make the resource an absolute URL"
    )
  }
}
