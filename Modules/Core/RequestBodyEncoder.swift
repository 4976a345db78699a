public import Foundation
public import MalibuJSON

/// Turns an `Encodable` value into a request body, and names the media type it writes: what an ``EncodableBody``
/// takes as its `encoder`.
///
/// `MalibuJSONEncoder` and Foundation's `JSONEncoder` (both `application/json`) and `PropertyListEncoder`
/// (`application/x-plist`) conform; an encoder of your own conforms in a few lines:
///
/// ```swift
/// struct CSVEncoder: RequestBodyEncoder {
///   var contentType: String { "text/csv" }
///   func encode<T: Encodable>(_ value: T) throws -> Data { … }
/// }
/// let request = Request.post("rows", body: rows, encoder: CSVEncoder())   // Content-Type: text/csv
/// ```
///
/// A request kept for later (`storePolicy: .offline`) keeps its body as the JSON tree the encoder wrote, and is
/// replayed as JSON by Malibu's rules, without the encoder: a body that is not JSON (a property list, CSV) cannot be
/// stored, and the offline store reports a `StorageError` with code `unsupportedRequest` instead.
public protocol RequestBodyEncoder: Sendable {
  /// The `Content-Type` of what ``encode(_:)`` writes, such as `application/json`; `application/json` by default.
  var contentType: String { get }

  /// Encodes `value` as a whole body.
  /// - Parameter value: The value.
  /// - Returns: The body.
  /// - Throws: Whatever the encoder throws; the request then fails with ``NetworkError`` code
  ///   ``NetworkError/Code/encodingFailed``.
  func encode<T: Encodable>(_ value: T) throws -> Data
}

extension RequestBodyEncoder {
  /// `application/json`.
  public var contentType: String { "application/json" }
}

/// MalibuJSON's encoder: `application/json`.
extension MalibuJSONEncoder: RequestBodyEncoder {
  /// An encoder with Malibu's JSON rules: `/` not escaped, non-finite numbers an error, keys sorted unless asked
  /// otherwise. The one configuration behind MalibuEncoding's `JSONParameterEncoder` and ``EncodableBody/jsonData()``.
  /// - Parameters:
  ///   - sortsKeys: Whether object keys are sorted; `true` for deterministic bodies.
  ///   - prettyPrinted: Whether the output is indented.
  /// - Returns: The encoder.
  package static func malibuRules(sortsKeys: Bool = true, prettyPrinted: Bool = false) -> MalibuJSONEncoder {
    var encoder = MalibuJSONEncoder()
    var formatting: OutputFormatting = [.withoutEscapingSlashes]
    if sortsKeys { formatting.insert(.sortedKeys) }
    if prettyPrinted { formatting.insert(.prettyPrinted) }
    encoder.outputFormatting = formatting
    encoder.nonConformingFloatEncodingStrategy = .throw
    return encoder
  }
}

/// Foundation's encoder: `application/json`, with its output formatting and strategies.
extension JSONEncoder: RequestBodyEncoder {}

/// Foundation's property-list encoder: `application/x-plist`, in its `outputFormat`.
extension PropertyListEncoder: RequestBodyEncoder {
  /// `application/x-plist`.
  public var contentType: String { "application/x-plist" }
}
