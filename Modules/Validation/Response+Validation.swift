public import MalibuCore

extension Response {
  /// Checks the response with a validator and returns it, so checks chain.
  ///
  /// ```swift
  /// let response = try await networking.request(.fetchBoards).value.validate(using: CustomValidator())
  /// ```
  /// - Parameter validator: Any ``MalibuValidation/Validating`` value.
  /// - Returns: This response, unchanged.
  /// - Throws: Whatever the validator throws, unchanged.
  @discardableResult
  public func validate(using validator: some Validating) throws -> Response {
    try validator.validate(self)
    return self
  }

  /// Checks that the status code is one of the given ones.
  ///
  /// ```swift
  /// try response.validate(statusCodes: 200..<300)
  /// ```
  /// - Parameter statusCodes: The accepted codes: a range, an array, a set, or any other finite sequence.
  /// - Returns: This response, unchanged.
  /// - Throws: ``/MalibuCore/NetworkError`` with code ``/MalibuCore/NetworkError/Code/unacceptableStatusCode``.
  @discardableResult
  public func validate(statusCodes: some Sequence<Int>) throws(NetworkError) -> Response {
    try StatusCodeValidator(statusCodes).validate(self)
    return self
  }

  /// Checks that the `Content-Type` is one of the given media ranges (see ``MalibuValidation/ContentTypeValidator``).
  ///
  /// ```swift
  /// try response.validate(contentTypes: ["application/json; charset=utf-8"])
  /// ```
  /// - Parameter contentTypes: Media ranges such as `"application/json"` or `"text/*"`.
  /// - Returns: This response, unchanged.
  /// - Throws: ``/MalibuCore/NetworkError`` with code ``/MalibuCore/NetworkError/Code/unacceptableContentType``,
  ///   ``/MalibuCore/NetworkError/Code/missingContentType`` or
  ///   ``/MalibuCore/NetworkError/Code/invalidContentType``.
  @discardableResult
  public func validate(contentTypes: some Sequence<String>) throws(NetworkError) -> Response {
    try ContentTypeValidator(contentTypes).validate(self)
    return self
  }

  /// Checks the response with the default rule (see ``MalibuValidation/DefaultValidator``): a 2xx status, and a content type the
  /// request's `Accept` header asks for.
  ///
  /// ```swift
  /// let boards = try JSONDecoder().decode([Board].self, from: response.validate().data)
  /// ```
  /// - Returns: This response, unchanged.
  /// - Throws: ``/MalibuCore/NetworkError`` with the response attached.
  @discardableResult
  public func validate() throws(NetworkError) -> Response {
    try DefaultValidator().validate(self)
    return self
  }
}
