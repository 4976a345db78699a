public import Foundation
public import HTTPTypes

extension Request {
  /// A GET request; its parameters always go into the URL query.
  ///
  /// ```swift
  /// Request.get("boards", parameters: ["type": 1])   // GET <base>/boards?type=1
  /// ```
  /// - Parameters:
  ///   - resource: A path joined to the base URL, or an absolute URL.
  ///   - parameters: Query parameters.
  ///   - headers: Header fields of this request.
  ///   - storePolicy: Offline storage.
  ///   - cachePolicy: HTTP cache use.
  /// - Returns: The request.
  public static func get(
    _ resource: any URLStringConvertible,
    parameters: Parameters = [:],
    headers: [String: String] = [:],
    storePolicy: StorePolicy = .unspecified,
    cachePolicy: CachePolicy = .useProtocolCachePolicy
  ) -> Request {
    Request(
      method: .get,
      resource: resource,
      contentType: .query,
      parameters: parameters,
      headers: headers,
      storePolicy: storePolicy,
      cachePolicy: cachePolicy
    )
  }

  /// A POST request; parameters are a JSON body unless another content type is given.
  /// - Parameters:
  ///   - resource: A path joined to the base URL, or an absolute URL.
  ///   - contentType: Where the parameters go; ``ContentType/json`` by default.
  ///   - parameters: The parameters.
  ///   - headers: Header fields of this request.
  ///   - storePolicy: Offline storage.
  ///   - cachePolicy: HTTP cache use.
  /// - Returns: The request.
  public static func post(
    _ resource: any URLStringConvertible,
    contentType: ContentType = .json,
    parameters: Parameters = [:],
    headers: [String: String] = [:],
    storePolicy: StorePolicy = .unspecified,
    cachePolicy: CachePolicy = .useProtocolCachePolicy
  ) -> Request {
    Request(
      method: .post,
      resource: resource,
      contentType: contentType,
      parameters: parameters,
      headers: headers,
      storePolicy: storePolicy,
      cachePolicy: cachePolicy
    )
  }

  /// A PUT request; parameters are a JSON body unless another content type is given.
  /// - Parameters:
  ///   - resource: A path joined to the base URL, or an absolute URL.
  ///   - contentType: Where the parameters go; ``ContentType/json`` by default.
  ///   - parameters: The parameters.
  ///   - headers: Header fields of this request.
  ///   - storePolicy: Offline storage.
  ///   - cachePolicy: HTTP cache use.
  /// - Returns: The request.
  public static func put(
    _ resource: any URLStringConvertible,
    contentType: ContentType = .json,
    parameters: Parameters = [:],
    headers: [String: String] = [:],
    storePolicy: StorePolicy = .unspecified,
    cachePolicy: CachePolicy = .useProtocolCachePolicy
  ) -> Request {
    Request(
      method: .put,
      resource: resource,
      contentType: contentType,
      parameters: parameters,
      headers: headers,
      storePolicy: storePolicy,
      cachePolicy: cachePolicy
    )
  }

  /// A PATCH request; parameters are a JSON body unless another content type is given.
  /// - Parameters:
  ///   - resource: A path joined to the base URL, or an absolute URL.
  ///   - contentType: Where the parameters go; ``ContentType/json`` by default.
  ///   - parameters: The parameters.
  ///   - headers: Header fields of this request.
  ///   - storePolicy: Offline storage.
  ///   - cachePolicy: HTTP cache use.
  /// - Returns: The request.
  public static func patch(
    _ resource: any URLStringConvertible,
    contentType: ContentType = .json,
    parameters: Parameters = [:],
    headers: [String: String] = [:],
    storePolicy: StorePolicy = .unspecified,
    cachePolicy: CachePolicy = .useProtocolCachePolicy
  ) -> Request {
    Request(
      method: .patch,
      resource: resource,
      contentType: contentType,
      parameters: parameters,
      headers: headers,
      storePolicy: storePolicy,
      cachePolicy: cachePolicy
    )
  }

  /// A DELETE request; parameters go into the URL query unless another content type is given.
  /// - Parameters:
  ///   - resource: A path joined to the base URL, or an absolute URL.
  ///   - contentType: Where the parameters go; ``ContentType/query`` by default.
  ///   - parameters: The parameters.
  ///   - headers: Header fields of this request.
  ///   - storePolicy: Offline storage.
  ///   - cachePolicy: HTTP cache use.
  /// - Returns: The request.
  public static func delete(
    _ resource: any URLStringConvertible,
    contentType: ContentType = .query,
    parameters: Parameters = [:],
    headers: [String: String] = [:],
    storePolicy: StorePolicy = .unspecified,
    cachePolicy: CachePolicy = .useProtocolCachePolicy
  ) -> Request {
    Request(
      method: .delete,
      resource: resource,
      contentType: contentType,
      parameters: parameters,
      headers: headers,
      storePolicy: storePolicy,
      cachePolicy: cachePolicy
    )
  }

