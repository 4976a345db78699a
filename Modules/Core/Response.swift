public import Foundation
public import HTTPTypes

/// A complete HTTP response: status, headers and the whole body, with the request that produced it.
public struct Response: Sendable {
  /// The fields, kept behind one reference: a response is handed along promise chains and copied at every step,
  /// and one retain is cheaper than copying five fields. Setting a property replaces the storage (copy on write).
  private final class Storage: Sendable {
    let data: Data
    let status: HTTPResponse.Status
    let headers: HTTPFields
    let request: HTTPRequest
    let url: URL?

    init(data: Data, status: HTTPResponse.Status, headers: HTTPFields, request: HTTPRequest, url: URL?) {
      self.data = data
      self.status = status
      self.headers = headers
      self.request = request
      self.url = url
    }
  }

  private var storage: Storage

  /// The body, after content decoding (a gzip body arrives here inflated).
  public var data: Data {
    get { storage.data }
    set { storage = Storage(data: newValue, status: status, headers: headers, request: request, url: url) }
  }
  /// The status, from swift-http-types.
  public var status: HTTPResponse.Status {
    get { storage.status }
    set { storage = Storage(data: data, status: newValue, headers: headers, request: request, url: url) }
  }
  /// The response header fields.
  public var headers: HTTPFields {
    get { storage.headers }
    set { storage = Storage(data: data, status: status, headers: newValue, request: request, url: url) }
  }
  /// The request as it was sent (after every hook and middleware).
  public var request: HTTPRequest {
    get { storage.request }
    set { storage = Storage(data: data, status: status, headers: headers, request: newValue, url: url) }
  }
  /// The URL the response came from, after redirects; `nil` when unknown (a mock, say).
  public var url: URL? {
    get { storage.url }
    set { storage = Storage(data: data, status: status, headers: headers, request: request, url: newValue) }
  }

  /// Creates a response.
  /// - Parameters:
  ///   - data: The body.
  ///   - status: The status.
  ///   - headers: The header fields.
  ///   - request: The request that produced it.
  ///   - url: The final URL, after redirects.
  public init(data: Data, status: HTTPResponse.Status, headers: HTTPFields, request: HTTPRequest, url: URL? = nil) {
    storage = Storage(data: data, status: status, headers: headers, request: request, url: url)
  }

  /// The numeric status code, such as `200`.
  public var statusCode: Int { status.code }

  /// The response head (status and header fields) as a swift-http-types value.
  public var httpResponse: HTTPResponse {
    HTTPResponse(status: status, headerFields: headers)
  }
}
