import Foundation
public import HTTPTypes

extension Redactor {
  /// A text with every secret value of `request` replaced by ``placeholder``, as error descriptions are logged: a
  /// transport's message or a `URLError` can quote the URL or a header. Values shorter than four characters are left
  /// alone. For other reporters of errors, such as a tracing middleware.
  ///
  /// ```swift
  /// let request = HTTPRequest(method: .get, url: URL(string: "https://example.com/a?token=abcd1234")!)
  /// Redactor().scrub("cannot reach /a?token=abcd1234", of: request)   // "cannot reach /a?token=<redacted>"
  /// ```
  /// - Parameters:
  ///   - text: The text to scrub.
  ///   - request: The request whose secrets (secret header values, secret query values, user information) are removed.
  /// - Returns: The scrubbed text.
  public func scrub(_ text: String, of request: HTTPRequest) -> String {
    var text = text
    for secret in secretValues(of: request) where text.contains(secret) {
      text = text.replacingOccurrences(of: secret, with: Self.placeholder)
    }
    return text
  }
}
