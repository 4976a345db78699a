public import Foundation
public import MalibuCore
import MalibuJSON

/// Encodes parameters, `Encodable` values and top-level arrays as JSON.
///
/// Parameters are normalised by MalibuCore (`ParameterValue.normalize(_:)`), so `Date`, `Data`, `URL`,
/// `UUID` and friends follow one set of rules everywhere, then written by MalibuJSON's `MalibuJSONEncoder` (with keys
/// sorted, the same bytes as Foundation's `JSONEncoder` with these options):
///
/// - Keys are sorted by default, so the same parameters always give the same bytes (``sortsKeys``).
/// - Integers stay integers (`1`), other numbers keep their shortest exact form (`1.5`, `0.1`, `1e+20`). JSON has a
///   single number type: a `Double` that holds a whole number, such as `1.0`, is written `1`.
/// - `/` is not escaped (`"a/b"`, not `"a\/b"`); both are the same JSON string.
/// - Non-finite numbers (`.nan`, `.infinity`) are an error, never `null` or a string.
/// - Empty parameters give no body (`nil`); a POST, PUT or PATCH request then sends `{}` (MalibuTransport's
///   `PreparedRequest` decides, not this encoder), other methods nothing. An
///   explicit empty array from ``encode(array:)`` is `[]`.
///
/// ```swift
/// let json = try JSONParameterEncoder().encode(parameters: ["a": 1])   // {"a":1}
/// let boards = try JSONParameterEncoder().encode([Board(title: "Balsa")])
/// ```
public struct JSONParameterEncoder: ParameterEncoding, Hashable {
  /// Whether object keys are written in sorted order; `true` by default.
  public var sortsKeys: Bool
  /// Whether the output is indented on several lines; `false` by default.
  public var prettyPrinted: Bool

  /// An encoder.
  /// - Parameters:
  ///   - sortsKeys: Whether object keys are sorted; keep the default for deterministic bodies.
  ///   - prettyPrinted: Whether the output is indented.
  public init(sortsKeys: Bool = true, prettyPrinted: Bool = false) {
    self.sortsKeys = sortsKeys
    self.prettyPrinted = prettyPrinted
  }

  /// Parameters as a JSON object.
  /// - Parameter parameters: The parameters.
  /// - Returns: The JSON, or `nil` when there are no parameters.
  /// - Throws: `NetworkError` with code `NetworkError.Code.unsupportedParameter` naming the
  ///   key path of a value that cannot be sent.
  public func encode(parameters: Parameters) throws(NetworkError) -> Data? {
    guard !parameters.isEmpty else { return nil }
    return try write(ParameterValue.object(try ParameterValue.normalize(parameters)))
  }

  /// A top-level JSON array, for APIs that take `[ … ]` bodies; elements are normalised like parameters.
  ///
  /// ```swift
  /// try JSONParameterEncoder().encode(array: [["id": 1], ["id": 2]])   // [{"id":1},{"id":2}]
  /// ```
  /// - Parameter array: The elements.
  /// - Returns: The JSON (`[]` for an empty array).
  /// - Throws: `NetworkError` with code `NetworkError.Code.unsupportedParameter` naming the
  ///   index path (`[2][tags]`) of an element that cannot be sent.
  public func encode(array: [any Sendable]) throws(NetworkError) -> Data {
    try write(try ParameterValue(normalizing: array))
  }

  /// An `Encodable` value — a struct, an array of them, anything `JSONEncoder` takes.
  ///
  /// Dates and data follow MalibuCore's parameter rules (ISO 8601 in UTC, Base64); keys are sorted when
  /// ``sortsKeys`` is set. Numbers are written as the value's own types say.
  ///
  /// ```swift
  /// let body = try JSONParameterEncoder().encode([Board(id: 1, title: "Balsa")])
  /// ```
  /// - Parameter value: The value.
  /// - Returns: The JSON.
  /// - Throws: `NetworkError` with code `NetworkError.Code.encodingFailed` whose
  ///   underlying error is the `EncodingError` (a non-finite number, say), naming the coding path.
  public func encode<T: Encodable>(_ value: T) throws(NetworkError) -> Data {
    var encoder = makeEncoder()
    encoder.dateEncodingStrategy = .custom { date, encoder in
      // MalibuCore owns the Date rule; a Date always normalises.
      try (try ParameterValue(normalizing: date)).encode(to: encoder)
    }
    encoder.dataEncodingStrategy = .custom { data, encoder in
      try (try ParameterValue(normalizing: data)).encode(to: encoder)
    }
    do {
      return try encoder.encode(value)
    } catch {
      throw NetworkError(
        code: .encodingFailed,
        message: "a value of type \(T.self) could not be encoded as JSON: \(Self.describe(error))",
        underlyingError: error
      )
    }
  }

  private func makeEncoder() -> MalibuJSONEncoder {
    .malibuRules(sortsKeys: sortsKeys, prettyPrinted: prettyPrinted)
  }

  private func write(_ value: ParameterValue) throws(NetworkError) -> Data {
    do {
      return try makeEncoder().encode(value)
    } catch {
      // Normalised values are finite and JSON-shaped, so this is not expected; report it rather than crash.
      throw NetworkError(
        code: .encodingFailed,
        message: "parameters could not be encoded as JSON: \(error)",
        underlyingError: error
      )
    }
  }

  private static func describe(_ error: any Error) -> String {
    guard let error = error as? EncodingError, case .invalidValue(let value, let context) = error else {
      return "\(error)"
    }
    var path = context.codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
    if path.hasPrefix(".") { path.removeFirst() }
    return "\(context.debugDescription) (value \(value) at \(path.isEmpty ? "the top level" : "'\(path)'"))"
  }
}
