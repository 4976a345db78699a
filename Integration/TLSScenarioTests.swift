import Foundation
import MalibuTransport
import Testing

/// TLS against nginx's TLS port, whose certificate (for 127.0.0.1 and localhost) is signed by the suite's private
/// test CA: verification by default, an extra CA (`caFile`), public-key pins, `insecure`, and HTTP/2 by ALPN.
///
/// CurlTransport applies every option. URLSessionTransport on Linux verifies against the system's trust store only and
/// refuses `caFile`, `pinnedPublicKey` and `insecure` with `unsupportedOption`, as MalibuURLSession's catalog says
/// (FoundationNetworking never asks its delegate about server trust). After every failure, the same transport still
/// serves a normal request.
@Suite("TLS", .serialized)
struct TLSScenarioTests {
  /// `/1k.bin`, `/identity/1k.bin`.
  static let small = StaticContent.data(of: StaticContent.small)

  /// A well-formed pin that matches no key: the SHA-256 of zero bytes.
  static let wrongPin = "sha256//47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hI2ys="

  /// Whether `backend` applies `caFile`, `pinnedPublicKey` and `insecure` on this platform.
  static func appliesTLSOptions(_ backend: Backend) -> Bool {
    #if canImport(FoundationNetworking)
    return backend == .curl
    #else
    return true
    #endif
  }

  @Test("an untrusted CA is a tls error", arguments: Backend.allCases)
  func untrustedCertificate(_ backend: Backend) async throws {
    let url = try await Servers.nginxTLS("/1k.bin")
    // curl: CURLE_PEER_FAILED_VERIFICATION ("unable to get local issuer certificate"). URLSession on Linux:
    // FoundationNetworking's NSURLErrorUnknown (-1) with libcurl's same text, which the transport maps to `tls` as its
    // catalog documents.
    await expectTransportError(.tls) { try await backend.exchange(url) }
    try await expectStillWorks(backend)
  }

  @Test("the test CA as caFile makes the certificate valid", arguments: Backend.allCases)
  func trustedCertificate(_ backend: Backend) async throws {
    let material = try await LocalServers.shared.tlsMaterial()
    let tls = TLSOptions(caFile: material.caFile)
    for path in ["/1k.bin", "/identity/1k.bin"] {
      if let exchange = try await exchange(backend, Servers.nginxTLS(path), tls: tls) {
        #expect(exchange.data == Self.small, "\(path)")
      }
    }
    try await expectStillWorks(backend)
  }

  @Test("the certificate is valid for localhost too", arguments: Backend.allCases)
  func localhostName(_ backend: Backend) async throws {
    let material = try await LocalServers.shared.tlsMaterial()
    let port = try #require(try await LocalServers.shared.nginxTLS().port)
    let url = try #require(URL(string: "https://localhost:\(port)/health"))
    if let exchange = try await exchange(backend, url, tls: TLSOptions(caFile: material.caFile)) {
      #expect(exchange.text == "ok\n")
    }
    try await expectStillWorks(backend)
  }

  @Test("the server's pin is accepted, alone or in a list", arguments: Backend.allCases)
  func matchingPin(_ backend: Backend) async throws {
    let material = try await LocalServers.shared.tlsMaterial()
    let url = try await Servers.nginxTLS("/identity/1k.bin")
    for pin in [material.pin, "\(Self.wrongPin);\(material.pin)"] {
      let tls = TLSOptions(caFile: material.caFile, pinnedPublicKey: pin)
      if let exchange = try await exchange(backend, url, tls: tls) {
        #expect(exchange.data == Self.small, "\(pin)")
      }
    }
    try await expectStillWorks(backend)
  }

  @Test("a pin of another key is a tls error, even with a trusted chain", arguments: Backend.allCases)
  func wrongPin(_ backend: Backend) async throws {
    let material = try await LocalServers.shared.tlsMaterial()
    let url = try await Servers.nginxTLS("/identity/1k.bin")
    let pinned = TLSOptions(caFile: material.caFile, pinnedPublicKey: Self.wrongPin)
    await expectFailure(.tls, backend, url, tls: pinned)
    try await expectStillWorks(backend)
  }

