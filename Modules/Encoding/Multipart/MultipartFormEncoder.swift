public import Foundation
public import MalibuCore

/// Encodes parameters as a `multipart/form-data` body, streamed by the transport with an exact `Content-Length`.
///
/// - Fields are named and ordered exactly like the form encoder's (MalibuCore's `FormURLEncoding`):
///   keys sorted at every depth, `board[title]`, `tags[]` (or the chosen array style). Names and values are not
///   percent-escaped: they travel as UTF-8 text parts.
/// - Strings, numbers, `nil` (an empty field) and the other values MalibuCore normalises become text fields;
///   booleans follow ``rules`` like in a form body: `1`/`0` by default, `true`/`false` with
///   `FormURLEncoding.BoolStyle.literal`.
/// - `Data` values become parts of type `application/octet-stream` without a file name; ``MultipartFile`` values
///   become file parts (streamed from disk, with file name and media type). Both are found inside nested
///   dictionaries and arrays too; inside an `Encodable` value, `Data` follows MalibuCore's rule (Base64 text).
/// - Empty parameters give no body, like the other encoders (RFC 2046 wants at least one part).
///
/// ```swift
/// let body = try MultipartFormEncoder().encodeBody(
///   parameters: ["title": "Balsa", "photo": MultipartFile(url: photoURL, mimeType: "image/jpeg")],
///   contentType: .multipartFormData)
/// body.contentType   // "multipart/form-data; boundary=Boundary-…"
/// ```
public struct MultipartFormEncoder: ParameterEncoding, Hashable {
  /// How nested keys and booleans are written; the form encoder's defaults.
  public var rules: FormURLEncoding

  /// An encoder with the given styles; `MultipartFormEncoder()` uses MalibuCore's defaults.
  /// - Parameters:
  ///   - arrayStyle: How array elements are keyed; `key[]` by default.
  ///   - boolStyle: How booleans are written; `1`/`0` by default.
  public init(
    arrayStyle: FormURLEncoding.ArrayStyle = .brackets,
    boolStyle: FormURLEncoding.BoolStyle = .numeric
  ) {
    self.init(rules: FormURLEncoding(arrayStyle: arrayStyle, boolStyle: boolStyle))
  }

  /// An encoder with the given rules.
  /// - Parameter rules: Array and boolean styles, shared with a ``FormURLEncoder`` if you like.
  public init(rules: FormURLEncoding) {
    self.rules = rules
  }

  /// The form for some parameters, to send or to extend with more parts.
  /// - Parameters:
  ///   - parameters: The parameters.
  ///   - boundary: A boundary of your choice; a random one when `nil`.
  /// - Returns: The form, with any problem with a file in its ``MultipartFormData/recordedError``.
  /// - Throws: `NetworkError` with code `NetworkError.Code.unsupportedParameter` naming the
  ///   key path of a value that cannot be sent.
  public func makeForm(from parameters: Parameters, boundary: String? = nil) throws(NetworkError) -> MultipartFormData {
    var form = boundary.map(MultipartFormData.init(boundary:)) ?? MultipartFormData()
    var files = FilePlaceholders()
    let substituted = parameters.mapValues { files.substitute($0) }
    for (name, value) in try FormFields.pairs(from: substituted, rules: rules) {
      if let file = files.file(for: value) {
        form.append(file, name: name)
      } else {
        form.append(value, name: name)
      }
    }
    return form
  }

  /// The whole body in memory.
  /// - Parameter parameters: The parameters.
  /// - Returns: The body, or `nil` when there are no parameters.
  /// - Throws: `NetworkError`: `NetworkError.Code.unsupportedParameter` for a value that
  ///   cannot be sent, `NetworkError.Code.encodingFailed` for a file that cannot be read.
  public func encode(parameters: Parameters) throws(NetworkError) -> Data? {
    guard !parameters.isEmpty else { return nil }
    return try makeForm(from: parameters).encode()
  }

  /// The body as a stream, with `multipart/form-data; boundary=…` (or the custom media type it is registered for,
  /// with the boundary) as its header.
  /// - Parameters:
  ///   - parameters: The parameters.
  ///   - contentType: The content type the encoder was chosen for.
  /// - Returns: A ``MultipartFormData`` to stream, or ``EncodedBody/empty`` for no parameters.
  /// - Throws: Like ``encode(parameters:)``; a missing file is reported here, before anything is sent.
  public func encodeBody(parameters: Parameters, contentType: ContentType) throws(NetworkError) -> EncodedBody {
    guard !parameters.isEmpty else { return .empty }
    let form = try makeForm(from: parameters)
    if let error = form.recordedError { throw error }
    let mediaType = (contentType.isCustom ? contentType.headerValue : nil) ?? "multipart/form-data"
    return EncodedBody(stream: form, contentType: form.headerValue(mediaType: mediaType))
  }
}

/// Swaps `Data` and ``MultipartFile`` values for unique text tokens, so MalibuCore can flatten and order the
/// parameters, and swaps them back by the field values it returns.
///
/// A token is a NUL, a random 32-character nonce drawn once per form and a counter: no caller can produce one.
private struct FilePlaceholders {
  private let prefix = "\u{0}multipart-file-\(MultipartFormData.randomBoundary())-"
  private var files: [String: MultipartFile] = [:]

  mutating func substitute(_ value: any Sendable) -> any Sendable {
    if let file = value as? MultipartFile { return token(for: file) }
    if let data = value as? Data { return token(for: MultipartFile(data: data)) }
    if value is ParameterValue { return value }
    if let dictionary = value as? [String: any Sendable] { return dictionary.mapValues { substitute($0) } }
    if let array = value as? [any Sendable] { return array.map { substitute($0) } }
    return value
  }

  func file(for value: String) -> MultipartFile? {
    value.hasPrefix(prefix) ? files[value] : nil
  }

  private mutating func token(for file: MultipartFile) -> String {
    let token = prefix + String(files.count)
    files[token] = file
    return token
  }
}
