public import Foundation

/// Encodes `Encodable` values as JSON, byte for byte as Foundation's `JSONEncoder` writes them.
///
/// A value type: configure one and share it across threads.
public struct MalibuJSONEncoder: Sendable {
  /// An encoder with Foundation's default options.
  public init() {}

  /// Encodes `value` as a JSON document.
  ///
  /// - Throws: `EncodingError`, as Foundation's encoder reports it.
  public func encode<T: Encodable>(_ value: T) throws -> Data {
    // Placeholder until the writer lands: Foundation's encoder.
    try JSONEncoder().encode(value)
  }
}
