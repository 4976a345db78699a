import Testing

@testable import MalibuTransport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Address classes and connection policies")
struct ConnectionPolicyTests {
  struct ClassCase: Sendable, CustomTestStringConvertible {
    let address: String
    let expected: AddressClass
    var testDescription: String { "\(address) is \(expected)" }
    init(_ address: String, _ expected: AddressClass) {
      self.address = address
      self.expected = expected
    }
  }

  /// Every range the policies name, its boundaries, and the IPv6 forms that carry IPv4.
  static let classes: [ClassCase] = [
    ClassCase("8.8.8.8", .public),
    ClassCase("1.1.1.1", .public),
    ClassCase("0.0.0.0", .unspecified),
    ClassCase("0.1.2.3", .reserved),
    ClassCase("1.0.0.0", .public),
    ClassCase("126.255.255.255", .public),
    ClassCase("127.0.0.0", .loopback),
    ClassCase("127.0.0.1", .loopback),
    ClassCase("127.255.255.255", .loopback),
    ClassCase("128.0.0.0", .public),
    ClassCase("9.255.255.255", .public),
    ClassCase("10.0.0.0", .private),
    ClassCase("10.255.255.255", .private),
    ClassCase("11.0.0.0", .public),
    ClassCase("172.15.255.255", .public),
    ClassCase("172.16.0.0", .private),
    ClassCase("172.31.255.255", .private),
    ClassCase("172.32.0.0", .public),
    ClassCase("192.167.255.255", .public),
    ClassCase("192.168.0.0", .private),
    ClassCase("192.168.255.255", .private),
    ClassCase("192.169.0.0", .public),
    ClassCase("169.253.255.255", .public),
    ClassCase("169.254.0.0", .linkLocal),
    ClassCase("169.254.169.254", .linkLocal),
    ClassCase("169.254.255.255", .linkLocal),
    ClassCase("169.255.0.0", .public),
    ClassCase("100.63.255.255", .public),
    ClassCase("100.64.0.0", .sharedAddressSpace),
    ClassCase("100.127.255.255", .sharedAddressSpace),
    ClassCase("100.128.0.0", .public),
    ClassCase("223.255.255.255", .public),
    ClassCase("224.0.0.0", .multicast),
    ClassCase("239.255.255.255", .multicast),
    ClassCase("240.0.0.0", .reserved),
    ClassCase("255.255.255.254", .reserved),
    ClassCase("255.255.255.255", .broadcast),
    ClassCase("192.0.2.1", .reserved),
    ClassCase("198.51.100.1", .reserved),
    ClassCase("203.0.113.1", .reserved),
    ClassCase("198.18.0.1", .reserved),
    // IPv6
    ClassCase("::", .unspecified),
    ClassCase("::1", .loopback),
    ClassCase("::2", .reserved),
    ClassCase("2606:4700::1111", .public),
    ClassCase("2001:db8::1", .reserved),
    ClassCase("fe80::", .linkLocal),
    ClassCase("fe80::1", .linkLocal),
    ClassCase("febf:ffff::1", .linkLocal),
    ClassCase("fec0::1", .private),
    ClassCase("fe7f:ffff::1", .reserved),
    ClassCase("fc00::", .uniqueLocal),
    ClassCase("fd12:3456::1", .uniqueLocal),
    ClassCase("fdff:ffff::1", .uniqueLocal),
    ClassCase("fbff::1", .reserved),
    ClassCase("ff02::1", .multicast),
    ClassCase("100::1", .reserved),
    // IPv4-mapped
    ClassCase("::ffff:169.254.169.254", .linkLocal),
    ClassCase("::ffff:127.0.0.1", .loopback),
    ClassCase("::ffff:10.1.2.3", .private),
    ClassCase("::ffff:172.16.0.1", .private),
    ClassCase("::ffff:192.168.1.1", .private),
    ClassCase("::ffff:100.64.0.1", .sharedAddressSpace),
    ClassCase("::ffff:0.0.0.0", .unspecified),
    ClassCase("::ffff:8.8.8.8", .public),
    // IPv4-compatible (deprecated)
    ClassCase("::169.254.169.254", .linkLocal),
    ClassCase("::127.0.0.1", .loopback),
    ClassCase("::10.0.0.1", .private),
    ClassCase("::8.8.8.8", .public),
    // NAT64
    ClassCase("64:ff9b::169.254.169.254", .linkLocal),
    ClassCase("64:ff9b::127.0.0.1", .loopback),
    ClassCase("64:ff9b::8.8.8.8", .public),
    ClassCase("64:ff9b:1::1", .reserved),
    // 6to4
    ClassCase("2002:a9fe:a9fe::1", .linkLocal),
    ClassCase("2002:0a00:0001::1", .private),
    ClassCase("2002:0808:0808::1", .public),
  ]

