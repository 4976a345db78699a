public import MalibuCore

/// A rule a ``MalibuCore/Response`` must satisfy before its body is used.
///
/// Conform to check anything the built-in validators don't: a header, a body signature, an API's own error
/// envelope. Throw to reject the response; return to accept it. Throwing a ``/MalibuCore/NetworkError`` with the
/// response attached keeps the error body readable for the caller; any other error is passed on unchanged.
///
/// ```swift
/// struct RequestIDValidator: Validating {
///   func validate(_ response: Response) throws {
///     guard response.headers[HTTPField.Name("X-Request-ID")!] != nil else {
///       throw NetworkError(code: .unacceptableStatusCode, message: "no request id", response: response)
///     }
///   }
/// }
///
/// let checked = try response.validate(using: RequestIDValidator())
/// ```
public protocol Validating: Sendable {
  /// Checks a response.
  /// - Parameter response: The response to check, with the request that produced it.
  /// - Throws: An error describing why the response is not acceptable.
  func validate(_ response: Response) throws
}
