public import MalibuCore

extension Response {
  /// The body as a JSON array of `Sendable` values.
  ///
  /// Values map to Swift by the rules in <doc:MalibuSerialization#JSON-values>: objects `[String: any Sendable]`,
  /// arrays `[any Sendable]`, integer literals `Int`, other numbers `Double`, `Bool`, `String`,
  /// ``/MalibuCore/JSONNull``.
  ///
  /// ```swift
  /// let boards = try response.toJsonArray()          // [{"id": 1}, {"id": 2}]
  /// let firstId = (boards.first as? [String: any Sendable])?["id"] as? Int   // 1
  /// ```
  ///
  /// - Returns: The array; `[]` when ``hasEmptyBodyByDefinition`` is `true`.
  /// - Throws: `NetworkError` carrying this response:
  ///   - `NetworkError.Code.emptyResponse` when the body is empty;
  ///   - `NetworkError.Code.jsonSerializationFailed` when it is not well-formed JSON (the message
  ///     names the byte offset; the underlying error is a ``JSONSyntaxError``);
  ///   - `NetworkError.Code.unexpectedJSONShape` when it is JSON but not an array.
  public func toJsonArray() throws(NetworkError) -> [any Sendable] {
    if hasEmptyBodyByDefinition { return [] }
    let value = try jsonValue()
    guard let array = value as? [any Sendable] else { throw shapeError(expected: "an array", found: value) }
    return array
  }

  /// The body as a JSON object of `Sendable` values.
  ///
  /// Values map to Swift by the rules in <doc:MalibuSerialization#JSON-values>: objects `[String: any Sendable]`,
  /// arrays `[any Sendable]`, integer literals `Int`, other numbers `Double`, `Bool`, `String`,
  /// ``/MalibuCore/JSONNull``.
  ///
  /// ```swift
  /// let board = try response.toJsonDictionary()      // {"id": 1, "title": "Balsa", "price": 9.5}
  /// board["id"] as? Int                              // 1
  /// board["price"] as? Double                        // 9.5
  /// ```
  ///
  /// - Returns: The dictionary; `[:]` when ``hasEmptyBodyByDefinition`` is `true`.
  /// - Throws: `NetworkError` carrying this response:
  ///   - `NetworkError.Code.emptyResponse` when the body is empty;
  ///   - `NetworkError.Code.jsonSerializationFailed` when it is not well-formed JSON (the message
  ///     names the byte offset; the underlying error is a ``JSONSyntaxError``);
  ///   - `NetworkError.Code.unexpectedJSONShape` when it is JSON but not an object.
  public func toJsonDictionary() throws(NetworkError) -> [String: any Sendable] {
    if hasEmptyBodyByDefinition { return [:] }
    let value = try jsonValue()
    guard let dictionary = value as? [String: any Sendable] else {
      throw shapeError(expected: "an object", found: value)
    }
    return dictionary
  }

  /// The whole body parsed as JSON, whatever its top-level value.
  private func jsonValue() throws(NetworkError) -> any Sendable {
    guard !data.isEmpty else {
      throw NetworkError(
        code: .emptyResponse,
        message: "the body is empty where JSON was expected (status \(statusCode))\(validateHint)",
        response: self
      )
    }
    do {
      return try JSONParser.parse(data)
    } catch {
      throw NetworkError(
        code: .jsonSerializationFailed,
        message: "the body is not valid JSON: \(error)\(failureContext)",
        response: self,
        underlyingError: error
      )
    }
  }

  private func shapeError(expected: String, found value: any Sendable) -> NetworkError {
    NetworkError(
      code: .unexpectedJSONShape,
      message: "expected the JSON body to be \(expected), but it is \(Self.jsonKind(of: value))\(failureContext)",
      response: self
    )
  }

  private static func jsonKind(of value: any Sendable) -> String {
    switch value {
    case is [any Sendable]: return "an array"
    case is [String: any Sendable]: return "an object"
    case is String: return "a string"
    case is Bool: return "a boolean"
    case is Int, is Double: return "a number"
    default: return "null"
    }
  }
}