  @Test(arguments: classes)
  func classification(_ testCase: ClassCase) throws {
    let address = try #require(IPAddress(testCase.address))
    #expect(address.classification == testCase.expected)
  }

  /// The spellings a URL may use for 169.254.169.254 all resolve to it (the curl transport sees the resolved
  /// `sockaddr`; URLSession's check resolves with `getaddrinfo`).
  @Test(arguments: ["169.254.169.254", "2852039166", "0251.0376.0251.0376", "0xA9FEA9FE", "0xa9.0xfe.0xa9.0xfe"])
  func spellingsOfTheMetadataAddressResolveToIt(_ spelling: String) throws {
    let addresses = try #require(AddressResolver.addresses(of: spelling))
    #expect(addresses == [IPAddress("169.254.169.254")!])
    #expect(addresses.first?.classification == .linkLocal)
  }

  /// An address literal in any spelling, without a DNS lookup; a name is not one.
  @Test func literalsInEverySpellingButNoNames() {
    let metadata = IPAddress("169.254.169.254")
    for spelling in ["169.254.169.254", "2852039166", "0251.0376.0251.0376", "0xA9FEA9FE"] {
      #expect(AddressResolver.literal(spelling) == metadata, "\(spelling)")
    }
    #expect(AddressResolver.literal("::ffff:169.254.169.254")?.classification == .linkLocal)
    #expect(AddressResolver.literal("localhost") == nil)
    #expect(AddressResolver.literal("example.invalid") == nil)
  }

  @Test func textualFormsOnlyAreParsed() {
    #expect(IPAddress("2852039166") == nil)
    #expect(IPAddress("[::1]") == nil)
    #expect(IPAddress("localhost") == nil)
    #expect(IPAddress("::ffff:169.254.169.254")?.description == "::ffff:169.254.169.254")
    #expect(IPAddress("10.0.0.1")?.description == "10.0.0.1")
    #expect(IPAddress(bytes: [1, 2, 3]) == nil)
    #expect(IPAddress(bytes: [127, 0, 0, 1])?.classification == .loopback)
  }

  @Test func socketAddressesOfBothFamilies() throws {
    var v4 = sockaddr_in()
    v4.sin_family = sa_family_t(AF_INET)
    _ = inet_pton(AF_INET, "169.254.169.254", &v4.sin_addr)
    let fromV4 = withUnsafeBytes(of: v4) { IPAddress(socketAddress: $0.baseAddress!, length: $0.count) }
    #expect(fromV4 == IPAddress("169.254.169.254"))
    var v6 = sockaddr_in6()
    v6.sin6_family = sa_family_t(AF_INET6)
    _ = inet_pton(AF_INET6, "fe80::1", &v6.sin6_addr)
    let fromV6 = withUnsafeBytes(of: v6) { IPAddress(socketAddress: $0.baseAddress!, length: $0.count) }
    #expect(fromV6?.classification == .linkLocal)
    // Too short for its family, or another family.
    #expect(withUnsafeBytes(of: v6) { IPAddress(socketAddress: $0.baseAddress!, length: 16) } == nil)
    var unix = sockaddr()
    unix.sa_family = sa_family_t(AF_UNIX)
    #expect(withUnsafeBytes(of: unix) { IPAddress(socketAddress: $0.baseAddress!, length: $0.count) } == nil)
  }

  static func attempt(
    _ address: String,
    hop: Int,
    origin: String? = "127.0.0.1"
  ) -> ConnectionAttempt {
    ConnectionAttempt(
      scheme: "http",
      host: address,
      address: IPAddress(address)!,
      redirectsFollowed: hop,
      origin: hop > 0 ? ConnectionAttempt.Origin(host: "origin", address: origin.flatMap { IPAddress($0) }) : nil
    )
  }

  struct PolicyCase: Sendable, CustomTestStringConvertible {
    let policy: String
    let address: String
    let hop: Int
    let origin: String?
    let allowed: Bool
    var testDescription: String { "\(policy): \(address) hop \(hop) from \(origin ?? "?") → \(allowed)" }
  }

