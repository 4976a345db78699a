/// Where and why a body is not well-formed JSON: the underlying error of a
/// `NetworkError.Code.jsonSerializationFailed`.
///
/// ```swift
/// catch let error as NetworkError where error.code == .jsonSerializationFailed {
///   let syntax = error.underlyingError as? JSONSyntaxError
///   print(syntax?.offset, syntax?.reason)   // 9, "a trailing comma before ']'"
/// }
/// ```
public struct JSONSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The zero-based byte offset in the body where the problem was found.
  public var offset: Int
  /// What is wrong there, for people.
  public var reason: String

  /// Creates an error.
  /// - Parameters:
  ///   - offset: The byte offset of the problem.
  ///   - reason: What is wrong.
  public init(offset: Int, reason: String) {
    self.offset = offset
    self.reason = reason
  }

  /// `<reason> at offset <offset>`.
  public var description: String { "\(reason) at offset \(offset)" }
}
