#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address as the socket layer sees it, and the class of network it belongs to (``AddressClass``).
///
/// ``ConnectionPolicy`` decides on these: a transport builds one from the `sockaddr` it is about to connect to, so
/// the spelling of the URL's host (`2852039166`, `0251.0376.0251.0376`, `0xA9FEA9FE`, `[::ffff:169.254.169.254]`)
/// makes no difference: each is `169.254.169.254`, link-local.
///
/// ```swift
/// let address = IPAddress("169.254.169.254")!
/// address.classification == .linkLocal  // true
/// ```
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
  /// The address in network byte order: 4 bytes for IPv4, 16 for IPv6.
  public let bytes: [UInt8]

  /// An address from its bytes in network byte order.
  /// - Parameter bytes: 4 bytes (IPv4) or 16 (IPv6); any other count gives `nil`.
  public init?(bytes: [UInt8]) {
    guard bytes.count == 4 || bytes.count == 16 else { return nil }
    self.bytes = bytes
  }

  /// An address in its textual form, IPv4 dotted-quad (`127.0.0.1`) or IPv6 (`::1`, `::ffff:10.0.0.1`); `nil` for
  /// anything else (a host name, a bracketed literal, a decimal or octal IPv4 spelling).
  /// - Parameter text: The address.
  public init?(_ text: String) {
    var v4 = in_addr()
    var v6 = in6_addr()
    if inet_pton(AF_INET, text, &v4) == 1 {
      self.init(v4)
    } else if inet_pton(AF_INET6, text, &v6) == 1 {
      self.init(v6)
    } else {
      return nil
    }
  }

  /// An IPv4 address.
  /// - Parameter address: The address, as in a `sockaddr_in`.
  init(_ address: in_addr) {
    bytes = withUnsafeBytes(of: address) { Array($0.prefix(4)) }
  }

  /// An IPv6 address.
  /// - Parameter address: The address, as in a `sockaddr_in6`.
  init(_ address: in6_addr) {
    bytes = withUnsafeBytes(of: address) { Array($0.prefix(16)) }
  }

  /// The address of a socket address (`sockaddr_in` or `sockaddr_in6`); `nil` for another family or a length too
  /// short for its family.
  /// - Parameters:
  ///   - socketAddress: The start of the `sockaddr`.
  ///   - length: Its length in bytes.
  public init?(socketAddress: UnsafeRawPointer, length: Int) {
    guard length >= MemoryLayout<sockaddr>.size else { return nil }
    let family = Int32(socketAddress.loadUnaligned(as: sockaddr.self).sa_family)
    if family == AF_INET, length >= MemoryLayout<sockaddr_in>.size {
      self.init(socketAddress.loadUnaligned(as: sockaddr_in.self).sin_addr)
    } else if family == AF_INET6, length >= MemoryLayout<sockaddr_in6>.size {
      self.init(socketAddress.loadUnaligned(as: sockaddr_in6.self).sin6_addr)
    } else {
      return nil
    }
  }

  /// Whether this is an IPv4 address.
  public var isIPv4: Bool { bytes.count == 4 }

  /// The address in its usual textual form (`169.254.169.254`, `fe80::1`).
  public var description: String {
    var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
    let family = isIPv4 ? AF_INET : AF_INET6
    let written = bytes.withUnsafeBytes { source in
      inet_ntop(family, source.baseAddress, &buffer, socklen_t(buffer.count)) != nil
    }
    guard written else { return "?" }
    return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
  }

  /// The class of network the address belongs to. IPv4 addresses carried in IPv6 ones (IPv4-mapped `::ffff:a.b.c.d`,
  /// IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::a.b.c.d` and 6to4 `2002:aabb:ccdd::`) are classified by the IPv4
  /// address they carry: the kernel or a translator delivers them there.
  public var classification: AddressClass {
    isIPv4 ? Self.classify(v4: bytes[0], bytes[1], bytes[2], bytes[3]) : classifyV6()
  }

  private static func classify(v4 a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> AddressClass {
    switch (a, b, c, d) {
    case (0, 0, 0, 0): return .unspecified
    case (255, 255, 255, 255): return .broadcast
    case (0, _, _, _): return .reserved  // "this network"
    case (127, _, _, _): return .loopback
    case (10, _, _, _): return .private
    case (172, 16...31, _, _): return .private
    case (192, 168, _, _): return .private
    case (169, 254, _, _): return .linkLocal
    case (100, 64...127, _, _): return .sharedAddressSpace
    case (224...239, _, _, _): return .multicast
    case (240...255, _, _, _): return .reserved
    // IETF protocol assignments, the three documentation networks, benchmarking.
    case (192, 0, 0, _), (192, 0, 2, _), (198, 51, 100, _), (203, 0, 113, _), (198, 18...19, _, _): return .reserved
    default: return .public
    }
  }

  private func classifyV6() -> AddressClass {
    let b = bytes
    let firstTwelveZero = b[0..<10].allSatisfy { $0 == 0 }
    if firstTwelveZero && b[10] == 0xff && b[11] == 0xff {
      return Self.classify(v4: b[12], b[13], b[14], b[15])  // IPv4-mapped
    }
    if firstTwelveZero && b[10] == 0 && b[11] == 0 {
      if b[12..<15].allSatisfy({ $0 == 0 }) {
        if b[15] == 0 { return .unspecified }
        if b[15] == 1 { return .loopback }
      }
      return Self.classify(v4: b[12], b[13], b[14], b[15])  // IPv4-compatible (deprecated)
    }
    if b[0...3] == [0x00, 0x64, 0xff, 0x9b] {
      if b[4..<12].allSatisfy({ $0 == 0 }) { return Self.classify(v4: b[12], b[13], b[14], b[15]) }  // NAT64
      if b[4] == 0 && b[5] == 1 { return .reserved }  // 64:ff9b:1::/48, local-use NAT64
    }
    if b[0] == 0x20 && b[1] == 0x02 {
      return Self.classify(v4: b[2], b[3], b[4], b[5])  // 6to4
    }
    if b[0] == 0xff { return .multicast }
    if b[0] == 0xfe && b[1] & 0xc0 == 0x80 { return .linkLocal }  // fe80::/10
    if b[0] == 0xfe && b[1] & 0xc0 == 0xc0 { return .private }  // fec0::/10, deprecated site-local
    if b[0] & 0xfe == 0xfc { return .uniqueLocal }  // fc00::/7
    if b[0...3] == [0x20, 0x01, 0x0d, 0xb8] { return .reserved }  // documentation
    if b[0] == 0x01 && b[1] == 0x00 && b[2..<8].allSatisfy({ $0 == 0 }) { return .reserved }  // 100::/64, discard
    if b[0] & 0xe0 == 0x20 { return .public }  // 2000::/3, global unicast
    return .reserved
  }
}