  static let policyCases: [PolicyCase] = [
    // The default: only redirects into link-local from an origin that is not link-local are refused.
    PolicyCase(policy: "default", address: "169.254.169.254", hop: 0, origin: nil, allowed: true),
    PolicyCase(policy: "default", address: "127.0.0.1", hop: 1, origin: "8.8.8.8", allowed: true),
    PolicyCase(policy: "default", address: "10.0.0.1", hop: 1, origin: "8.8.8.8", allowed: true),
    PolicyCase(policy: "default", address: "169.254.169.254", hop: 1, origin: "8.8.8.8", allowed: false),
    PolicyCase(policy: "default", address: "169.254.169.254", hop: 2, origin: "127.0.0.1", allowed: false),
    PolicyCase(policy: "default", address: "169.254.169.254", hop: 1, origin: nil, allowed: false),
    PolicyCase(policy: "default", address: "::ffff:169.254.169.254", hop: 1, origin: "8.8.8.8", allowed: false),
    PolicyCase(policy: "default", address: "fe80::1", hop: 1, origin: "8.8.8.8", allowed: false),
    PolicyCase(policy: "default", address: "169.254.1.2", hop: 1, origin: "169.254.0.1", allowed: true),
    // Public internet only: the first request and every hop.
    PolicyCase(policy: "publicInternetOnly", address: "8.8.8.8", hop: 0, origin: nil, allowed: true),
    PolicyCase(policy: "publicInternetOnly", address: "127.0.0.1", hop: 0, origin: nil, allowed: false),
    PolicyCase(policy: "publicInternetOnly", address: "10.0.0.1", hop: 1, origin: "8.8.8.8", allowed: false),
    PolicyCase(policy: "publicInternetOnly", address: "::ffff:192.168.0.1", hop: 0, origin: nil, allowed: false),
    PolicyCase(policy: "publicInternetOnly", address: "fd00::1", hop: 0, origin: nil, allowed: false),
    PolicyCase(policy: "publicInternetOnly", address: "100.64.0.1", hop: 0, origin: nil, allowed: false),
    PolicyCase(policy: "publicInternetOnly", address: "0.0.0.0", hop: 0, origin: nil, allowed: false),
    PolicyCase(policy: "publicInternetOnly", address: "2606:4700::1111", hop: 3, origin: "8.8.8.8", allowed: true),
    // Unrestricted.
    PolicyCase(policy: "unrestricted", address: "169.254.169.254", hop: 1, origin: "8.8.8.8", allowed: true),
    PolicyCase(policy: "unrestricted", address: "127.0.0.1", hop: 0, origin: nil, allowed: true),
  ]

  static func policy(named name: String) -> ConnectionPolicy {
    switch name {
    case "default": .default
    case "publicInternetOnly": .publicInternetOnly
    default: .unrestricted
    }
  }

  @Test(arguments: policyCases)
  func builtInPolicies(_ testCase: PolicyCase) {
    let policy = Self.policy(named: testCase.policy)
    let attempt = Self.attempt(testCase.address, hop: testCase.hop, origin: testCase.origin)
    #expect(policy.allows(attempt) == testCase.allowed)
  }

  @Test func aCustomPolicySeesTheAttemptAndItsFlagDecidesForFirstRequests() {
    let firstOnlyRedirects = ConnectionPolicy(name: "never", checksFirstRequests: false) { _ in false }
    #expect(firstOnlyRedirects.allows(Self.attempt("8.8.8.8", hop: 0)))
    #expect(!firstOnlyRedirects.allows(Self.attempt("8.8.8.8", hop: 1)))
    let noTen = ConnectionPolicy(name: "no-ten") { $0.address.bytes.first != 10 }
    #expect(!noTen.allows(Self.attempt("10.1.1.1", hop: 0)))
    #expect(noTen.allows(Self.attempt("11.1.1.1", hop: 0)))
    #expect(noTen.description == "no-ten")
  }

  @Test func theRefusalNamesHostAddressAndClass() {
    let attempt = ConnectionAttempt(
      scheme: "HTTP",
      host: "2852039166",
      address: IPAddress("169.254.169.254")!,
      redirectsFollowed: 1,
      origin: ConnectionAttempt.Origin(host: "example.com", address: IPAddress("8.8.8.8"))
    )
    #expect(attempt.scheme == "http")
    #expect(attempt.isRedirect)
    let error = ConnectionPolicy.default.refusal(of: attempt)
    #expect(error.code == .addressNotAllowed)
    #expect(error.message.contains("'default'"))
    #expect(error.message.contains("2852039166"))
    #expect(error.message.contains("169.254.169.254 (a link-local address)"))
    #expect(error.message.contains("on a redirect from example.com"))
  }
}