  /// A HEAD request; parameters go into the URL query unless another content type is given.
  /// - Parameters:
  ///   - resource: A path joined to the base URL, or an absolute URL.
  ///   - contentType: Where the parameters go; ``ContentType/query`` by default.
  ///   - parameters: The parameters.
  ///   - headers: Header fields of this request.
  ///   - storePolicy: Offline storage.
  ///   - cachePolicy: HTTP cache use.
  /// - Returns: The request.
  public static func head(
    _ resource: any URLStringConvertible,
    contentType: ContentType = .query,
    parameters: Parameters = [:],
    headers: [String: String] = [:],
    storePolicy: StorePolicy = .unspecified,
    cachePolicy: CachePolicy = .useProtocolCachePolicy
  ) -> Request {
    Request(
      method: .head,
      resource: resource,
      contentType: contentType,
      parameters: parameters,
      headers: headers,
      storePolicy: storePolicy,
      cachePolicy: cachePolicy
    )
  }

  /// An upload of raw bytes, sent as the body as they are.
  ///
  /// ```swift
  /// Request.upload(data: Data("raw".utf8), to: "boards")
  /// ```
  /// - Parameters:
  ///   - data: The body.
  ///   - resource: A path joined to the base URL, or an absolute URL.
  ///   - method: The method; POST by default.
  ///   - contentType: The body's media type; `application/octet-stream` by default.
  ///   - headers: Header fields of this request.
  ///   - storePolicy: Offline storage.
  /// - Returns: The request.
  public static func upload(
    data: Data,
    to resource: any URLStringConvertible,
    method: HTTPRequest.Method = .post,
    contentType: ContentType = .custom("application/octet-stream"),
    headers: [String: String] = [:],
    storePolicy: StorePolicy = .unspecified
  ) -> Request {
    Request(
      method: method,
      resource: resource,
      contentType: contentType,
      task: .uploadData(data),
      headers: headers,
      storePolicy: storePolicy,
      cachePolicy: .reloadIgnoringLocalCacheData
    )
  }

  /// An upload of a file, streamed from disk by the transport.
  /// - Parameters:
  ///   - file: The file to send.
  ///   - resource: A path joined to the base URL, or an absolute URL.
  ///   - method: The method; POST by default.
  ///   - contentType: The body's media type; `application/octet-stream` by default.
  ///   - headers: Header fields of this request.
  ///   - storePolicy: Offline storage.
  /// - Returns: The request.
  public static func upload(
    fileAt file: URL,
    to resource: any URLStringConvertible,
    method: HTTPRequest.Method = .post,
    contentType: ContentType = .custom("application/octet-stream"),
    headers: [String: String] = [:],
    storePolicy: StorePolicy = .unspecified
  ) -> Request {
    Request(
      method: method,
      resource: resource,
      contentType: contentType,
      task: .uploadFile(file),
      headers: headers,
      storePolicy: storePolicy,
      cachePolicy: .reloadIgnoringLocalCacheData
    )
  }

  /// An upload of parameters as a `multipart/form-data` body.
  ///
  /// ```swift
  /// Request.upload(multipartParameters: ["key": "value"], to: "posts")
  /// ```
  /// - Parameters:
  ///   - multipartParameters: The form fields.
  ///   - resource: A path joined to the base URL, or an absolute URL.
  ///   - method: The method; POST by default.
  ///   - headers: Header fields of this request.
  ///   - storePolicy: Offline storage.
  /// - Returns: The request.
  public static func upload(
    multipartParameters: Parameters,
    to resource: any URLStringConvertible,
    method: HTTPRequest.Method = .post,
    headers: [String: String] = [:],
    storePolicy: StorePolicy = .unspecified
  ) -> Request {
    Request(
      method: method,
      resource: resource,
      contentType: .multipartFormData,
      task: .uploadMultipart,
      parameters: multipartParameters,
      headers: headers,
      storePolicy: storePolicy,
      cachePolicy: .reloadIgnoringLocalCacheData
    )
  }
}
