import Foundation
public import HTTPTypes
public import Logging

/// A request as the loggers see it: secrets already redacted.
///
/// Below ``LogLevel/verbose`` the header fields are empty and the body is `nil`, so a custom logger cannot print
/// more than the level allows by accident.
public struct LoggedRequest: Sendable, Hashable {
  /// The request method.
  public var method: HTTPRequest.Method
  /// The URL, with the values of secret query parameters and any user information replaced by
  /// `Redactor.placeholder`.
  public var url: String
  /// The header fields, secret values replaced (``LogLevel/verbose`` only).
  public var headerFields: HTTPFields
  /// A summary of the body (``LogLevel/verbose`` only, and only when there is a body).
  public var body: LoggedBody?
  /// How many times the request was sent again after its first send, by a token refresh's retry for example
  /// (``LogMetadataKey/resendCount``): `0` when it was sent once. Known only once the request is done, so `nil` in
  /// the `request sent` record and for errors logged outside ``LoggingMiddleware``.
  public var resendCount: Int?
  /// The request's secret values (credentials, values of secret query parameters), kept only to scrub them from
  /// texts such as error descriptions; never printed.
  var secrets: [String] = []

  /// Creates a logged request.
  /// - Parameters:
  ///   - method: The request method.
  ///   - url: The redacted URL.
  ///   - headerFields: The redacted header fields.
  ///   - body: The body summary.
  public init(method: HTTPRequest.Method, url: String, headerFields: HTTPFields = [:], body: LoggedBody? = nil) {
    self.method = method
    self.url = url
    self.headerFields = headerFields
    self.body = body
  }

  /// `GET https://example.com/boards?type=1`.
  public var summary: String { "\(method.rawValue) \(url)" }

  /// The request as swift-log metadata: ``LogMetadataKey/method``, ``LogMetadataKey/url``, the
  /// ``LogMetadataKey/resendCount`` when known, and at
  /// ``LogLevel/verbose`` the header fields (``LogMetadataKey/requestHeaders``) and the body's size, content type
  /// and one-line preview. Every value is redacted already.
  public var metadata: Logger.Metadata {
    var metadata = summaryMetadata
    if !headerFields.isEmpty { metadata[LogMetadataKey.requestHeaders] = LogFormat.metadata(of: headerFields) }
    if let body {
      if let length = body.length { metadata[LogMetadataKey.requestBodySize] = .stringConvertible(length) }
      if let contentType = body.contentType { metadata[LogMetadataKey.requestContentType] = .string(contentType) }
      if let preview = body.preview {
        metadata[LogMetadataKey.requestBodyPreview] = .string(LogFormat.singleLine(preview))
      }
    }
    return metadata
  }

  /// The method, the URL and, once known, the resend count.
  var summaryMetadata: Logger.Metadata {
    var metadata: Logger.Metadata = [LogMetadataKey.method: .string(method.rawValue), LogMetadataKey.url: .string(url)]
    if let resendCount { metadata[LogMetadataKey.resendCount] = .stringConvertible(resendCount) }
    return metadata
  }

  /// A text with every secret value of this request replaced by `Redactor.placeholder`: an error's description
  /// can quote the URL or a header (a transport's message, a `URLError`'s failing URL). Values shorter than four
  /// characters are left alone.
  /// - Parameter text: The text to scrub.
  /// - Returns: The scrubbed text.
  public func redacting(_ text: String) -> String {
    var text = text
    for secret in secrets where text.contains(secret) {
      text = text.replacingOccurrences(of: secret, with: Redactor.placeholder)
    }
    return text
  }

  /// Detail lines for a text logger of your own, each indented by four spaces: one per header field, then the
  /// body summary and the body preview.
  public var detailLines: [String] {
    var lines = headerFields.map { "    \($0.name.rawName): \($0.value)" }
    if let body {
      lines.append("    body: \(body.summary)")
      if let preview = body.preview {
        lines += preview.split(separator: "\n", omittingEmptySubsequences: false).map { "    \($0)" }
      }
    }
    return lines
  }
}

/// What the loggers learn about a request body: its length, its type and, for small text bodies, a redacted
/// preview. Bodies are never read to log them: streamed bodies show only their announced length.
public struct LoggedBody: Sendable, Hashable {
  /// The length in bytes when known before sending.
  public var length: UInt64?
  /// The `Content-Type` of the request, if any.
  public var contentType: String?
  /// The body as text, with secret keys of JSON and form bodies redacted and truncated to
  /// `Redactor.bodyPreviewLimit` characters; `nil` for binary, streamed or unparseable bodies.
  public var preview: String?

  /// Creates a body summary.
  /// - Parameters:
  ///   - length: The length in bytes, if known.
  ///   - contentType: The content type, if any.
  ///   - preview: The redacted text preview, if any.
  public init(length: UInt64?, contentType: String?, preview: String? = nil) {
    self.length = length
    self.contentType = contentType
    self.preview = preview
  }

  /// `27 bytes, application/json` or `unknown length`.
  public var summary: String {
    var text = length.map { LogFormat.bytes($0) } ?? "unknown length"
    if let contentType { text += ", \(contentType)" }
    return text
  }
}
