import MalibuCore
import MalibuTransport

extension PreparedRequest {
  /// Prepares a request of an endpoint type: ``init(_:baseUrl:headerLayers:encoders:)`` with `R.baseUrl`, after
  /// checking that a relative resource has a base URL to join, so that the error names the declaration to write.
  /// - Parameters:
  ///   - request: The request, after `beforeEach`.
  ///   - endpoint: The endpoint type, whose `baseUrl` the resource is joined to.
  ///   - networkingHeaders: The networking's header fields (the session configuration's, then its own), checked
  ///     when they were set.
  /// - Throws: `NetworkError`, as ``init(_:baseUrl:headerLayers:encoders:)``.
  init<R: RequestConvertible>(
    _ request: borrowing Request,
    for endpoint: R.Type,
    networkingHeaders: CheckedHeaderLayers
  ) throws(NetworkError) {
    let baseUrl = R.baseUrl
    if (baseUrl?.urlString ?? "").isEmpty, request.hasRelativeResource {
      throw Self.missingBaseUrl(copy request, endpoint)
    }
    // The endpoint type's fields are read for each request: `R.headers` may be computed.
    let endpointHeaders = R.headers
    try self.init(
      request,
      checkedBaseUrl: baseUrl,
      checked: networkingHeaders,
      headerLayers: endpointHeaders.isEmpty ? [] : [endpointHeaders]
    )
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