/// The class of network an ``IPAddress`` belongs to, for ``ConnectionPolicy`` to decide on.
///
/// A struct with static members rather than an enum: a finer class may be added without breaking anyone's `switch`.
public struct AddressClass: Hashable, Sendable, CustomStringConvertible {
  private let name: String

  private init(_ name: String) {
    self.name = name
  }

  /// An address on the public internet: none of the others.
  public static let `public` = AddressClass("public")
  /// This machine: `127.0.0.0/8`, `::1`.
  public static let loopback = AddressClass("loopback")
  /// A private network: `10.0.0.0/8`, `172.16.0.0/12`, `192.168.0.0/16` (and IPv6's deprecated `fec0::/10`).
  public static let `private` = AddressClass("private")
  /// The local link: `169.254.0.0/16` (where cloud metadata services answer), `fe80::/10`.
  public static let linkLocal = AddressClass("linkLocal")
  /// IPv6 unique-local addresses, `fc00::/7`: IPv6's private networks.
  public static let uniqueLocal = AddressClass("uniqueLocal")
  /// The carrier-grade NAT range `100.64.0.0/10`.
  public static let sharedAddressSpace = AddressClass("sharedAddressSpace")
  /// `0.0.0.0` or `::`, which reach this machine when connected to.
  public static let unspecified = AddressClass("unspecified")
  /// Multicast: `224.0.0.0/4`, `ff00::/8`.
  public static let multicast = AddressClass("multicast")
  /// The limited broadcast address `255.255.255.255`.
  public static let broadcast = AddressClass("broadcast")
  /// Reserved for other uses: `0.0.0.0/8`, `240.0.0.0/4`, the documentation, benchmarking and IETF ranges, IPv6
  /// outside `2000::/3` that is none of the above.
  public static let reserved = AddressClass("reserved")

  /// The class's name, as spelled in Swift.
  public var description: String { name }

  /// The class in words, for messages: "a link-local address".
  public var phrase: String {
    switch self {
    case .public: "a public address"
    case .loopback: "a loopback address"
    case .private: "a private-network address"
    case .linkLocal: "a link-local address"
    case .uniqueLocal: "a unique-local address"
    case .sharedAddressSpace: "a carrier-grade NAT address"
    case .unspecified: "the unspecified address"
    case .multicast: "a multicast address"
    case .broadcast: "the broadcast address"
    default: "a reserved address"
    }
  }
}
