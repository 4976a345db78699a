import Foundation

/// The `openssl` command-line tool, which makes the TLS test server's keys and certificates: the harness links no
/// crypto library. Every call blocks until the tool exits (``ServerLauncher`` runs on a thread of its own), reads no
/// standard input (files only, so the tool never waits for a terminal and a write never meets a closed pipe), and a
/// failure is a ``LocalServerError`` with the command and the tool's own error output.
struct OpenSSL: Sendable {
  /// The `openssl` binary.
  let executable: URL

  /// Runs `openssl arguments` in `directory` and returns its standard output.
  /// - Throws: `LocalServerError.Code.tlsMaterial` when the tool cannot run or exits with a failure.
  @discardableResult
  func run(_ arguments: [String], in directory: URL) throws(LocalServerError) -> Data {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.currentDirectoryURL = directory
    process.standardInput = FileHandle.nullDevice
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    let commandLine = ([executable.path] + arguments).joined(separator: " ")
    do {
      try process.run()
    } catch {
      throw LocalServerError(.tlsMaterial, "cannot run `\(commandLine)` in \(directory.path).", cause: error)
    }
    // Both outputs are small (a key, a certificate, a few lines of diagnostics): far below a pipe's buffer, so reading
    // one to its end before the other cannot stall the tool.
    let data = output.fileHandleForReading.readDataToEndOfFile()
    let diagnostics = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationReason == .exit, process.terminationStatus == 0 else {
      let text = String(decoding: diagnostics + data.prefix(2048), as: UTF8.self)
        .trimmingCharacters(in: .whitespacesAndNewlines)
      throw LocalServerError(
        .tlsMaterial,
        """
        `\(commandLine)` failed (status \(process.terminationStatus)) in \(directory.path):
        \(text.isEmpty ? "(no output)" : text)
        """
      )
    }
    return data
  }

  /// The pin of the public key in the PEM certificate `certificate` (a path relative to `directory`), in curl's form
  /// `sha256//<base64 of the SHA-256 of the DER SubjectPublicKeyInfo>`, and that DER key. Leaves
  /// `<certificate>.spki.pem` and `<certificate>.spki.der` in `directory`.
  /// - Throws: `LocalServerError.Code.tlsMaterial` when the certificate cannot be read.
  func pin(of certificate: String, in directory: URL) throws(LocalServerError) -> (pin: String, key: Data) {
    // openssl x509 -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64
    let pem = try run(["x509", "-in", certificate, "-noout", "-pubkey"], in: directory)
    try write(pem, to: directory.appendingPathComponent("\(certificate).spki.pem"))
    let key = try run(["pkey", "-pubin", "-in", "\(certificate).spki.pem", "-outform", "DER"], in: directory)
    try write(key, to: directory.appendingPathComponent("\(certificate).spki.der"))
    let digest = try run(["dgst", "-sha256", "-binary", "\(certificate).spki.der"], in: directory)
    guard digest.count == 32, !key.isEmpty else {
      throw LocalServerError(
        .tlsMaterial,
        "openssl gave a \(digest.count)-byte SHA-256 of a \(key.count)-byte public key of \(certificate) in "
          + "\(directory.path)."
      )
    }
    return ("sha256//" + digest.base64EncodedString(), key)
  }

  /// Writes `data` to `url`.
  /// - Throws: `LocalServerError.Code.fileSystem` when the file cannot be written.
  func write(_ data: Data, to url: URL) throws(LocalServerError) {
    do {
      try data.write(to: url)
    } catch {
      throw LocalServerError(.fileSystem, "cannot write \(url.path).", cause: error)
    }
  }
}
