import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuCore
import MalibuTransport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The connection policy on both transports: a redirect into the metadata address refused by default, loopback
/// refused under "public internet only", a custom policy that sees each attempt, and the transport serving the next
/// request after every refusal.
@Suite("Connection policy", .serialized)
struct ConnectionPolicyScenarioTests {
  /// Options whose connect timeout is short: a check that failed to refuse would end as `connectTimeout` (nothing
  /// listens at 169.254.169.254 here), not as `addressNotAllowed`.
  static var options: TransferOptions {
    var options = TransferOptions()
    options.timeouts.connect = .seconds(2)
    options.proxy = .direct
    return options
  }

  static func redirect(to location: String) async throws -> URL {
    let query = location.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    return try await Servers.httpbin("/redirect-to?url=\(query)")
  }

  /// (a) The metadata address, in every spelling, refused by default after a redirect from the loopback origin.
  @Test(
    arguments: Backend.allCases,
    [
      "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
      "//169.254.169.254/latest/meta-data/",
      "http://2852039166/latest/meta-data/",
      "http://0251.0376.0251.0376/",
      "http://0xA9FEA9FE/",
      "http://[::ffff:169.254.169.254]/",
    ]
  )
  func aRedirectIntoTheMetadataAddressIsRefusedByDefault(_ backend: Backend, _ location: String) async throws {
    let url = try await Self.redirect(to: location)
    let clock = ContinuousClock()
    let start = clock.now
    do {
      let exchange = try await backend.exchange(url, options: Self.options)
      Issue.record("expected addressNotAllowed, got \(exchange.status) from \(exchange.url?.absoluteString ?? "?")")
    } catch let error as TransportError {
      #expect(error.code == .addressNotAllowed, "\(error)")
      #expect(error.message.contains("link-local"), "\(error)")
      #expect(!error.message.contains("meta-data"), "the path stays out of the message: \(error)")
    }
    // Refused before connecting: far below the connect timeout (a generous bound; this proves "no wait").
    #expect(clock.now - start < .seconds(2))
    #expect(try await backend.exchange(Servers.httpbin("/get"), options: Self.options).status == 200)
  }

  /// The same redirect with ``ConnectionPolicy/unrestricted`` is attempted: it ends as a connection failure of some
  /// kind (nothing answers at 169.254.169.254 here), not as the policy's error.
  @Test(arguments: Backend.allCases)
  func unrestrictedTriesTheMetadataAddress(_ backend: Backend) async throws {
    var options = Self.options
    options.timeouts.connect = .milliseconds(300)
    options.connectionPolicy = .unrestricted
    do {
      _ = try await backend.exchange(try await Self.redirect(to: "http://169.254.169.254/"), options: options)
    } catch let error as TransportError {
      #expect(error.code != .addressNotAllowed, "\(error)")
    }
  }

  /// (b) Under "public internet only", a request to a loopback server is refused before connecting: the listening
  /// socket sees no connection. Then the next normal request works.
  @Test(arguments: Backend.allCases)
  func publicInternetOnlyRefusesLoopbackBeforeConnecting(_ backend: Backend) async throws {
    let listener = try #require(Listener())
    defer { listener.close() }
    var options = Self.options
    options.connectionPolicy = .publicInternetOnly
    // `localhost`, a name: resolved, then refused by its address (where it also has ::1, each address is refused).
    for host in ["127.0.0.1", "2130706433", "[::ffff:127.0.0.1]", "localhost"] {
      await expectTransportError(.addressNotAllowed) {
        try await backend.exchange(URL(string: "http://\(host):\(listener.port)/private")!, options: options)
      }
    }
    #expect(!listener.hasPendingConnection(), "the server saw a connection")
    // A redirect from a public-only transfer is checked too: its first request is already refused here.
    await expectTransportError(.addressNotAllowed) {
      try await backend.exchange(try await Self.redirect(to: "http://10.0.0.1/"), options: options)
    }
    #expect(try await backend.exchange(Servers.httpbin("/get"), options: Self.options).status == 200)
  }

