public import HTTPTypes

/// Everything that describes one HTTP request, before it is encoded and sent.
///
/// ```swift
/// let request = Request(
///   method: .get,
///   resource: "boards",
///   contentType: .query,
///   parameters: ["type": 1, "text": "classic"],
///   headers: ["custom": "header"],
///   storePolicy: .unspecified,
///   cachePolicy: .useProtocolCachePolicy)
/// ```
///
/// Most requests are made with the factories: ``get(_:parameters:headers:storePolicy:cachePolicy:)``,
/// ``post(_:contentType:parameters:headers:storePolicy:cachePolicy:)`` and their siblings.
///
/// Two requests are equal when every field is: the resource compares by its URL string, the parameters by their
/// normalised ``ParameterValue`` trees (parameters that cannot be normalised compare by their description).
public struct Request: Sendable, Hashable {
  /// The HTTP method.
  public var method: HTTPRequest.Method
  /// The path, joined to the base URL, or an absolute URL used as is.
  public var resource: any URLStringConvertible
  /// Where the parameters go: the URL query or a body of some media type.
  public var contentType: ContentType
  /// The kind of transfer and the source of the body.
  public var task: RequestTask
  /// The parameters, encoded according to ``contentType``.
  public var parameters: Parameters
  /// Header fields of this request; they win over the service's and the networking's.
  public var headers: [String: String]
  /// Whether the request is stored for ``StorePolicy/offline`` replay.
  public var storePolicy: StorePolicy
  /// How the request uses the HTTP cache.
  public var cachePolicy: CachePolicy
  /// Automatic `If-None-Match` revalidation for this request; `nil`, the default, follows the networking's.
  public var etagPolicy: ETagPolicy? = nil

  /// Creates a request.
  /// - Parameters:
  ///   - method: The HTTP method.
  ///   - resource: A path joined to the base URL, or an absolute URL.
  ///   - contentType: Where the parameters go; ``ContentType/query`` by default.
  ///   - task: The kind of transfer; ``RequestTask/data`` by default.
  ///   - parameters: The parameters.
  ///   - headers: Header fields of this request.
  ///   - storePolicy: Offline storage; ``StorePolicy/unspecified`` by default.
  ///   - cachePolicy: HTTP cache use; ``CachePolicy/useProtocolCachePolicy`` by default.
  public init(
    method: HTTPRequest.Method,
    resource: any URLStringConvertible,
    contentType: ContentType = .query,
    task: RequestTask = .data,
    parameters: Parameters = [:],
    headers: [String: String] = [:],
    storePolicy: StorePolicy = .unspecified,
    cachePolicy: CachePolicy = .useProtocolCachePolicy
  ) {
    self.method = method
    self.resource = resource
    self.contentType = contentType
    self.task = task
    self.parameters = parameters
    self.headers = headers
    self.storePolicy = storePolicy
    self.cachePolicy = cachePolicy
  }

  /// A copy with more parameters and headers; on a clash of keys the added value wins.
  ///
  /// ```swift
  /// request.adding(parameters: ["userId": "12345"], headers: ["token": "abc"])
  /// ```
  /// - Parameters:
  ///   - parameters: Parameters to add.
  ///   - headers: Header fields to add.
  /// - Returns: The extended request.
  public func adding(parameters: Parameters = [:], headers: [String: String] = [:]) -> Request {
    var copy = self
    copy.parameters.merge(parameters) { _, added in added }
    copy.headers.merge(headers) { _, added in added }
    return copy
  }

  /// Whether two requests are equal in every field.
  /// - Parameters:
  ///   - lhs: A request.
  ///   - rhs: Another request.
  /// - Returns: `true` when method, resource, content type, task, parameters, headers and policies are equal.
  public static func == (lhs: Request, rhs: Request) -> Bool {
    lhs.method == rhs.method && lhs.resource.urlString == rhs.resource.urlString
      && lhs.contentType == rhs.contentType && lhs.task == rhs.task && lhs.headers == rhs.headers
      && lhs.storePolicy == rhs.storePolicy && lhs.cachePolicy == rhs.cachePolicy && lhs.etagPolicy == rhs.etagPolicy
      && lhs.comparableParameters == rhs.comparableParameters
  }

  /// Hashes the fields that decide equality (parameters excepted, which only refine it).
  /// - Parameter hasher: The hasher to feed.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(method)
    hasher.combine(resource.urlString)
    hasher.combine(contentType)
    hasher.combine(task)
    hasher.combine(headers)
    hasher.combine(storePolicy)
    hasher.combine(cachePolicy)
  }

  private enum ComparableParameters: Equatable {
    case normalized([String: ParameterValue])
    case described(String)
  }

  private var comparableParameters: ComparableParameters {
    if let normalized = try? ParameterValue.normalize(parameters) { return .normalized(normalized) }
    return .described(String(reflecting: parameters.sorted { $0.key < $1.key }))
  }
}
