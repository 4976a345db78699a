import CCurl
import Foundation
import MalibuTransport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Transfer {
  /// Puts every socket of this hop through the connection policy (`CURLOPT_OPENSOCKETFUNCTION`): a new connection is
  /// checked before it connects. A pooled connection is not opened again: its address is checked in the pre-request
  /// callback instead (``refusalOfConnection(to:)``), before the request is sent on it, so pooled connections stay
  /// in use under every policy. Set on every hop, so that a pooled handle never calls back into a transfer that has
  /// ended.
  ///
  /// Through a proxy, the sockets go to the proxy, which resolves the target's name: a target given as an address
  /// literal (in any spelling) is checked here, before the hop starts.
  /// - Throws: ``TransportError`` with ``TransportError/Code/addressNotAllowed`` for a literal the policy refuses.
  func configureConnectionPolicy(_ easy: UnsafeMutableRawPointer) throws(TransportError) {
    CCurl_easy_setopt_opensocket_function(easy, CURLOPT_OPENSOCKETFUNCTION) { context, purpose, address in
      let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
      return transfer.openSocket(purpose: purpose, address: address!)
    }
    CCurl_easy_setopt_pointer(easy, CURLOPT_OPENSOCKETDATA, context)
    addressAllowedAtOpen = nil
    let policy = job.options.connectionPolicy
    if policy.checks(redirectsFollowed: machine.redirectsFollowed), job.options.proxy != .direct,
      let literal = AddressResolver.literal(Self.host(of: url))
    {
      let attempt = self.attempt(to: literal)
      if !policy.allows(attempt) { throw policy.refusal(of: attempt) }
    }
  }

  /// The attempt to connect to `address` for the running hop.
  private func attempt(to address: IPAddress) -> ConnectionAttempt {
    let hop = machine.redirectsFollowed
    return ConnectionAttempt(
      scheme: request.scheme ?? "",
      host: Self.host(of: url),
      address: address,
      redirectsFollowed: hop,
      origin: hop > 0 ? origin : nil
    )
  }

  /// libcurl is about to open a socket to `address`: refused (`CURL_SOCKET_BAD`, and the refusal recorded for the
  /// hop) when the policy says no; otherwise opened here, as libcurl would (close-on-exec besides). libcurl then
  /// calls the socket-option callback, which notes the socket, as for any other.
  func openSocket(purpose: curlsocktype, address: UnsafeMutablePointer<curl_sockaddr>) -> curl_socket_t {
    let family = address.pointee.family
    let type = address.pointee.socktype
    let proto = address.pointee.protocol
    let policy = job.options.connectionPolicy
    if purpose == CURLSOCKTYPE_IPCXN, policy.checks(redirectsFollowed: machine.redirectsFollowed),
      let offset = MemoryLayout<curl_sockaddr>.offset(of: \.addr),
      let ip = IPAddress(
        socketAddress: UnsafeRawPointer(address) + offset,
        length: Int(address.pointee.addrlen)
      )
    {
      let attempt = self.attempt(to: ip)
      if !policy.allows(attempt) {
        machine.addressRefused(policy.refusal(of: attempt))
        return CURL_SOCKET_BAD
      }
      addressAllowedAtOpen = ip
    }
    #if os(Linux)
    return socket(family, type | Int32(SOCK_CLOEXEC.rawValue), proto)
    #else
    return socket(family, type, proto)
    #endif
  }

  /// The policy's refusal of the connection libcurl is about to send the hop's request on (its pre-request callback
  /// gives the connection's address, `primaryIP`), or `nil` when the policy allows it or does not check this hop. A
  /// connection this hop opened was checked when its socket was (the policy is not asked twice); a pooled one is
  /// checked here. An address that cannot be read is refused.
  func refusalOfConnection(to primaryIP: UnsafePointer<CChar>?) -> TransportError? {
    let policy = job.options.connectionPolicy
    guard policy.checks(redirectsFollowed: machine.redirectsFollowed) else { return nil }
    // A scoped IPv6 address (`fe80::1%eth0`) is judged by its address.
    let text = primaryIP.map { String(cString: $0).prefix { $0 != "%" } } ?? ""
    guard let ip = IPAddress(String(text)) else {
      return TransportError(
        code: .addressNotAllowed,
        message: "the connection policy '\(policy.name)' cannot check the connection to \(Self.host(of: url)): "
          + "its address is unknown, so nothing was sent"
      )
    }
    if ip == addressAllowedAtOpen { return nil }
    let attempt = self.attempt(to: ip)
    return policy.allows(attempt) ? nil : policy.refusal(of: attempt)
  }

  /// Notes where the transfer started, for the policy's look at the redirects that follow: the first request's host
  /// and the address libcurl sent it to (`CURLINFO_PRIMARY_IP`, a pooled connection's too). Called when the first
  /// hop's response is a redirect that is followed.
  func recordOrigin() {
    guard machine.redirectsFollowed == 0, let easy else { return }
    var primary: UnsafeMutablePointer<CChar>?
    var address: IPAddress?
    if CCurl_easy_getinfo_string(easy, CURLINFO_PRIMARY_IP, &primary) == CURLE_OK, let primary {
      address = IPAddress(String(cString: primary))
    }
    origin = ConnectionAttempt.Origin(host: Self.host(of: url), address: address)
  }

  /// The host of a URL, without brackets.
  private static func host(of url: String) -> String {
    var host = URL(string: url)?.host ?? ""
    if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    return host
  }
}
