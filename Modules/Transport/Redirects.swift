package import Foundation
package import HTTPTypes

/// The redirect rules every transport applies, so that they all follow the same way (see ``RedirectPolicy``).
package enum Redirects {
  /// Whether a response with this status is a redirect that is followed: 301, 302, 303, 307 and 308. (A `switch`
  /// rather than a `Set`: every response of every transfer asks, and hashing the status cost more than the rest of
  /// the check.)
  @inlinable
  package static func isFollowed(_ status: Int) -> Bool {
    switch status {
    case 301, 302, 303, 307, 308: true
    default: false
    }
  }

  /// The request to send after a redirect response, or `nil` when the response is to be returned as it is.
  /// - Parameters:
  ///   - response: The response just received.
  ///   - request: The request that produced it.
  ///   - body: That request's body.
  ///   - policy: The redirect policy.
  ///   - followedSoFar: How many redirects were already followed in this transfer.
  /// - Throws: ``TransportError`` with ``TransportError/Code/tooManyRedirects`` past the policy's maximum, or
  ///   ``TransportError/Code/invalidRequest`` for a redirect to a scheme other than HTTP(S) or one that must
  ///   repeat a body that can be read only once.
  package static func next(
    after response: HTTPResponse,
    to request: HTTPRequest,
    body: RequestBody?,
    policy: RedirectPolicy,
    followedSoFar: Int
  ) throws(TransportError) -> (HTTPRequest, RequestBody?)? {
    guard policy.maxRedirects > 0, isFollowed(response.status.code),
      let location = response.headerFields[.location], !location.isEmpty,
      let current = request.url
    else { return nil }
    guard followedSoFar < policy.maxRedirects else {
      throw TransportError(
        code: .tooManyRedirects,
        message: "more than \(policy.maxRedirects) redirects (the last one to '\(location)')"
      )
    }
    guard let target = URL(string: location, relativeTo: current)?.absoluteURL,
      let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https", target.host != nil
    else {
      throw TransportError(code: .invalidRequest, message: "cannot follow a redirect to '\(location)'")
    }

    var next = request
    next.url = target
    var nextBody = body
    let status = response.status.code
    if (status == 303 && request.method != .head) || ((status == 301 || status == 302) && request.method == .post) {
      next.method = .get
      nextBody = nil
      for name in [HTTPField.Name.contentType, .contentLength, .contentEncoding, .transferEncoding] {
        next.headerFields[name] = nil
      }
    } else if let body, !body.isRepeatable {
      throw TransportError(
        code: .invalidRequest,
        message: "a \(status) redirect must send the body again, and a streamed body can be sent only once"
      )
    }
    if !isSameOrigin(current, target) {
      for name in credentialFields { next.headerFields[name] = nil }
      for name in policy.sensitiveFields { next.headerFields[name] = nil }
    }
    return (next, nextBody)
  }

  /// The fields that never follow a redirect to another origin.
  package static let credentialFields: [HTTPField.Name] = [.authorization, .cookie, .proxyAuthorization]

  /// Whether two URLs share scheme, host and port (default ports made explicit).
  package static func isSameOrigin(_ lhs: URL, _ rhs: URL) -> Bool {
    func origin(_ url: URL) -> (String, String, Int) {
      let scheme = url.scheme?.lowercased() ?? ""
      let port = url.port ?? (scheme == "https" ? 443 : 80)
      return (scheme, url.host?.lowercased() ?? "", port)
    }
    return origin(lhs) == origin(rhs)
  }
}
