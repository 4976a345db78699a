public import MalibuCore

/// The rule behind `validate()`: a successful status, and content of a type the request asked for.
///
/// 1. The status code must be in `200..<300` (``StatusCodeValidator/successful``).
/// 2. The `Content-Type` is checked with ``ContentTypeValidator/init(acceptHeaderOf:)``: the expected types
///    come from the `Accept` header of the request as sent, q-values included, and are `*/*` when it has none.
///    The check is skipped for 204, 205, a response to `HEAD` and an empty body, which carry no content.
///
/// An `Accept` header that does not parse fails every successful response with
/// ``/MalibuCore/NetworkError/Code/invalidContentType``, so the mistake is seen at once.
///
/// ```swift
/// let response = try await networking.request(.fetchBoards).value
/// try DefaultValidator().validate(response)
/// ```
public struct DefaultValidator: Validating {
  /// Creates the default validator.
  public init() {}

  /// Checks the status code, then the content type against the request's `Accept` header.
  /// - Parameter response: The response to check.
  /// - Throws: ``/MalibuCore/NetworkError`` with the response attached:
  ///   ``/MalibuCore/NetworkError/Code/unacceptableStatusCode`` first, then the content-type codes of
  ///   ``ContentTypeValidator/validate(_:)``.
  public func validate(_ response: Response) throws(NetworkError) {
    try StatusCodeValidator.successful.validate(response)
    try ContentTypeValidator(acceptHeaderOf: response.request).validate(response)
  }
}
