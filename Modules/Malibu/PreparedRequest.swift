import MalibuCore
import MalibuTransport

extension PreparedRequest {
  /// Prepares a request of an endpoint type: ``init(_:baseUrl:headerLayers:encoders:)`` with `R.baseUrl`, after
  /// checking that a relative resource has a base URL to join, so that the error names the declaration to write.
  /// - Parameters:
  ///   - request: The request, after `beforeEach`.
  ///   - endpoint: The endpoint type, whose `baseUrl` the resource is joined to.
  ///   - headerLayers: The networking's, then the endpoint type's header fields.
  /// - Throws: `NetworkError`, as ``init(_:baseUrl:headerLayers:encoders:)``.
  init<R: RequestConvertible>(
    _ request: borrowing Request,
    for endpoint: R.Type,
    headerLayers: [[String: String]]
  ) throws(NetworkError) {
    let baseUrl = R.baseUrl
    if (baseUrl?.urlString ?? "").isEmpty, request.hasRelativeResource {
      throw Self.missingBaseUrl(copy request, endpoint)
    }
    try self.init(request, checkedBaseUrl: baseUrl, headerLayers: headerLayers)
  }

  /// The error for a relative resource on an endpoint type whose `baseUrl` is `nil` or empty: it names the
  /// declaration to write, in that type.
  static func missingBaseUrl<R: RequestConvertible>(_ request: Request, _ endpoint: R.Type) -> NetworkError {
    let state = R.baseUrl == nil ? "nil" : "empty"
    return NetworkError(
      code: .invalidURL,
      message: "the resource '\(request.resource.urlString)' is relative, and \(R.self).baseUrl is \(state): "
        + "declare `static let baseUrl: (any URLStringConvertible)? = \"https://…\"` in \(R.self) (exactly this "
        + "type), or make the resource an absolute URL"
    )
  }
}
