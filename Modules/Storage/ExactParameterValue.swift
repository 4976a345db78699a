import MalibuCore

/// A ``MalibuCore/ParameterValue`` coded with its kind spelled out, so that a stored `7.0` comes back as a double
/// and `7` as an integer (plain JSON cannot tell them apart, and a form body writes them differently).
struct ExactParameterValue: Codable {
  var value: ParameterValue

  init(_ value: ParameterValue) {
    self.value = value
  }

  private enum CodingKeys: String, CodingKey {
    case null, bool, int, double, string, array, object
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    guard let key = container.allKeys.first, container.allKeys.count == 1 else {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "a parameter needs exactly one kind")
      )
    }
    switch key {
    case .null: value = .null
    case .bool: value = .bool(try container.decode(Bool.self, forKey: key))
    case .int: value = .int(try container.decode(Int.self, forKey: key))
    case .double:
      let text = try container.decode(String.self, forKey: key)
      guard let double = Double(text), double.isFinite else {
        throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "bad number \(text)")
      }
      value = .double(double)
    case .string: value = .string(try container.decode(String.self, forKey: key))
    case .array: value = .array(try container.decode([ExactParameterValue].self, forKey: key).map(\.value))
    case .object:
      value = .object(try container.decode([String: ExactParameterValue].self, forKey: key).mapValues(\.value))
    }
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    switch value {
    case .null: try container.encode(true, forKey: .null)
    case .bool(let bool): try container.encode(bool, forKey: .bool)
    case .int(let int): try container.encode(int, forKey: .int)
    case .double(let double): try container.encode(String(double), forKey: .double)
    case .string(let string): try container.encode(string, forKey: .string)
    case .array(let values): try container.encode(values.map(ExactParameterValue.init), forKey: .array)
    case .object(let values): try container.encode(values.mapValues(ExactParameterValue.init), forKey: .object)
    }
  }
}
