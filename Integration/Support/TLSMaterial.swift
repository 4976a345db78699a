import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The keys and certificates of nginx's TLS port (``LocalServers/nginxTLS()``): a private test CA, a server
/// certificate for `127.0.0.1` and `localhost` signed by it, and the pin of the server's public key.
///
/// They are made once per state directory with the `openssl` CLI, in `.build/malibu-servers/tls/` (`ca.pem`,
/// `ca.key`, `server.pem`, `server.key`, `server.pin`), and made again only when a file is missing, the chain does not
/// verify for 127.0.0.1 and localhost, the key does not match, the pin is stale or a certificate expires within a day.
/// Each nginx start checks a private copy in its run directory (`tls/`), which nginx loads and ``caFile`` names, so
/// another test process replacing the shared files never changes what a running server presents.
///
/// ```swift
/// let material = try await LocalServers.shared.tlsMaterial()
/// let options = TransferOptions(tls: TLSOptions(caFile: material.caFile, pinnedPublicKey: material.pin))
/// ```
struct TLSMaterial: Sendable, Hashable {
  /// The test CA's certificate (PEM): trusting it makes the server's certificate valid.
  let caFile: String
  /// The server's certificate (PEM), for 127.0.0.1 and localhost.
  let certificateFile: String
  /// The server's private key (PEM).
  let keyFile: String
  /// The server's public-key pin: `sha256//<base64 of the SHA-256 of the DER SubjectPublicKeyInfo>`.
  let pin: String

  /// The files the shared folder holds; all but the CA's key are copied into each run directory.
  private static let sharedFiles = ["ca.pem", "ca.key", "server.pem", "server.key", "server.pin"]

  private static let preparing = Mutex(())

  /// Checks (making them again when needed) the shared files in `stateDirectory/tls`, copies them into
  /// `runDirectory/tls` and returns the copies. One caller at a time in this process; other test processes are
  /// tolerated (files are made in a folder of their own and renamed into place).
  /// - Throws: `LocalServerError` when openssl is missing or fails, or the files cannot be written.
  static func prepare(
    stateDirectory: URL,
    runDirectory: URL,
    openssl: OpenSSL
  ) throws(LocalServerError) -> TLSMaterial {
    let shared = stateDirectory.appendingPathComponent("tls")
    let copy = runDirectory.appendingPathComponent("tls")
    return try preparing.withLock { _ throws(LocalServerError) -> TLSMaterial in
      // A set another process replaces while we read it fails the check; the next round reads it whole.
      for round in 1...3 {
        do throws(LocalServerError) {
          return try copyAndCheck(shared, into: copy, openssl: openssl)
        } catch {
          if round == 3 { throw error }
        }
        try generate(into: stateDirectory, replacing: shared, openssl: openssl)
      }
      throw LocalServerError(.tlsMaterial, "no valid TLS material in \(shared.path).")
    }
  }

  /// Copies the shared files into `copy` and checks the copies.
  private static func copyAndCheck(
    _ shared: URL,
    into copy: URL,
    openssl: OpenSSL
  ) throws(LocalServerError) -> TLSMaterial {
    var contents: [String: Data] = [:]
    for name in sharedFiles {
      guard let data = FileManager.default.contents(atPath: shared.appendingPathComponent(name).path) else {
        throw LocalServerError(.tlsMaterial, "\(shared.appendingPathComponent(name).path) is missing.")
      }
      contents[name] = data
    }
    do {
      try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
      for name in sharedFiles where name != "ca.key" {
        try contents[name]!.write(to: copy.appendingPathComponent(name))
      }
      try FileManager.default.setAttributes(
        [.posixPermissions: 0o600],
        ofItemAtPath: copy.appendingPathComponent("server.key").path
      )
    } catch {
      throw LocalServerError(.fileSystem, "cannot copy the TLS files into \(copy.path).", cause: error)
    }
    // Chain, purpose and names in one go; then neither certificate may expire within a day.
    try openssl.run(
      [
        "verify", "-CAfile", "ca.pem", "-purpose", "sslserver", "-verify_ip", "127.0.0.1", "-verify_hostname",
        "localhost", "server.pem",
      ],
      in: copy
    )
    for certificate in ["ca.pem", "server.pem"] {
      try openssl.run(["x509", "-in", certificate, "-noout", "-checkend", "86400"], in: copy)
    }
    let (pin, certificateKey) = try openssl.pin(of: "server.pem", in: copy)
    let privateKeysPublicKey = try openssl.run(["pkey", "-in", "server.key", "-pubout", "-outform", "DER"], in: copy)
    guard privateKeysPublicKey == certificateKey else {
      throw LocalServerError(.tlsMaterial, "\(shared.path)/server.key does not belong to server.pem.")
    }
    let storedPin = String(decoding: contents["server.pin"]!, as: UTF8.self)
      .trimmingCharacters(in: .whitespacesAndNewlines)
    guard storedPin == pin else {
      throw LocalServerError(.tlsMaterial, "\(shared.path)/server.pin is \(storedPin), the certificate's is \(pin).")
    }
    return TLSMaterial(
      caFile: copy.appendingPathComponent("ca.pem").path,
      certificateFile: copy.appendingPathComponent("server.pem").path,
      keyFile: copy.appendingPathComponent("server.key").path,
      pin: pin
    )
  }

