/// The JSON literal `null`, as it appears inside the values of MalibuSerialization's `toJsonArray()` and
/// `toJsonDictionary()`; as a request parameter it is ``ParameterValue/null``.
///
/// A value type of its own rather than Foundation's `NSNull`: it is `Sendable`, `Hashable` and `Codable` on
/// every platform and has no class identity. A key whose value is `null` is present in the dictionary, holding
/// a `JSONNull`:
///
/// ```swift
/// let user = try response.toJsonDictionary()   // {"name": "Ada", "email": null}
/// user["email"] is JSONNull                    // true
/// user["phone"] == nil                         // true: the key is absent
/// ```
///
/// It encodes as `null`, so a parsed dictionary can be sent back as request parameters.
public struct JSONNull: Hashable, Sendable, Codable, CustomStringConvertible {
  /// Creates the `null` value.
  public init() {}

  /// Decodes `null`.
  /// - Parameter decoder: The decoder to read from.
  /// - Throws: `DecodingError.typeMismatch` when the value is not `null`.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    guard container.decodeNil() else {
      throw DecodingError.typeMismatch(
        JSONNull.self,
        DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "expected null")
      )
    }
  }

  /// Encodes `null`.
  /// - Parameter encoder: The encoder to write to.
  /// - Throws: `EncodingError` from the encoder.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encodeNil()
  }

  /// `"null"`.
  public var description: String { "null" }
}
