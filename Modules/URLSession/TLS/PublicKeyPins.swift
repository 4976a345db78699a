import Foundation
import MalibuTransport

/// A `pinnedPublicKey` setting in curl's form — `sha256//<base64>` entries joined by `;` — and the DER encoding of a
/// public key that such a pin hashes (the X.509 SubjectPublicKeyInfo).
///
/// Platform-neutral so that it can be tested everywhere; only Apple platforms use it (through ``ServerTrust``).
struct PublicKeyPins: Equatable {
  /// The SHA-256 digests of the accepted SubjectPublicKeyInfo structures.
  var digests: [Data]

  /// Parses a pin setting.
  /// - Throws: `TransportError` with `TransportError/Code/invalidRequest` for anything but `sha256//` entries
  ///   of 32 bytes in base64.
  init(_ setting: String) throws(TransportError) {
    digests = []
    for entry in setting.split(separator: ";") {
      let trimmed = entry.trimmingCharacters(in: .whitespaces)
      guard trimmed.hasPrefix("sha256//"), let digest = Data(base64Encoded: String(trimmed.dropFirst(8))),
        digest.count == 32
      else {
        throw TransportError(
          code: .invalidRequest,
          message: "'\(trimmed)' is not a public-key pin of the form sha256//<base64>"
        )
      }
      digests.append(digest)
    }
    if digests.isEmpty {
      throw TransportError(code: .invalidRequest, message: "the public-key pin setting is empty")
    }
  }

  /// The kinds of keys a pin can match.
  enum KeyKind: Equatable {
    /// RSA; the key bytes are the PKCS #1 `RSAPublicKey`.
    case rsa
    /// Elliptic curve of the given size in bits (256, 384 or 521); the key bytes are the uncompressed point.
    case ellipticCurve(bits: Int)
  }

  /// The SubjectPublicKeyInfo DER of a key given in the form Apple's `SecKeyCopyExternalRepresentation` returns.
  static func subjectPublicKeyInfo(kind: KeyKind, key: Data) -> Data? {
    let algorithm: [UInt8]
    switch kind {
    case .rsa:
      // rsaEncryption (1.2.840.113549.1.1.1) with NULL parameters.
      algorithm = der(0x30, [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01, 0x05, 0x00])
    case .ellipticCurve(let bits):
      let curve: [UInt8]
      switch bits {
      case 256: curve = [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]
      case 384: curve = [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x22]
      case 521: curve = [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x23]
      default: return nil
      }
      // id-ecPublicKey (1.2.840.10045.2.1) with the curve's OID as parameters.
      algorithm = der(0x30, [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01] + curve)
    }
    let bitString = der(0x03, [0x00] + [UInt8](key))
    return Data(der(0x30, algorithm + bitString))
  }

  private static func der(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
    var length: [UInt8] = []
    if content.count < 0x80 {
      length = [UInt8(content.count)]
    } else {
      var remaining = content.count
      while remaining > 0 {
        length.insert(UInt8(remaining & 0xFF), at: 0)
        remaining >>= 8
      }
      length.insert(0x80 | UInt8(length.count), at: 0)
    }
    return [tag] + length + content
  }
}