  /// (c) A custom policy sees scheme, host, resolved address, hop and origin, and can veto a hop.
  @Test(arguments: Backend.allCases)
  func aCustomPolicySeesEachAttemptAndCanVeto(_ backend: Backend) async throws {
    let seen = Locked<[ConnectionAttempt]>([])
    var options = Self.options
    options.connectionPolicy = ConnectionPolicy(name: "first-hop-only") { attempt in
      seen.withLock { $0.append(attempt) }
      return !attempt.isRedirect
    }
    let port = try #require(try await LocalServers.shared.httpbin().port)
    await expectTransportError(.addressNotAllowed) {
      try await backend.exchange(try await Self.redirect(to: "http://2130706433:\(port)/get"), options: options)
    }
    let attempts = seen.withLock { $0 }
    let loopback = IPAddress("127.0.0.1")!
    let first = try #require(attempts.first)
    #expect(first.scheme == "http")
    #expect(first.host == "127.0.0.1")
    #expect(first.address == loopback)
    #expect(first.addressClass == .loopback)
    #expect(first.redirectsFollowed == 0)
    #expect(first.origin == nil)
    let hop = try #require(attempts.last)
    #expect(hop.host == "2130706433")
    #expect(hop.address == loopback)
    #expect(hop.redirectsFollowed == 1)
    #expect(hop.origin == ConnectionAttempt.Origin(host: "127.0.0.1", address: loopback))
    // The same policy lets a request without a redirect through.
    #expect(try await backend.exchange(Servers.httpbin("/get"), options: options).status == 200)
  }

  /// Through a proxy (curl), the socket goes to the proxy; a redirect target given as an address literal is still
  /// checked, before the hop starts: the proxy relays the first request and never the redirect.
  @Test(arguments: ["http://169.254.169.254/", "http://2852039166/"])
  func aLiteralTargetIsCheckedThroughAProxy(_ location: String) async throws {
    let proxy = try await LocalServers.shared.proxy()
    var options = Self.options
    options.proxy = .http(host: "127.0.0.1", port: proxy.port)
    let before = try await proxy.relays().count
    await expectTransportError(.addressNotAllowed) {
      try await Backend.curl.exchange(try await Self.redirect(to: location), options: options)
    }
    let relays = try await proxy.relays().dropFirst(before)
    #expect(relays.count == 1, "only the first request: \(relays.map(\.target))")
    #expect(!relays.contains { $0.target.contains("169.254") || $0.target.contains("2852039166") })
    #expect(try await Backend.curl.exchange(Servers.httpbin("/get"), options: options).status == 200)
  }

  /// A pooled connection is checked too (curl: in the pre-request callback, by the address it is connected to): a
  /// kept-alive connection to the fault server, then a request there under "public internet only" is refused with
  /// nothing sent on it, and a policy that allows is asked once per connection, not once more for the same one.
  @Test(arguments: Backend.allCases)
  func aPooledConnectionIsCheckedBeforeTheRequestIsSentOnIt(_ backend: Backend) async throws {
    let key = UUID().uuidString
    #expect(try await backend.exchange(Servers.faults("/ok"), options: Self.options).status == 200)
    var options = Self.options
    options.connectionPolicy = .publicInternetOnly
    await expectTransportError(.addressNotAllowed) {
      try await backend.exchange(Servers.faults("/ok?key=\(key)"), options: options)
    }
    let counted = try await backend.exchange(Servers.faults("/count?path=/ok&key=\(key)"), options: Self.options)
    #expect(try counted.json()["count"] as? Int == 0, "the refused request reached the server")

    let asked = Locked(0)
    options.connectionPolicy = ConnectionPolicy(name: "counting") { _ in
      asked.withLock { $0 += 1 }
      return true
    }
    #expect(try await backend.exchange(Servers.faults("/ok?key=\(key)"), options: options).status == 200)
    #expect(asked.withLock { $0 } == 1, "the policy is asked once for one request")
  }

  /// The default follows redirects between loopback servers as before.
  @Test(arguments: Backend.allCases)
  func theDefaultFollowsRedirectsToPrivateServers(_ backend: Backend) async throws {
    let port = try #require(try await LocalServers.shared.httpbin().port)
    let exchange = try await backend.exchange(
      try await Self.redirect(to: "http://127.0.0.1:\(port)/get"),
      options: Self.options
    )
    #expect(exchange.status == 200)
  }
}

/// A socket that listens on 127.0.0.1 and never accepts: whether a client connected is whether a connection waits.
private final class Listener: Sendable {
  let descriptor: Int32
  let port: UInt16

  init?() {
    #if os(Linux)
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
    let descriptor = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard descriptor >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, length) == 0 && listen(descriptor, 8) == 0 && getsockname(descriptor, $0, &length) == 0
      }
    }
    guard bound else {
      closeDescriptor(descriptor)
      return nil
    }
    self.descriptor = descriptor
    port = UInt16(bigEndian: address.sin_port)
  }

  /// Whether a connection waits to be accepted (looked at for up to 200 ms).
  func hasPendingConnection() -> Bool {
    var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    return poll(&entry, 1, 200) > 0
  }

  func close() {
    closeDescriptor(descriptor)
  }
}

private func closeDescriptor(_ descriptor: Int32) {
  _ = close(descriptor)
}
