#if canImport(Security)
import CryptoKit
import Foundation
import MalibuTransport
import Security

/// Server-trust decisions on Apple platforms, where URLSession hands the delegate every server-trust challenge.
///
/// Default verification first (with the extra authorities of `caFile` as anchors); then, when pins are set, the
/// SHA-256 of the leaf certificate's SubjectPublicKeyInfo must be one of them. `insecure` accepts any certificate.
/// FoundationNetworking never sends these challenges, which is why those options are refused on Linux.
enum ServerTrust {
  static func evaluate(
    _ challenge: URLAuthenticationChallenge,
    options: TLSOptions
  ) -> (URLSession.AuthChallengeDisposition, URLCredential?) {
    guard let trust = challenge.protectionSpace.serverTrust else { return (.performDefaultHandling, nil) }
    if options.insecure { return (.useCredential, URLCredential(trust: trust)) }
    if options.caFile == nil && options.pinnedPublicKey == nil { return (.performDefaultHandling, nil) }
    if let caFile = options.caFile {
      guard let anchors = certificates(inPEMFile: caFile), !anchors.isEmpty else {
        return (.cancelAuthenticationChallenge, nil)
      }
      SecTrustSetAnchorCertificates(trust, anchors as CFArray)
      SecTrustSetAnchorCertificatesOnly(trust, false)
    }
    guard SecTrustEvaluateWithError(trust, nil) else { return (.cancelAuthenticationChallenge, nil) }
    if let setting = options.pinnedPublicKey {
      guard let pins = try? PublicKeyPins(setting), let digest = leafKeyDigest(trust), pins.digests.contains(digest)
      else {
        return (.cancelAuthenticationChallenge, nil)
      }
    }
    return (.useCredential, URLCredential(trust: trust))
  }

  private static func leafKeyDigest(_ trust: SecTrust) -> Data? {
    guard let chain = SecTrustCopyCertificateChain(trust) as? [SecCertificate], let leaf = chain.first,
      let key = SecCertificateCopyKey(leaf),
      let attributes = SecKeyCopyAttributes(key) as? [CFString: Any],
      let external = SecKeyCopyExternalRepresentation(key, nil) as Data?
    else { return nil }
    let type = attributes[kSecAttrKeyType] as? String
    let bits = attributes[kSecAttrKeySizeInBits] as? Int ?? 0
    let kind: PublicKeyPins.KeyKind
    if type == (kSecAttrKeyTypeRSA as String) {
      kind = .rsa
    } else if type == (kSecAttrKeyTypeECSECPrimeRandom as String) {
      kind = .ellipticCurve(bits: bits)
    } else {
      return nil
    }
    guard let info = PublicKeyPins.subjectPublicKeyInfo(kind: kind, key: external) else { return nil }
    return Data(SHA256.hash(data: info))
  }

  private static func certificates(inPEMFile path: String) -> [SecCertificate]? {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
    var result: [SecCertificate] = []
    let blocks = text.components(separatedBy: "-----BEGIN CERTIFICATE-----").dropFirst()
    for block in blocks {
      guard let body = block.components(separatedBy: "-----END CERTIFICATE-----").first,
        let der = Data(base64Encoded: body, options: .ignoreUnknownCharacters),
        let certificate = SecCertificateCreateWithData(nil, der as CFData)
      else { return nil }
      result.append(certificate)
    }
    return result
  }
}
#endif
