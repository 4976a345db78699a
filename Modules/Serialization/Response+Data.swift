public import Foundation
public import MalibuCore

extension Response {
  /// The body as it is.
  ///
  /// ```swift
  /// let bytes: Data = response.toData()
  /// ```
  ///
  /// - Returns: `Response.data`, or `Data()` when ``hasEmptyBodyByDefinition`` is `true` (204, 205,
  ///   a response to `HEAD`). Never fails: an empty body is an empty value.
  public func toData() -> Data {
    hasEmptyBodyByDefinition ? Data() : data
  }
}
