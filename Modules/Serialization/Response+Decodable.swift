import Foundation
public import MalibuCore
import MalibuJSON

extension Response {
  /// The body decoded into a `Decodable` type by the response's `Response.defaultDecoder`: the
  /// networking's `decoder` for a response of the facade, else a `MalibuJSONDecoder()` (keys as they are, dates as
  /// seconds since 2001 (`.deferredToDate`), data as Base64, as Foundation's `JSONDecoder()`).
  ///
  /// ```swift
  /// let boards = try response.decode([Board].self)
  /// ```
  ///
  /// When ``hasEmptyBodyByDefinition`` is `true` (204, 205, a response to `HEAD`) the body is not decoded:
  /// a type that conforms to ``EmptyBodyDecodable`` (``EmptyResponse``, any `Optional`) gives its
  /// ``EmptyBodyDecodable/emptyBodyValue``, any other type fails with
  /// `NetworkError.Code.emptyResponse`.
  ///
  /// - Parameter type: The type to decode; inferred from the context when omitted.
  /// - Returns: The decoded value.
  /// - Throws: `NetworkError` carrying this response, as ``decode(_:decoder:)`` throws it.
  public func decode<T: Decodable>(_ type: T.Type = T.self) throws(NetworkError) -> T {
    if let decoder = defaultDecoder { return try decode(T.self, decoder: decoder) }
    return try decode(T.self, decoder: MalibuJSONDecoder())
  }

  /// The body decoded into a `Decodable` type by `decoder`: Foundation's `JSONDecoder` with its strategies, a
  /// property-list decoder, any `ResponseDecoder`.
  ///
  /// ```swift
  /// let decoder = JSONDecoder()
  /// decoder.keyDecodingStrategy = .convertFromSnakeCase
  /// let user: User = try response.decode(decoder: decoder)
  /// ```
  ///
  /// The rules for empty bodies are those of ``decode(_:)``.
  ///
  /// - Parameters:
  ///   - type: The type to decode; inferred from the context when omitted.
  ///   - decoder: The decoder to use.
  /// - Returns: The decoded value.
  /// - Throws: `NetworkError` carrying this response:
  ///   - `NetworkError.Code.emptyResponse` when the body is empty (at any status other than the
  ///     ones above, whatever the type), or has no body by definition and the type has no empty value;
  ///   - `NetworkError.Code.decodingFailed` when decoding fails, malformed JSON included; the
  ///     message names the coding path and the underlying error is the `DecodingError` (or whatever the decoder or
  ///     the type's `init(from:)` threw).
  public func decode<T: Decodable>(
    _ type: T.Type = T.self,
    decoder: some ResponseDecoder
  ) throws(NetworkError) -> T {
    if hasEmptyBodyByDefinition {
      if let emptyType = T.self as? any EmptyBodyDecodable.Type, let value = emptyType.emptyBodyValue as? T {
        return value
      }
      throw NetworkError(
        code: .emptyResponse,
        message: "a \(statusCode) response has no body by definition, and \(T.self) has no empty value "
          + "(decode EmptyResponse or an Optional instead)",
        response: self
      )
    }
    guard !data.isEmpty else {
      throw NetworkError(
        code: .emptyResponse,
        message: "the body is empty where \(T.self) was expected (status \(statusCode))\(validateHint)",
        response: self
      )
    }
    do {
      return try decoder.decode(T.self, from: data)
    } catch let error as DecodingError {
      throw NetworkError(
        code: .decodingFailed,
        message: "could not decode \(T.self) from the body: \(Self.describe(error))\(failureContext)",
        response: self,
        underlyingError: error
      )
    } catch {
      throw NetworkError(
        code: .decodingFailed,
        message: "could not decode \(T.self) from the body: \(error)\(failureContext)",
        response: self,
        underlyingError: error
      )
    }
  }

  static func describe(_ error: DecodingError) -> String {
    switch error {
    case .typeMismatch(let type, let context):
      return "expected \(type) at \(path(context.codingPath)): \(context.debugDescription)"
    case .valueNotFound(let type, let context):
      return "no value of type \(type) at \(path(context.codingPath)): \(context.debugDescription)"
    case .keyNotFound(let key, let context):
      return "missing key '\(key.stringValue)' at \(path(context.codingPath + [key]))"
    case .dataCorrupted(let context):
      return "corrupted data at \(path(context.codingPath)): \(context.debugDescription)"
    @unknown default:
      return "\(error)"
    }
  }

  /// A coding path as `$` for the top level, otherwise like `[0].owner.name`.
  static func path(_ codingPath: [any CodingKey]) -> String {
    guard !codingPath.isEmpty else { return "$ (the top level)" }
    var text = ""
    for key in codingPath {
      if let index = key.intValue {
        text += "[\(index)]"
      } else {
        text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
      }
    }
    return text
  }
}
