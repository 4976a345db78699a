public import Foundation
public import MalibuJSON

/// Turns a response body into a `Decodable` value: what every `decode` of Malibu takes.
///
/// `MalibuJSONDecoder` (the default), Foundation's `JSONDecoder` and `PropertyListDecoder` conform; a decoder of your
/// own (XML, MessagePack, a JSON dialect) conforms in a few lines:
///
/// ```swift
/// struct XSSIDecoder: ResponseDecoder {   // JSON behind an anti-XSSI prefix
///   func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
///     let prefix = Data(")]}'\n".utf8)
///     let body = data.starts(with: prefix) ? data.dropFirst(prefix.count) : data
///     return try MalibuJSONDecoder().decode(type, from: body)
///   }
/// }
/// let settings = try response.decode(Settings.self, decoder: XSSIDecoder())
/// ```
///
/// A decoder is called synchronously, once per body, and may be called from any thread at once.
public protocol ResponseDecoder: Sendable {
  /// Decodes a value of `type` from a whole body.
  /// - Parameters:
  ///   - type: The type to decode.
  ///   - data: The body, after content decoding (gzip inflated).
  /// - Returns: The value.
  /// - Throws: Whatever the decoder throws: a `DecodingError` names its coding path in the `NetworkError` that
  ///   Malibu reports.
  func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T
}

/// MalibuJSON's decoder, the default of every `decode`.
extension MalibuJSONDecoder: ResponseDecoder {}

/// Foundation's decoder: one argument away (`decoder: JSONDecoder()`), with its strategies.
extension JSONDecoder: ResponseDecoder {}

/// Foundation's property-list decoder.
extension PropertyListDecoder: ResponseDecoder {}
