import Foundation

extension LocalServers {
  /// Where the harness finds the servers and keeps their files. ``default()`` fits the repository; tests build
  /// their own to point a server at a program that is missing or broken.
  struct Configuration: Sendable {
    /// The repository root: the folder that holds `Tools/servers/` and `.venv/`.
    var repositoryRoot: URL
    /// The nginx binary; nil searches `MALIBU_NGINX`, `PATH`, then the usual sbin folders.
    var nginxExecutable: URL?
    /// The `openssl` CLI that makes the TLS test server's certificates; nil searches `MALIBU_OPENSSL`, `PATH`, then
    /// the usual bin folders.
    var opensslExecutable: URL?
    /// The virtual environment with httpbin and gunicorn (made by `Tools/scripts/setup-servers.sh`).
    var virtualEnvironment: URL
    /// Persistent files (the static files, `www/`) and one run directory per test process (`run-PID/`).
    var stateDirectory: URL
    /// How long a server may take to answer after it was started.
    var startTimeout: Duration = .seconds(20)
    /// gunicorn worker processes for httpbin.
    var httpbinWorkers = 2
    /// Threads per gunicorn worker: slow endpoints (`/delay`, `/drip`) must not hold up the other tests.
    var httpbinThreads = 8

    /// A configuration rooted at `repositoryRoot`, with the repository's own `.venv` and `.build/malibu-servers`.
    init(repositoryRoot: URL) {
      self.repositoryRoot = repositoryRoot
      self.virtualEnvironment = repositoryRoot.appendingPathComponent(".venv")
      self.stateDirectory = repositoryRoot.appendingPathComponent(".build/malibu-servers")
    }

    /// The configuration for this repository, found from this source file's path, so the tests work from
    /// any working directory.
    static func `default`() throws(LocalServerError) -> Configuration {
      let marker = "Tools/servers/nginx.conf.template"
      var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      while folder.path != "/" {
        if FileManager.default.fileExists(atPath: folder.appendingPathComponent(marker).path) {
          return Configuration(repositoryRoot: folder)
        }
        folder = folder.deletingLastPathComponent()
      }
      throw LocalServerError(
        .repositoryNotFound,
        "no folder above \(#filePath) holds \(marker); the harness must live inside the Malibu repository."
      )
    }

    /// `Tools/servers/nginx.conf.template`.
    var nginxTemplate: URL { repositoryRoot.appendingPathComponent("Tools/servers/nginx.conf.template") }

    /// `Tools/servers/faults.py`, the fault-injection server.
    var faultsScript: URL { repositoryRoot.appendingPathComponent("Tools/servers/faults.py") }

    /// `Tools/servers/proxy.py`, the forward proxy.
    var proxyScript: URL { repositoryRoot.appendingPathComponent("Tools/servers/proxy.py") }

    /// `Tools/servers/graphql_server.py`, the GraphQL server.
    var graphQLScript: URL { repositoryRoot.appendingPathComponent("Tools/servers/graphql_server.py") }

    /// `Tools/servers/supervise.sh`, which runs each server and stops it if the test process dies.
    var supervisor: URL { repositoryRoot.appendingPathComponent("Tools/servers/supervise.sh") }

    /// The Python interpreter of ``virtualEnvironment``.
    var python: URL { virtualEnvironment.appendingPathComponent("bin/python") }

    /// The nginx binary to run, or an error naming the places searched and the fix.
    func resolvedNginx() throws(LocalServerError) -> URL {
      let fileManager = FileManager.default
      if let nginxExecutable {
        guard fileManager.isExecutableFile(atPath: nginxExecutable.path) else {
          throw LocalServerError(
            .executableMissing,
            "nginx is not installed: \(nginxExecutable.path) is not an executable file.\n"
              + LocalServerError.fixHint(repositoryRoot: repositoryRoot)
          )
        }
        return nginxExecutable
      }
      var candidates: [String] = []
      if let override = ProcessInfo.processInfo.environment["MALIBU_NGINX"], !override.isEmpty {
        candidates.append(override)
      }
      let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
      candidates += path.split(separator: ":").map { "\($0)/nginx" }
      candidates += ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/local/bin/nginx", "/opt/homebrew/bin/nginx"]
      if let found = candidates.first(where: { fileManager.isExecutableFile(atPath: $0) }) {
        return URL(fileURLWithPath: found)
      }
      throw LocalServerError(
        .executableMissing,
        "nginx is not installed: no executable nginx in MALIBU_NGINX, PATH, /usr/sbin, /usr/local/sbin, "
          + "/usr/local/bin or /opt/homebrew/bin.\n" + LocalServerError.fixHint(repositoryRoot: repositoryRoot)
      )
    }

    /// The openssl binary to run, or an error naming the places searched and the fix.
    func resolvedOpenSSL() throws(LocalServerError) -> URL {
      var candidates: [String] = []
      if let opensslExecutable {
        candidates = [opensslExecutable.path]
      } else {
        if let override = ProcessInfo.processInfo.environment["MALIBU_OPENSSL"], !override.isEmpty {
          candidates.append(override)
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        candidates += path.split(separator: ":").map { "\($0)/openssl" }
        candidates += ["/usr/bin/openssl", "/usr/local/bin/openssl", "/opt/homebrew/bin/openssl"]
      }
      if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) {
        return URL(fileURLWithPath: found)
      }
      throw LocalServerError(
        .executableMissing,
        "openssl is not installed (it makes the TLS test server's certificates): none of "
          + "\(candidates.joined(separator: ", ")) is an executable file.\n"
          + LocalServerError.fixHint(repositoryRoot: repositoryRoot)
      )
    }

    /// The venv's Python, or an error with the fix when the venv is missing.
    /// - Parameter server: The server that needs it, for the message: httpbin, or the fault server (which uses the
    ///   venv's interpreter for its standard library only).
    func resolvedPython(for server: Server = .httpbin) throws(LocalServerError) -> URL {
      guard FileManager.default.isExecutableFile(atPath: python.path) else {
        let what =
          switch server {
          case .faults: "the fault server's Python is not installed"
          case .proxy: "the proxy's Python is not installed"
          case .graphQL: "the GraphQL server's Python (with graphql-core) is not installed"
          default: "httpbin is not installed"
          }
        throw LocalServerError(
          .executableMissing,
          "\(what): \(python.path) does not exist (no virtual environment at "
            + "\(virtualEnvironment.path)).\n" + LocalServerError.fixHint(repositoryRoot: repositoryRoot)
        )
      }
      return python
    }
  }
}
