import MalibuTransport
import Testing

@testable import MalibuStorage

/// HMAC-SHA-256, the code that signs offline-store entries, against every test case of RFC 4231 (section 4).
@Suite struct HMACTests {
  struct Vector: Sendable, CustomTestStringConvertible {
    var number: Int
    var key: [UInt8]
    var data: [UInt8]
    /// The expected code in hexadecimal; case 5 gives only its first 128 bits.
    var expected: String

    var testDescription: String { "RFC 4231 test case \(number)" }
  }

  static let largerThanBlockKey = [UInt8](repeating: 0xaa, count: 131)

  static let vectors: [Vector] = [
    Vector(
      number: 1,
      key: [UInt8](repeating: 0x0b, count: 20),
      data: Array("Hi There".utf8),
      expected: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
    ),
    Vector(
      number: 2,
      key: Array("Jefe".utf8),
      data: Array("what do ya want for nothing?".utf8),
      expected: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    ),
    Vector(
      number: 3,
      key: [UInt8](repeating: 0xaa, count: 20),
      data: [UInt8](repeating: 0xdd, count: 50),
      expected: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
    ),
    Vector(
      number: 4,
      key: Array(0x01...0x19),
      data: [UInt8](repeating: 0xcd, count: 50),
      expected: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
    ),
    Vector(
      number: 5,
      key: [UInt8](repeating: 0x0c, count: 20),
      data: Array("Test With Truncation".utf8),
      expected: "a3b6167473100ee06e0c796c2955552b"
    ),
    Vector(
      number: 6,
      key: largerThanBlockKey,
      data: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
      expected: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
    ),
    Vector(
      number: 7,
      key: largerThanBlockKey,
      data: Array(
        ("This is a test using a larger than block-size key and a larger than block-size data. The key needs to be "
          + "hashed before being used by the HMAC algorithm.").utf8
      ),
      expected: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
    ),
  ]

  @Test(arguments: vectors)
  func hmacSHA256MatchesRFC4231(_ vector: Vector) {
    let mac = SHA256Digest.hexString(SHA256Digest.hmac(key: vector.key, vector.data))
    #expect(mac.count == 64)
    // Case 5 is truncated to 128 bits: the full code starts with the published prefix.
    #expect(mac.hasPrefix(vector.expected))
    if vector.number != 5 { #expect(mac == vector.expected) }
  }

  @Test func everyCaseOfRFC4231IsCovered() {
    #expect(Self.vectors.map(\.number) == Array(1...7))
  }
}
