public import Foundation

/// Decodes `Decodable` values from JSON, as Foundation's `JSONDecoder` does, in one pass over the UTF-8 bytes.
///
/// A value type: configure one and share it across threads.
public struct MalibuJSONDecoder: Sendable {
  /// A decoder with Foundation's default options.
  public init() {}

  /// Decodes a value of `type` from the JSON document in `data`.
  ///
  /// - Throws: `DecodingError`, with the case and coding path Foundation's decoder reports.
  public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
    // Placeholder until the tape decoder lands: Foundation's decoder.
    try JSONDecoder().decode(type, from: data)
  }

  /// Decodes a value of `type` from the JSON document in `bytes`.
  ///
  /// - Throws: `DecodingError`, with the case and coding path Foundation's decoder reports.
  public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
    try decode(type, from: Data(bytes))
  }
}
