#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Which connections a transfer may open, judged by the *address* connected to: a guard for servers that fetch URLs
/// their users supply (webhooks, link previews) against server-side request forgery, a redirect into the machine's
/// own network above all.
///
/// ```swift
/// var options = TransferOptions()
/// options.connectionPolicy = .publicInternetOnly   // no loopback, private, link-local, ... address, ever
/// options.connectionPolicy = ConnectionPolicy(name: "no-intranet") { attempt in
///   attempt.addressClass != .private
/// }
/// ```
///
/// - ``default``: a redirect into a link-local address (`169.254.0.0/16`, where cloud metadata services answer, and
///   `fe80::/10`) is refused unless the request it came from went to a link-local address itself. Direct requests
///   go anywhere: applications call `localhost` and their private services on purpose. The rule does not ask whether
///   the origin was public, only whether it was link-local: a redirect from a server on a private network into
///   `169.254.169.254` is refused too.
/// - ``publicInternetOnly``: every connection, the first request's and every redirect's, must go to a
///   ``AddressClass/public`` address: loopback, private, link-local, unique-local, carrier-grade NAT, unspecified,
///   multicast, broadcast and reserved addresses are refused, in IPv4 and in every IPv6 form that carries IPv4.
/// - ``unrestricted``: nothing is checked.
/// - ``init(name:checksFirstRequests:allows:)``: your own rule, which sees a ``ConnectionAttempt``.
///
/// A refused connection ends the transfer with ``TransportError/Code/addressNotAllowed`` before a byte is sent
/// there; the message names the host, the address and its class. A host with several addresses may still be reached
/// at one the policy allows.
///
/// Where the check happens depends on the transport:
/// - `CurlTransport` checks the address of every socket it opens, in libcurl's open-socket callback: the address
///   actually connected to, so neither DNS rebinding nor a decimal, octal or hexadecimal spelling of an IPv4 address
///   slips past. A pooled connection, which is not opened again, is checked by its address in libcurl's pre-request
///   callback, before the request is sent on it.
/// - `URLSessionTransport` opens its sockets itself: it resolves the host (`getaddrinfo`) and checks every address
///   before each redirect hop, and before the first request when the policy checks first requests. URLSession then
///   resolves the name again on its own: DNS rebinding between the two lookups cannot be excluded on this transport.
///
/// With a proxy, the socket goes to the proxy: the address checked is the proxy's, and the proxy resolves the target's
/// name, so a policy cannot see where the proxy connects. `CurlTransport` checks a target given as an address literal
/// (in any spelling) before the hop starts, so a redirect to `http://169.254.169.254/` is refused through a proxy too.
public struct ConnectionPolicy: Sendable, CustomStringConvertible {
  /// The policy's name, quoted in the error when it refuses a connection.
  public let name: String
  /// Whether the first request of a transfer is checked; a policy always checks redirects (unless it is
  /// ``unrestricted``). The ``default`` does not, which spares the URLSession transport a name lookup per request
  /// and the curl transport a check per request.
  public let checksFirstRequests: Bool
  private let checksRedirects: Bool
  private let rule: @Sendable (ConnectionAttempt) -> Bool

  /// A policy of your own.
  ///
  /// ```swift
  /// let policy = ConnectionPolicy(name: "no-metadata") { attempt in
  ///   attempt.address != IPAddress("169.254.169.254")
  /// }
  /// ```
  /// - Parameters:
  ///   - name: The name quoted in the error when `allows` refuses.
  ///   - checksFirstRequests: Whether `allows` is asked for the first request of a transfer too, or only for
  ///     redirects; `true` by default.
  ///   - allows: Whether a connection may be opened; called on a transport's own thread, so it must be fast and must
  ///     not block.
  public init(
    name: String,
    checksFirstRequests: Bool = true,
    allows: @escaping @Sendable (ConnectionAttempt) -> Bool
  ) {
    self.init(name: name, checksFirstRequests: checksFirstRequests, checksRedirects: true, rule: allows)
  }

  private init(
    name: String,
    checksFirstRequests: Bool,
    checksRedirects: Bool,
    rule: @escaping @Sendable (ConnectionAttempt) -> Bool
  ) {
    self.name = name
    self.checksFirstRequests = checksFirstRequests
    self.checksRedirects = checksRedirects
    self.rule = rule
  }

  /// Refuses a redirect into a link-local address unless the request it came from went to a link-local address
  /// too; everything else is allowed.
  public static let `default` = ConnectionPolicy(
    name: "default",
    checksFirstRequests: false,
    checksRedirects: true
  ) { attempt in
    !(attempt.isRedirect && attempt.addressClass == .linkLocal
      && attempt.origin?.address?.classification != .linkLocal)
  }

  /// Every connection must go to a public address (``AddressClass/public``).
  public static let publicInternetOnly = ConnectionPolicy(
    name: "publicInternetOnly",
    checksFirstRequests: true,
    checksRedirects: true
  ) { attempt in
    attempt.addressClass == .public
  }

  /// Nothing is checked.
  public static let unrestricted = ConnectionPolicy(
    name: "unrestricted",
    checksFirstRequests: false,
    checksRedirects: false
  ) { _ in true }

  /// The policy's name.
  public var description: String { name }

