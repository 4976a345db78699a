import Malibu

/// `insecureHTTP = .refuse` in the transfer options: nothing is sent to an `http://` URL. The local httpbin is plain
/// HTTP, so the request fails before it leaves; the same request without the option goes through.
enum InsecureHTTPStep {
  static func run(_ options: DemoOptions) async throws {
    let networking = Networking<HttpbinEndpoint>()

    let rejection = await failure(of: networking.request(.uuid) { options in options.insecureHTTP = .refuse })
    let cause = (rejection as? NetworkError)?.underlyingError as? TransportError
    guard let error = rejection as? NetworkError, cause?.code == .insecureScheme else {
      throw TourFailure("GET http://…/uuid under .refuse ended with \(String(describing: rejection))")
    }
    report(
      "GET /uuid over http:// with insecureHTTP = .refuse → NetworkError \(error.code) "
        + "(\(cause?.code.description ?? ""))"
    )
    let allowed = try await networking.request(.uuid).validate().value
    report("the same request with the default (.allow): \(allowed.statusCode)")
  }
}
