public import Foundation
import HTTPTypes
public import MalibuCore

extension Response {
  /// The body as text, in the character set the response declares or the one given.
  ///
  /// Without `encoding`, the `charset` parameter of the `Content-Type` header chooses the encoding through
  /// `String.Encoding(ianaCharsetName:)`; with no `Content-Type`, or one without a `charset`, the body is read as
  /// UTF-8. A leading byte-order mark is removed. The text is exact or there is an error: bytes that are not
  /// valid in the encoding are never replaced with `U+FFFD`.
  ///
  /// The status is not looked at: a 404's body gives the text of its error page, and `""` when it is empty, as any
  /// empty body does. Check the status first (`validate()`, `StatusCodeValidator`) to fail on it instead.
  ///
  /// ```swift
  /// let html = try response.toString()                      // charset from Content-Type, else UTF-8
  /// let legacy = try response.toString(encoding: .windowsCP1251)
  /// ```
  ///
  /// - Parameter encoding: The encoding to use whatever the headers say; `nil` (the default) reads it from the
  ///   `Content-Type` header.
  /// - Returns: The text; `""` for an empty body and when ``hasEmptyBodyByDefinition`` is `true`.
  /// - Throws: `NetworkError` carrying this response:
  ///   - `NetworkError.Code.stringDecodingFailed` when the bytes are not valid in the encoding (the
  ///     message names the offset where it can), or the declared charset is not supported;
  ///   - `NetworkError.Code.invalidContentType` when `encoding` is `nil` and the `Content-Type`
  ///     header cannot be parsed (its parse error is the underlying error).
  public func toString(encoding: String.Encoding? = nil) throws(NetworkError) -> String {
    if hasEmptyBodyByDefinition || data.isEmpty { return "" }
    let chosen: String.Encoding
    if let encoding {
      chosen = encoding
    } else {
      chosen = try declaredEncoding()
    }
    do {
      return try TextDecoding.decode(data, as: chosen)
    } catch {
      throw NetworkError(code: .stringDecodingFailed, message: error.reason + failureContext, response: self)
    }
  }

  /// The encoding named by the `Content-Type` header, UTF-8 when it names none.
  private func declaredEncoding() throws(NetworkError) -> String.Encoding {
    guard let contentType = headers[values: .contentType].first else { return .utf8 }
    let mediaType: MediaType
    do {
      mediaType = try MediaType(parsing: contentType)
    } catch {
      throw NetworkError(
        code: .invalidContentType,
        message: "the Content-Type '\(contentType)' cannot be parsed, so the body's charset is unknown",
        response: self,
        underlyingError: error
      )
    }
    guard let charset = mediaType.charset else { return .utf8 }
    guard let encoding = String.Encoding(ianaCharsetName: charset) else {
      throw NetworkError(
        code: .stringDecodingFailed,
        message: "the charset '\(charset)' is not supported; pass toString(encoding:) to choose one",
        response: self
      )
    }
    return encoding
  }
}
