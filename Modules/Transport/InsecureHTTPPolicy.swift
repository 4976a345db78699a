package import HTTPTypes

/// What a transport does with a plain `http://` request, and with a redirect to `http://`: send it
/// (``allow``, the default), refuse it (``refuse``) or send it over `https://` instead (``upgrade``).
///
/// ```swift
/// var options = TransferOptions()
/// options.insecureHTTP = .refuse   // HTTPS only: http:// requests and redirects fail before a byte is sent
/// ```
///
/// Every transport applies the policy alike, before anything is sent, to the request and to each redirect it would
/// follow: a refusal is a ``TransportError`` with code ``TransportError/Code/insecureScheme`` (the message names the
/// scheme and host, never the path or query). An upgrade keeps the host and path; an explicit port 80 becomes the
/// default HTTPS port, any other explicit port is kept (a server on a custom port must speak TLS there).
public struct InsecureHTTPPolicy: Hashable, Sendable, CustomStringConvertible {
  private enum Kind: Hashable, Sendable {
    case allow, refuse, upgrade
  }

  private let kind: Kind

  /// Send `http://` requests and follow redirects to `http://` (the default, as before the policy existed).
  public static let allow = InsecureHTTPPolicy(kind: .allow)
  /// HTTPS only: a plain `http://` request, or a redirect to one, fails with
  /// ``TransportError/Code/insecureScheme`` before anything is sent to that URL.
  public static let refuse = InsecureHTTPPolicy(kind: .refuse)
  /// HTTPS only, by rewriting: a plain `http://` request, or a redirect to one, is sent to the same host and path over
  /// `https://`.
  public static let upgrade = InsecureHTTPPolicy(kind: .upgrade)

  /// The policy's name, as spelled in Swift.
  public var description: String {
    switch kind {
    case .allow: "allow"
    case .refuse: "refuse"
    case .upgrade: "upgrade"
    }
  }

  /// The request as the policy lets it go: the same request, or the same over `https://`.
  /// - Parameters:
  ///   - request: The request about to be sent (the first, or a redirect's).
  ///   - origin: For a redirect, the request that was redirected; `nil` for the first request.
  /// - Throws: ``TransportError`` with ``TransportError/Code/insecureScheme`` when the policy refuses the request.
  package func apply(
    to request: HTTPRequest,
    redirectedFrom origin: HTTPRequest? = nil
  ) throws(TransportError)
    -> HTTPRequest
  {
    guard kind != .allow, let scheme = request.scheme, scheme.lowercased() == "http" else { return request }
    if kind == .refuse {
      let target = "http://\(Self.host(of: request))"
      let message: String
      if let origin {
        let source = "\(origin.scheme ?? "")://\(Self.host(of: origin))"
        message =
          "a redirect from \(source) to \(target) was refused: the transfer is HTTPS only "
          + "(`TransferOptions.insecureHTTP` is `.refuse`; `.upgrade` follows it over https://)"
      } else {
        message =
          "the request to \(target) was refused before sending: the transfer is HTTPS only "
          + "(`TransferOptions.insecureHTTP` is `.refuse`): use an https:// URL, or `.upgrade`"
      }
      throw TransportError(code: .insecureScheme, message: message)
    }
    var upgraded = request
    upgraded.scheme = "https"
    upgraded.authority = request.authority.map(Self.upgradedAuthority)
    return upgraded
  }

  /// The request's host and port for a message: user information, should the authority hold any, is left out.
  private static func host(of request: HTTPRequest) -> String {
    guard let authority = request.authority else { return "" }
    return authority.lastIndex(of: "@").map { String(authority[authority.index(after: $0)...]) } ?? authority
  }

  /// The authority for `https://`: an explicit port 80 (HTTP's default) is dropped, so that HTTPS's default applies.
  static func upgradedAuthority(_ authority: String) -> String {
    authority.hasSuffix(":80") ? String(authority.dropLast(3)) : authority
  }
}