  /// Makes a new CA, server certificate and pin in a fresh folder of `stateDirectory`, then renames it to `shared`
  /// (the old folder, if any, is moved aside first). When another process renamed its own set into place meanwhile,
  /// that set stays and ours is dropped.
  private static func generate(
    into stateDirectory: URL,
    replacing shared: URL,
    openssl: OpenSSL
  ) throws(LocalServerError) {
    let unique = UUID().uuidString.prefix(8).lowercased()
    let fresh = stateDirectory.appendingPathComponent(".tls-\(unique)")
    do {
      try FileManager.default.createDirectory(at: fresh, withIntermediateDirectories: true)
    } catch {
      throw LocalServerError(.fileSystem, "cannot create \(fresh.path).", cause: error)
    }
    defer { try? FileManager.default.removeItem(at: fresh) }
    try openssl.write(Data(configuration.utf8), to: fresh.appendingPathComponent("openssl.cnf"))
    let rsa = ["-newkey", "rsa:2048", "-nodes", "-sha256", "-config", "openssl.cnf"]
    let authority = ["-extensions", "ca_extensions", "-days", "3650", "-subj", "/CN=Malibu Test CA"]
    try openssl.run(["req", "-x509"] + rsa + authority + ["-keyout", "ca.key", "-out", "ca.pem"], in: fresh)
    try openssl.run(
      ["req", "-new"] + rsa + ["-subj", "/CN=127.0.0.1", "-keyout", "server.key", "-out", "server.csr"],
      in: fresh
    )
    try openssl.run(
      [
        "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-sha256", "-days", "3650",
        "-set_serial", "0x" + String(UInt64.random(in: 1...UInt64.max >> 1), radix: 16), "-extfile", "openssl.cnf",
        "-extensions", "server_extensions", "-out", "server.pem",
      ],
      in: fresh
    )
    let (pin, _) = try openssl.pin(of: "server.pem", in: fresh)
    try openssl.write(Data("\(pin)\n".utf8), to: fresh.appendingPathComponent("server.pin"))
    for intermediate in ["openssl.cnf", "server.csr", "server.pem.spki.pem", "server.pem.spki.der"] {
      try? FileManager.default.removeItem(at: fresh.appendingPathComponent(intermediate))
    }

    let stale = stateDirectory.appendingPathComponent(".tls-stale-\(unique)")
    if rename(shared.path, stale.path) == 0 {
      try? FileManager.default.removeItem(at: stale)
    }
    // Fails when another process put its set there first (ENOTEMPTY, EEXIST): the caller checks whatever is there.
    _ = rename(fresh.path, shared.path)
  }

  /// openssl's configuration for both certificates: a CA that may only sign, and a server certificate for
  /// 127.0.0.1 and localhost.
  private static let configuration = """
    [req]
    distinguished_name = name
    prompt = no

    [name]
    CN = Malibu Test

    [ca_extensions]
    basicConstraints = critical, CA:TRUE, pathlen:0
    keyUsage = critical, keyCertSign, cRLSign
    subjectKeyIdentifier = hash

    [server_extensions]
    basicConstraints = critical, CA:FALSE
    keyUsage = critical, digitalSignature, keyEncipherment
    extendedKeyUsage = serverAuth
    subjectAltName = IP:127.0.0.1, DNS:localhost
    subjectKeyIdentifier = hash
    authorityKeyIdentifier = keyid

    """
}
