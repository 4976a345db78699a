/// A `Decodable` type that has a value meaning "no body", so that ``MalibuCore/Response/decode(_:decoder:)``
/// can succeed for a response that has no body by definition (204, 205, a response to `HEAD`).
///
/// ``EmptyResponse`` and every `Optional` whose wrapped type is `Decodable` conform. Adopt it for your own
/// types when "no content" has a natural value:
///
/// ```swift
/// extension BoardList: EmptyBodyDecodable {
///   static var emptyBodyValue: BoardList { BoardList(boards: []) }
/// }
/// ```
public protocol EmptyBodyDecodable: Decodable {
  /// The value to return for a response that has no body by definition.
  static var emptyBodyValue: Self { get }
}

/// The value of a response that has, or is allowed to have, no body.
///
/// Decoding it from a 204, a 205 or a response to `HEAD` always succeeds; decoding it from a JSON body
/// needs a JSON object (`{}`; its members are ignored).
///
/// ```swift
/// _ = try response.decode(EmptyResponse.self)   // 204 No Content → EmptyResponse()
/// ```
public struct EmptyResponse: EmptyBodyDecodable, Codable, Hashable, Sendable {
  /// Creates the empty value.
  public init() {}

  /// `EmptyResponse()`.
  public static var emptyBodyValue: EmptyResponse { EmptyResponse() }
}

extension Optional: EmptyBodyDecodable where Wrapped: Decodable {
  /// `nil`: no body means no value.
  public static var emptyBodyValue: Wrapped? { nil }
}
