extension Validating where Self == DefaultValidator {
  /// The default rule: a 2xx status and a content type the request's `Accept` header asks for.
  ///
  /// ```swift
  /// try response.validate(using: .default)
  /// ```
  public static var `default`: DefaultValidator { DefaultValidator() }
}

extension Validating where Self == StatusCodeValidator {
  /// A validator accepting the given status codes.
  /// - Parameter statusCodes: The accepted codes: a range, an array, a set, or any other finite sequence.
  /// - Returns: The validator.
  ///
  /// ```swift
  /// try response.validate(using: .statusCodes([200, 201]))
  /// ```
  public static func statusCodes(_ statusCodes: some Sequence<Int>) -> StatusCodeValidator {
    StatusCodeValidator(statusCodes)
  }
}

extension Validating where Self == ContentTypeValidator {
  /// A validator accepting the given content types, written as in an `Accept` header.
  /// - Parameter contentTypes: Media ranges such as `"application/json"` or `"text/*;q=0"`.
  /// - Returns: The validator.
  ///
  /// ```swift
  /// try response.validate(using: .contentTypes(["application/json"]))
  /// ```
  public static func contentTypes(_ contentTypes: some Sequence<String>) -> ContentTypeValidator {
    ContentTypeValidator(contentTypes)
  }
}
