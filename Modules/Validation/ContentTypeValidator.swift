public import HTTPTypes
public import MalibuCore

/// Accepts a response whose `Content-Type` is one of the expected media types.
///
/// Expected entries are media ranges as in an `Accept` header: wildcards (`*/*`, `text/*`) are allowed, an entry
/// may be a comma-separated list, and an entry with `q=0` excludes the types it matches. Type and subtype compare
/// case-insensitively; parameters such as `charset` are ignored. The most specific matching entry decides, so
/// `["application/json", "text/*;q=0"]` accepts `application/json` and rejects `text/html`.
///
/// The check is skipped for a response that carries no content: an empty body, a response to `HEAD`, and the
/// statuses that have no content by definition (1xx, 204, 205, 304). Otherwise the response's `Content-Type`
/// must be present (unless every type is accepted), parse as one concrete media type, and be acceptable.
///
/// ```swift
/// let validator = ContentTypeValidator(["application/json; charset=utf-8"])
/// try validator.validate(response)   // accepts "Application/JSON", rejects "text/html"
/// ```
public struct ContentTypeValidator: Validating, CustomStringConvertible {
  private let expected: Result<MediaRanges, NetworkError>
  /// The expected types as given, joined only for ``description`` and error messages.
  private let texts: [String]
  /// Whether `texts` are a request's `Accept` values, where none (or blank ones) read as `*/*`.
  private let readsBlankAsAny: Bool

  /// Creates a validator from expected content types, as written in an `Accept` header.
  ///
  /// An entry that does not parse, or a range such as `*/json`, is reported by ``validate(_:)`` as
  /// ``/MalibuCore/NetworkError/Code/invalidContentType``, for every response, so the mistake shows at once. An
  /// empty sequence accepts no type: only responses without content pass.
  /// - Parameter contentTypes: Media ranges such as `"application/json"`, `"text/*"`, `"image/png;q=0"`; each
  ///   entry may also be a comma-separated list.
  public init(_ contentTypes: some Sequence<String>) {
    let texts = Array(contentTypes)
    self.texts = texts
    readsBlankAsAny = false
    expected = Result { () throws(NetworkError) in
      try MediaRanges(parsing: texts, allowEmpty: false, origin: "the expected content type")
    }
  }

  /// Creates a validator from parsed media ranges.
  /// - Parameter mediaTypes: The expected ranges; a range such as `*/json` is reported by ``validate(_:)``.
  public init(mediaTypes: [MediaType]) {
    texts = mediaTypes.map(\.description)
    readsBlankAsAny = false
    expected = Result { () throws(NetworkError) in
      try MediaRanges(checking: mediaTypes, origin: "the expected content type")
    }
  }

  /// Creates a validator expecting what a request's `Accept` header asks for.
  ///
  /// When the request has no `Accept` field, or only empty ones, every type is expected (`*/*`), as RFC 9110
  /// §12.5.1 reads a missing `Accept`. Several `Accept` fields are read as one list.
  /// - Parameter request: The request as it was sent.
  public init(acceptHeaderOf request: HTTPRequest) {
    let values = request.headerFields[values: .accept]
    texts = values
    readsBlankAsAny = true
    guard !values.isEmpty else {
      expected = .success(.anyType)
      return
    }
    expected = Result { () throws(NetworkError) in
      let ranges = try MediaRanges(parsing: values, allowEmpty: true, origin: "the request's Accept header")
      if ranges.ranges.isEmpty {
        return try MediaRanges(checking: [MediaType(type: "*", subtype: "*")], origin: "the default Accept")
      }
      return ranges
    }
  }

  /// The expected content types, as given.
  public var description: String {
    let text = texts.joined(separator: ", ")
    guard readsBlankAsAny, text.allSatisfy({ $0 == " " || $0 == "," || $0 == "\t" }) else { return text }
    return "*/*"
  }

  /// Checks the response's `Content-Type`.
  /// - Parameter response: The response to check.
  /// - Throws: ``/MalibuCore/NetworkError``, always with the response attached:
  ///   ``/MalibuCore/NetworkError/Code/invalidContentType`` when an expected type, or the response's
  ///   `Content-Type`, is not a valid media type (a wildcard or two different `Content-Type` fields included);
  ///   ``/MalibuCore/NetworkError/Code/missingContentType`` when a response with content has no `Content-Type`
  ///   and not every type is accepted; ``/MalibuCore/NetworkError/Code/unacceptableContentType`` when the type is
  ///   not expected or is excluded by a `q=0` entry.
  public func validate(_ response: Response) throws(NetworkError) {
    let ranges: MediaRanges
    switch expected {
    case .success(let parsed):
      ranges = parsed
    case .failure(var error):
      error.response = response
      throw error
    }
    guard Self.carriesContent(response) else { return }
    guard let contentType = try Self.contentType(of: response) else {
      if ranges.acceptsAnyType { return }
      throw NetworkError(
        code: .missingContentType,
        message: "the response has content but no Content-Type; expected \(expectedText)",
        response: response
      )
    }
    switch ranges.verdict(for: contentType) {
    case .accepted:
      return
    case .excluded(let range):
      throw NetworkError(
        code: .unacceptableContentType,
        message: "content type \(contentType.essence) is excluded by \(range)",
        response: response
      )
    case .unmatched:
      throw NetworkError(
        code: .unacceptableContentType,
        message: "content type \(contentType.essence) is not one of \(expectedText)",
        response: response
      )
    }
  }

  private var expectedText: String {
    let summary = description
    return summary.isEmpty ? "(none)" : summary
  }

  /// Whether a response carries content whose type is worth checking.
  ///
  /// A response to `HEAD` and the statuses 1xx, 204, 205 and 304 carry none by definition (RFC 9110 §6.4.1,
  /// §15.3.6); any response with an empty body has none to check either.
  /// - Parameter response: The response.
  /// - Returns: `false` when the content-type check has nothing to look at.
  static func carriesContent(_ response: Response) -> Bool {
    if response.data.isEmpty || response.request.method == .head { return false }
    switch response.statusCode {
    case 100..<200, 204, 205, 304: return false
    default: return true
    }
  }

  /// The response's media type, `nil` when it has no `Content-Type` field.
  private static func contentType(of response: Response) throws(NetworkError) -> MediaType? {
    // The fields are read in place: an array of their values is made only to report a conflict.
    var found: String?
    for field in response.headers where field.name == .contentType {
      guard let first = found else {
        found = field.value
        continue
      }
      guard field.value == first else {
        let values = response.headers[values: .contentType]
        throw NetworkError(
          code: .invalidContentType,
          message: "the response has conflicting Content-Type fields: \(values.joined(separator: " | "))",
          response: response
        )
      }
    }
    guard let first = found else { return nil }
    let type: MediaType
    do {
      type = try MediaType(parsing: first)
    } catch {
      throw NetworkError(
        code: .invalidContentType,
        message: "the response's Content-Type is invalid: \(error.message)",
        response: response,
        underlyingError: error
      )
    }
    guard type.type != "*" && type.subtype != "*" else {
      throw NetworkError(
        code: .invalidContentType,
        message: "the response's Content-Type '\(first)' is a wildcard, not a media type",
        response: response
      )
    }
    return type
  }
}
