import Foundation

/// Why a local test server could not be started. Its `description` is the whole story a failing test prints: what
/// went wrong, the command that was run, the tail of the server's output and the command that fixes it.
struct LocalServerError: Error, CustomStringConvertible {
  /// What kind of failure this is. New codes can be added without breaking anyone's `switch`.
  struct Code: Hashable, Sendable, CustomStringConvertible {
    private let rawValue: String

    private init(_ rawValue: String) {
      self.rawValue = rawValue
    }

    /// The repository root (the folder holding `Tools/servers/`) was not found above the harness's source file.
    static let repositoryNotFound = Code("repositoryNotFound")
    /// The server's program (nginx, openssl, or the `.venv` with gunicorn) is not installed.
    static let executableMissing = Code("executableMissing")
    /// The server's files (run directory, config, static files) could not be written.
    static let fileSystem = Code("fileSystem")
    /// The server process exited before it answered.
    static let startFailed = Code("startFailed")
    /// The server kept running but never answered on its port within the start timeout.
    static let notReady = Code("notReady")
    /// The TLS test server's CA, certificate or pin could not be made or checked with the `openssl` CLI.
    static let tlsMaterial = Code("tlsMaterial")

    var description: String { rawValue }
  }

  /// What kind of failure this is.
  let code: Code
  /// A human explanation, with the command that was run and the server's output when there is one.
  let message: String
  /// The underlying error, when there is one.
  let cause: (any Error)?

  init(_ code: Code, _ message: String, cause: (any Error)? = nil) {
    self.code = code
    self.message = message
    self.cause = cause
  }

  var description: String {
    var text = "LocalServerError.\(code): \(message)"
    if let cause {
      text += "\nCaused by: \(cause)"
    }
    return text
  }

  /// The line every error ends with: how to install the servers.
  static func fixHint(repositoryRoot: URL?) -> String {
    let folder = repositoryRoot.map { " in \($0.path)" } ?? ""
    return "Fix: run `make setup-servers` (or `Tools/scripts/setup-servers.sh`)\(folder), then run the tests again."
  }
}
