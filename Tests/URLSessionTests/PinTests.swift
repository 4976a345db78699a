import Foundation
import MalibuTransport
import Testing

@testable import MalibuURLSession

extension URLSessionTransportTests {
  /// The pin parser and SubjectPublicKeyInfo builder behind key pinning on Apple platforms, checked against DER made
  /// by OpenSSL (`openssl pkey -pubout -outform DER`).
  @Suite struct Pins {
    @Test func pinsParseInCurlsForm() throws {
      let one = String(repeating: "A", count: 43) + "="
      let two = String(repeating: "B", count: 43) + "="
      let pins = try PublicKeyPins("sha256//\(one); sha256//\(two)")
      #expect(pins.digests.count == 2)
      #expect(pins.digests[0] == Data(count: 32))
    }

    @Test(arguments: ["", "sha1//AAAA", "sha256//notbase64!", "sha256//AAAA"])
    func malformedPinsAreInvalid(setting: String) {
      #expect(throws: TransportError.self) { try PublicKeyPins(setting) }
    }

    @Test func rsaKeyInfoMatchesOpenSSL() throws {
      let pkcs1 = try #require(Data(base64Encoded: Fixtures.rsaPKCS1))
      let spki = try #require(Data(base64Encoded: Fixtures.rsaSPKI))
      #expect(PublicKeyPins.subjectPublicKeyInfo(kind: .rsa, key: pkcs1) == spki)
    }

    @Test func ellipticCurveKeyInfoMatchesOpenSSL() throws {
      let point = try #require(Data(base64Encoded: Fixtures.ecPoint))
      let spki = try #require(Data(base64Encoded: Fixtures.ecSPKI))
      #expect(PublicKeyPins.subjectPublicKeyInfo(kind: .ellipticCurve(bits: 256), key: point) == spki)
      #expect(PublicKeyPins.subjectPublicKeyInfo(kind: .ellipticCurve(bits: 255), key: point) == nil)
    }
  }
}
