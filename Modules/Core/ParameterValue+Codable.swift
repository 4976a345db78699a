extension ParameterValue: Codable {
  /// Decodes a value from JSON-like data: integers that fit in `Int` become ``int(_:)``, other numbers
  /// ``double(_:)``; an integer beyond `Int` is an error (as it is for a parameter given directly), never a rounded
  /// `Double`.
  /// - Parameter decoder: The decoder to read from.
  /// - Throws: `DecodingError` when the data is not a JSON-like value or holds an integer beyond `Int`.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let bool = try? container.decode(Bool.self) {
      self = .bool(bool)
    } else if let int = try? container.decode(Int.self) {
      self = .int(int)
    } else if let big = try? container.decode(UInt64.self) {
      throw DecodingError.dataCorruptedError(
        in: container,
        debugDescription: "the integer \(big) does not fit in Int"
      )
    } else if let double = try? container.decode(Double.self) {
      self = .double(double)
    } else if let string = try? container.decode(String.self) {
      self = .string(string)
    } else if let array = try? container.decode([ParameterValue].self) {
      self = .array(array)
    } else {
      self = .object(try container.decode([String: ParameterValue].self))
    }
  }

  /// Encodes the value as the matching JSON value.
  /// - Parameter encoder: The encoder to write to.
  /// - Throws: `EncodingError` from the encoder.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .null: try container.encodeNil()
    case .bool(let value): try container.encode(value)
    case .int(let value): try container.encode(value)
    case .double(let value): try container.encode(value)
    case .string(let value): try container.encode(value)
    case .array(let values): try container.encode(values)
    case .object(let values): try container.encode(values)
    }
  }
}
