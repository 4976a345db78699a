public import Foundation
public import HTTPTypes

/// A complete HTTP response: status, headers and the whole body, with the request that produced it.
public struct Response: Sendable {
  /// The body, after content decoding (a gzip body arrives here inflated).
  public var data: Data
  /// The status, from swift-http-types.
  public var status: HTTPResponse.Status
  /// The response header fields.
  public var headers: HTTPFields
  /// The request as it was sent (after every hook and middleware).
  public var request: HTTPRequest
  /// The URL the response came from, after redirects; `nil` when unknown (a mock, say).
  public var url: URL?

  /// Creates a response.
  /// - Parameters:
  ///   - data: The body.
  ///   - status: The status.
  ///   - headers: The header fields.
  ///   - request: The request that produced it.
  ///   - url: The final URL, after redirects.
  public init(data: Data, status: HTTPResponse.Status, headers: HTTPFields, request: HTTPRequest, url: URL? = nil) {
    self.data = data
    self.status = status
    self.headers = headers
    self.request = request
    self.url = url
  }

  /// The numeric status code, such as `200`.
  public var statusCode: Int { status.code }

  /// The response head (status and header fields) as a swift-http-types value.
  public var httpResponse: HTTPResponse {
    HTTPResponse(status: status, headerFields: headers)
  }
}
