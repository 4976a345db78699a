public import MalibuCore

/// Runs several validators in order; the first that throws decides the error.
///
/// ```swift
/// let strict = CombinedValidator(StatusCodeValidator([200]), ContentTypeValidator(["application/json"]))
/// try response.validate(using: strict)
/// ```
public struct CombinedValidator: Validating {
  /// The validators, in the order they run.
  public let validators: [any Validating]

  /// Creates a validator that runs the given ones in order.
  /// - Parameter validators: The validators; none means every response passes.
  public init(_ validators: [any Validating]) {
    self.validators = validators
  }

  /// Creates a validator that runs the given ones in order.
  /// - Parameter validators: The validators.
  public init(_ validators: any Validating...) {
    self.validators = validators
  }

  /// Runs every validator until one throws.
  /// - Parameter response: The response to check.
  /// - Throws: The first error a validator throws, unchanged.
  public func validate(_ response: Response) throws {
    for validator in validators {
      try validator.validate(response)
    }
  }
}
