import Foundation

/// The rules of ``ParameterValue/init(normalizing:)``, kept apart from the public type.
enum ParameterNormalizer {
  static func normalize(_ value: Any, path: String) throws(NetworkError) -> ParameterValue {
    if let value = value as? ParameterValue { return value }
    if let optional = value as? any OptionalProtocol {
      guard let wrapped = optional.wrappedAny else { return .null }
      return try normalize(wrapped, path: path)
    }
    if value is NSNull || value is JSONNull { return .null }
    // NSNumber first: on Linux an NSNumber casts to Bool, Int and Double alike, so ask it what it holds.
    if let number = value as? NSNumber, type(of: value) is NSNumber.Type {
      return try normalize(number, path: path)
    }
    if let bool = value as? Bool { return .bool(bool) }
    if let integer = value as? any BinaryInteger {
      guard let int = Int(exactly: integer) else {
        throw unsupported(path, "the integer \(integer) does not fit in Int")
      }
      return .int(int)
    }
    if let double = value as? Double { return try finite(double, path: path) }
    if let float = value as? Float { return try finite(Double(float), path: path) }
    if let decimal = value as? Decimal { return try finite(NSDecimalNumber(decimal: decimal).doubleValue, path: path) }
    if let string = value as? String { return .string(string) }
    if let substring = value as? Substring { return .string(String(substring)) }
    if let character = value as? Character { return .string(String(character)) }
    if let url = value as? URL { return .string(url.absoluteString) }
    if let uuid = value as? UUID { return .string(uuid.uuidString) }
    if let date = value as? Date { return .string(formatDate(date)) }
    if let data = value as? Data { return .string(data.base64EncodedString()) }
    if let array = value as? [Any] {
      var values: [ParameterValue] = []
      values.reserveCapacity(array.count)
      for (index, element) in array.enumerated() {
        values.append(try normalize(element, path: "\(path)[\(index)]"))
      }
      return .array(values)
    }
    if let dictionary = value as? [String: Any] {
      var values: [String: ParameterValue] = [:]
      values.reserveCapacity(dictionary.count)
      for (key, element) in dictionary {
        values[key] = try normalize(element, path: path.isEmpty ? key : "\(path)[\(key)]")
      }
      return .object(values)
    }
    if Mirror(reflecting: value).displayStyle == .set {
      throw unsupported(path, "a Set has no order; pass an Array")
    }
    if Mirror(reflecting: value).displayStyle == .dictionary {
      throw unsupported(path, "dictionary keys must be String")
    }
    if let encodable = value as? any Encodable {
      return try encode(encodable, path: path)
    }
    throw unsupported(path, "values of type \(type(of: value)) are not supported")
  }

  private static func normalize(_ number: NSNumber, path: String) throws(NetworkError) -> ParameterValue {
    switch UInt8(bitPattern: number.objCType.pointee) {
    case UInt8(ascii: "c"), UInt8(ascii: "B"): return .bool(number.boolValue)
    case UInt8(ascii: "f"), UInt8(ascii: "d"): return try finite(number.doubleValue, path: path)
    case UInt8(ascii: "Q"), UInt8(ascii: "L"):
      guard let int = Int(exactly: number.uint64Value) else {
        throw unsupported(path, "the integer \(number.uint64Value) does not fit in Int")
      }
      return .int(int)
    default: return .int(number.intValue)
    }
  }

  private static func finite(_ double: Double, path: String) throws(NetworkError) -> ParameterValue {
    guard double.isFinite else { throw unsupported(path, "the number \(double) is not finite") }
    return .double(double)
  }

  private static func encode(_ value: any Encodable, path: String) throws(NetworkError) -> ParameterValue {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .custom { date, encoder in
      var container = encoder.singleValueContainer()
      try container.encode(formatDate(date))
    }
    encoder.dataEncodingStrategy = .base64
    encoder.nonConformingFloatEncodingStrategy = .throw
    do {
      let json = try encoder.encode(value)
      return try JSONDecoder().decode(ParameterValue.self, from: json)
    } catch {
      throw NetworkError(
        code: .unsupportedParameter,
        message: "parameter \(describe(path)) of type \(type(of: value)) could not be encoded: \(error)",
        underlyingError: error
      )
    }
  }

  static func formatDate(_ date: Date) -> String {
    let hasFraction = date.timeIntervalSince1970.rounded(.down) != date.timeIntervalSince1970
    return date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: hasFraction, timeZone: .gmt))
  }

  private static func unsupported(_ path: String, _ reason: String) -> NetworkError {
    NetworkError(code: .unsupportedParameter, message: "parameter \(describe(path)): \(reason)")
  }

  private static func describe(_ path: String) -> String {
    path.isEmpty ? "value" : "'\(path)'"
  }
}

/// Lets the normaliser see through `Optional` values hidden in an existential.
protocol OptionalProtocol {
  var wrappedAny: Any? { get }
}

extension Optional: OptionalProtocol {
  var wrappedAny: Any? {
    switch self {
    case .some(let wrapped): return wrapped
    case .none: return nil
    }
  }
}