  /// Whether the policy is asked about connections of this hop at all: `redirectsFollowed` is `0` for the first
  /// request.
  package func checks(redirectsFollowed: Int) -> Bool {
    redirectsFollowed == 0 ? checksFirstRequests : checksRedirects
  }

  /// Whether the connection may be opened. A hop the policy does not check (``checksFirstRequests``) is allowed.
  /// - Parameter attempt: The connection about to be opened.
  /// - Returns: Whether it is allowed.
  public func allows(_ attempt: ConnectionAttempt) -> Bool {
    guard checks(redirectsFollowed: attempt.redirectsFollowed) else { return true }
    return rule(attempt)
  }

  /// The error for a refused attempt: names the host, the address and its class, never the path or the query.
  /// - Parameter attempt: The refused attempt.
  /// - Returns: A ``TransportError/Code/addressNotAllowed`` error.
  package func refusal(of attempt: ConnectionAttempt) -> TransportError {
    let address = "\(attempt.address) (\(attempt.addressClass.phrase))"
    let host = attempt.host == attempt.address.description ? "" : "\(attempt.host) at "
    var message = "the connection policy '\(name)' refused to connect to \(host)\(address)"
    if let origin = attempt.origin, attempt.isRedirect {
      message += " on a redirect from \(origin.host)"
    }
    message += ": nothing was sent there (`TransferOptions.connectionPolicy`)"
    return TransportError(code: .addressNotAllowed, message: message)
  }
}

/// A connection a transport is about to open, for ``ConnectionPolicy`` to allow or refuse.
public struct ConnectionAttempt: Hashable, Sendable {
  /// Where the transfer started: the first request's host and, when known, the address it was sent to.
  public struct Origin: Hashable, Sendable {
    /// The first request's host, as in its URL.
    public var host: String
    /// The address the first request was sent to, when the transport knows it (curl: the address of the connection
    /// it used; URLSession, which does not say: the first address the host name resolves to).
    public var address: IPAddress?

    /// Creates an origin.
    /// - Parameters:
    ///   - host: The first request's host.
    ///   - address: The address it was sent to, if known.
    public init(host: String, address: IPAddress?) {
      self.host = host
      self.address = address
    }
  }

  /// The URL's scheme, lowercased: `http` or `https`.
  public var scheme: String
  /// The URL's host, as spelled there (`2852039166` stays as it is; ``address`` is what it means).
  public var host: String
  /// The address about to be connected to: resolved, and in its canonical form.
  public var address: IPAddress
  /// How many redirects the transfer followed before this connection: `0` for the first request.
  public var redirectsFollowed: Int
  /// The first request's host and address; `nil` for the first request itself.
  public var origin: Origin?

  /// Creates an attempt.
  /// - Parameters:
  ///   - scheme: The URL's scheme.
  ///   - host: The URL's host.
  ///   - address: The address about to be connected to.
  ///   - redirectsFollowed: Redirects followed so far (`0` for the first request).
  ///   - origin: Where the transfer started; `nil` for the first request.
  public init(scheme: String, host: String, address: IPAddress, redirectsFollowed: Int, origin: Origin?) {
    self.scheme = scheme.lowercased()
    self.host = host
    self.address = address
    self.redirectsFollowed = redirectsFollowed
    self.origin = origin
  }

  /// The class of ``address``.
  public var addressClass: AddressClass { address.classification }

  /// Whether the connection is for a redirect hop rather than the first request.
  public var isRedirect: Bool { redirectsFollowed > 0 }
}

/// Name resolution for the transports that cannot check the address they connect to (URLSession).
package enum AddressResolver {
  /// The address `host` spells, when it is an address literal in any spelling `inet_aton` reads (`2852039166`,
  /// `0251.0376.0251.0376`, `0xA9FEA9FE`) or an IPv6 literal without brackets; `nil` for a name. Never asks DNS.
  /// - Parameter host: A host, without brackets.
  package static func literal(_ host: String) -> IPAddress? {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    hints.ai_flags = AI_NUMERICHOST
    var list: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return nil }
    defer { freeaddrinfo(first) }
    guard let socketAddress = first.pointee.ai_addr else { return nil }
    return IPAddress(socketAddress: socketAddress, length: Int(first.pointee.ai_addrlen))
  }

  /// Every address `host` resolves to (`getaddrinfo`, which reads the decimal, octal and hexadecimal IPv4 spellings
  /// as `inet_aton` does), or `nil` when it does not resolve. Blocks for the lookup.
  /// - Parameter host: A host name or address literal, without brackets.
  package static func addresses(of host: String) -> [IPAddress]? {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    #if os(Linux)
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    #else
    hints.ai_socktype = SOCK_STREAM
    #endif
    var list: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return nil }
    defer { freeaddrinfo(first) }
    var addresses: [IPAddress] = []
    var entry: UnsafeMutablePointer<addrinfo>? = first
    while let current = entry {
      if let socketAddress = current.pointee.ai_addr,
        let address = IPAddress(socketAddress: socketAddress, length: Int(current.pointee.ai_addrlen)),
        !addresses.contains(address)
      {
        addresses.append(address)
      }
      entry = current.pointee.ai_next
    }
    return addresses
  }
}
