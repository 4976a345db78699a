/// A request parameter normalised into a JSON-like value tree.
///
/// Every encoder works on this tree, so the rules for turning Swift values into parameters live in one place,
/// ``init(normalizing:)``:
///
/// | Swift value | ParameterValue |
/// |---|---|
/// | `Bool`, `NSNumber` holding a boolean | ``bool(_:)`` |
/// | any `BinaryInteger` that fits in `Int`, other `NSNumber`s | ``int(_:)`` |
/// | `Double`, `Float`, `Decimal` (finite) | ``double(_:)`` |
/// | `String`, `Substring`, `Character` | ``string(_:)`` |
/// | `URL` | ``string(_:)`` with its absolute string |
/// | `UUID` | ``string(_:)`` with its upper-case form |
/// | `Date` | ``string(_:)`` in ISO 8601, UTC, fractional seconds only when present (`2026-11-22T10:15:30Z`) |
/// | `Data` | ``string(_:)`` in Base64 |
/// | `nil`, `NSNull`, ``JSONNull`` | ``null`` |
/// | arrays | ``array(_:)`` |
/// | dictionaries with `String` keys | ``object(_:)`` |
/// | other `Encodable` values | what `JSONEncoder` makes of them, with the `Date` and `Data` rules above |
///
/// Anything else — a `Set` (it has no order), a dictionary with non-`String` keys, an integer beyond `Int`,
/// a non-finite number, a class that is not `Encodable` — is a ``NetworkError`` with code
/// ``NetworkError/Code/unsupportedParameter`` naming the parameter's key path, never a silently dropped value.
public enum ParameterValue: Hashable, Sendable {
  /// No value.
  case null
  /// A boolean.
  case bool(Bool)
  /// An integer.
  case int(Int)
  /// A finite floating-point number.
  case double(Double)
  /// A string.
  case string(String)
  /// An ordered list of values.
  case array([ParameterValue])
  /// String-keyed values.
  case object([String: ParameterValue])

  /// The value as plain Swift values: `nil` for ``null``, `Bool`, `Int`, `Double`, `String`, `[(any Sendable)?]`
  /// and `[String: (any Sendable)?]`.
  public var sendableValue: (any Sendable)? {
    switch self {
    case .null: return nil
    case .bool(let value): return value
    case .int(let value): return value
    case .double(let value): return value
    case .string(let value): return value
    case .array(let values): return values.map(\.sendableValue)
    case .object(let values): return values.mapValues(\.sendableValue)
    }
  }
}

extension ParameterValue {
  /// Normalises a whole parameter dictionary.
  /// - Parameter parameters: The parameters of a request.
  /// - Returns: The same parameters as value trees.
  /// - Throws: ``NetworkError`` with code ``NetworkError/Code/unsupportedParameter`` for the first value that is
  ///   not supported, naming its key path (for example `board[tags][2]`).
  public static func normalize(_ parameters: Parameters) throws(NetworkError) -> [String: ParameterValue] {
    var result: [String: ParameterValue] = [:]
    result.reserveCapacity(parameters.count)
    for (key, value) in parameters {
      result[key] = try ParameterNormalizer.normalize(value, path: key)
    }
    return result
  }

  /// Normalises one value by the rules in the type's overview.
  /// - Parameter value: Any supported value.
  /// - Throws: ``NetworkError`` with code ``NetworkError/Code/unsupportedParameter`` when the value, or a value
  ///   nested in it, is not supported.
  public init(normalizing value: any Sendable) throws(NetworkError) {
    self = try ParameterNormalizer.normalize(value, path: "")
  }
}