  @Test("a matching pin does not replace verification", arguments: Backend.allCases)
  func pinWithoutTrust(_ backend: Backend) async throws {
    let material = try await LocalServers.shared.tlsMaterial()
    let url = try await Servers.nginxTLS("/identity/1k.bin")
    await expectFailure(.tls, backend, url, tls: TLSOptions(pinnedPublicKey: material.pin))
    try await expectStillWorks(backend)
  }

  @Test("insecure accepts the untrusted certificate", arguments: Backend.allCases)
  func insecure(_ backend: Backend) async throws {
    let url = try await Servers.nginxTLS("/1k.bin")
    if let exchange = try await exchange(backend, url, tls: TLSOptions(insecure: true)) {
      #expect(exchange.data == Self.small)
    }
    try await expectStillWorks(backend)
  }

  @Test("HTTP/2 is negotiated over TLS (as the server saw it)", arguments: Backend.allCases)
  func http2(_ backend: Backend) async throws {
    let material = try await LocalServers.shared.tlsMaterial()
    let url = try await Servers.nginxTLS("/protocol")
    if let exchange = try await exchange(backend, url, tls: TLSOptions(caFile: material.caFile)) {
      #expect(exchange.text == "HTTP/2.0")
    }
    try await expectStillWorks(backend)
  }

  @Test("a connection made under one setting is not reused under a stricter one", arguments: Backend.allCases)
  func settingsDoNotShareConnections(_ backend: Backend) async throws {
    let material = try await LocalServers.shared.tlsMaterial()
    let url = try await Servers.nginxTLS("/identity/1k.bin")
    // An idle connection accepted without verification, then a verified request to the same origin.
    _ = try await exchange(backend, url, tls: TLSOptions(insecure: true))
    await expectTransportError(.tls) { try await backend.exchange(url) }
    // An idle connection verified with the CA, then the same CA with a pin the server's key does not match.
    _ = try await exchange(backend, url, tls: TLSOptions(caFile: material.caFile))
    let pinned = TLSOptions(caFile: material.caFile, pinnedPublicKey: Self.wrongPin)
    await expectFailure(.tls, backend, url, tls: pinned)
    try await expectStillWorks(backend)
  }

  // MARK: - Helpers

  /// GET `url` with `tls`: the exchange where `backend` applies TLS options; elsewhere it expects `unsupportedOption`
  /// and returns nil.
  private func exchange(
    _ backend: Backend,
    _ url: URL,
    tls: TLSOptions,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> Exchange? {
    let options = TransferOptions(tls: tls)
    guard Self.appliesTLSOptions(backend) else {
      await expectTransportError(.unsupportedOption, sourceLocation: sourceLocation) {
        try await backend.exchange(url, options: options)
      }
      return nil
    }
    let exchange = try await backend.exchange(url, options: options)
    #expect(exchange.status == 200, sourceLocation: sourceLocation)
    return exchange
  }

  /// GET `url` with `tls` fails with `code` where `backend` applies TLS options, with `unsupportedOption` elsewhere.
  private func expectFailure(
    _ code: TransportError.Code,
    _ backend: Backend,
    _ url: URL,
    tls: TLSOptions,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async {
    let expected = Self.appliesTLSOptions(backend) ? code : .unsupportedOption
    await expectTransportError(expected, sourceLocation: sourceLocation) {
      try await backend.exchange(url, options: TransferOptions(tls: tls))
    }
  }

  /// The transport still serves a plain request to nginx, and (where it applies TLS options) a verified one to the
  /// TLS port.
  private func expectStillWorks(_ backend: Backend, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let plain = try await backend.exchange(Servers.nginx("/identity/1k.bin"))
    #expect(plain.status == 200 && plain.data == Self.small, sourceLocation: sourceLocation)
    guard Self.appliesTLSOptions(backend) else { return }
    let material = try await LocalServers.shared.tlsMaterial()
    let secure = try await backend.exchange(
      Servers.nginxTLS("/identity/1k.bin"),
      options: TransferOptions(tls: TLSOptions(caFile: material.caFile))
    )
    #expect(secure.status == 200 && secure.data == Self.small, sourceLocation: sourceLocation)
  }
}
