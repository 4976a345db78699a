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
  /// Puts every socket of this hop through the connection policy (`CURLOPT_OPENSOCKETFUNCTION`), and asks for a fresh
  /// connection when the policy checks this hop: a pooled connection is not opened again, so its address would go
  /// unchecked. Under a policy that checks first requests, every hop is fresh (the pool may hold connections opened
  /// under another policy); under one that checks only redirects, a redirect within the origin keeps the connection
  /// the hop before used (its address is the origin's), and one that leaves it is fresh. Set on every hop, so that a
  /// pooled handle never calls back into a transfer that has ended.
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
    let policy = job.options.connectionPolicy
    let checked = policy.checks(redirectsFollowed: machine.redirectsFollowed)
    let fresh = checked && (policy.checksFirstRequests || hopLeftOrigin)
    CCurl_easy_setopt_long(easy, CURLOPT_FRESH_CONNECT, fresh ? 1 : 0)
    if checked, job.options.proxy != .direct, let literal = AddressResolver.literal(Self.host(of: url)) {
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
    }
    #if os(Linux)
    return socket(family, type | Int32(SOCK_CLOEXEC.rawValue), proto)
    #else
    return socket(family, type, proto)
    #endif
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
