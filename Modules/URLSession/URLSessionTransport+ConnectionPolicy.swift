import Foundation
import HTTPTypes
import MalibuTransport

extension URLSessionTransport {
  /// The connection policy's look at one hop, before URLSession is given it: URLSession opens its sockets itself,
  /// so the host is resolved here (`getaddrinfo`) and every address it resolves to must be allowed. URLSession
  /// resolves the name again on its own: DNS rebinding between the two lookups cannot be excluded on this transport.
  struct ConnectionCheck {
    let policy: ConnectionPolicy
    /// The first request's host and address, looked up at the first redirect the policy checks.
    private var origin: ConnectionAttempt.Origin?
    private let firstURL: URL

    init(policy: ConnectionPolicy, firstURL: URL) {
      self.policy = policy
      self.firstURL = firstURL
    }

    /// Refuses the hop to `url` when the policy refuses one of the host's addresses; allows it when the host does not
    /// resolve (URLSession then reports the DNS failure).
    /// - Throws: ``TransportError`` with ``TransportError/Code/addressNotAllowed``.
    mutating func check(_ url: URL, redirectsFollowed: Int) throws(TransportError) {
      guard policy.checks(redirectsFollowed: redirectsFollowed), let host = Self.host(of: url) else { return }
      if redirectsFollowed > 0, origin == nil, let first = Self.host(of: firstURL) {
        origin = ConnectionAttempt.Origin(host: first, address: AddressResolver.addresses(of: first)?.first)
      }
      for address in AddressResolver.addresses(of: host) ?? [] {
        let attempt = ConnectionAttempt(
          scheme: url.scheme ?? "",
          host: host,
          address: address,
          redirectsFollowed: redirectsFollowed,
          origin: redirectsFollowed > 0 ? origin : nil
        )
        if !policy.allows(attempt) { throw policy.refusal(of: attempt) }
      }
    }

    /// A URL's host without the brackets of an IPv6 literal.
    private static func host(of url: URL) -> String? {
      guard var host = url.host, !host.isEmpty else { return nil }
      if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
      return host
    }
  }
}
