import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts one server: prepares its run directory, picks free ports (nginx takes two: plain HTTP and TLS), runs it under
/// the supervisor and waits until it answers on its plain port. A port taken in the meantime is retried with another;
/// any other failure is a ``LocalServerError``.
/// Everything here blocks (file generation, process start, socket probes), so ``LocalServers`` runs it on a thread of
/// its own, never on the concurrency pool the tests share.
struct ServerLauncher: Sendable {
  let configuration: LocalServers.Configuration

  private static let portAttempts = 5

  /// The state directory's folder for this test process: `run-PID/`.
  var processRunDirectory: URL {
    configuration.stateDirectory.appendingPathComponent("run-\(getpid())")
  }

  /// Starts `server` and returns once it answered.
  func start(_ server: LocalServers.Server) throws(LocalServerError) -> ServerProcess {
    // One directory per start: a test's own LocalServers instance never touches the shared one's files.
    let unique = UUID().uuidString.prefix(8).lowercased()
    let runDirectory = processRunDirectory.appendingPathComponent("\(server.rawValue)-\(unique)")
    do {
      removeStaleRunDirectories()
      try FileManager.default.createDirectory(at: runDirectory, withIntermediateDirectories: true)
      ServerRegistry.record(runDirectory: processRunDirectory)
    } catch {
      throw LocalServerError(.fileSystem, "cannot create \(runDirectory.path).", cause: error)
    }
    switch server {
    case .httpbin:
      let python = try configuration.resolvedPython()
      return try launch(server, runDirectory: runDirectory) { ports in
        (python, httpbinArguments(port: ports.plain, runDirectory: runDirectory))
      }
    case .faults:
      let python = try configuration.resolvedPython(for: .faults)
      let script = configuration.faultsScript
      guard FileManager.default.fileExists(atPath: script.path) else {
        throw LocalServerError(.executableMissing, "the fault server's script \(script.path) is missing.")
      }
      return try launch(server, runDirectory: runDirectory) { ports in
        (python, [script.path, String(ports.plain)])
      }
    case .proxy:
      let python = try configuration.resolvedPython(for: .proxy)
      let script = configuration.proxyScript
      guard FileManager.default.fileExists(atPath: script.path) else {
        throw LocalServerError(.executableMissing, "the proxy's script \(script.path) is missing.")
      }
      return try launch(server, runDirectory: runDirectory) { ports in
        (python, [script.path, String(ports.plain)])
      }
    case .graphQL:
      let python = try configuration.resolvedPython(for: .graphQL)
      let script = configuration.graphQLScript
      guard FileManager.default.fileExists(atPath: script.path) else {
        throw LocalServerError(.executableMissing, "the GraphQL server's script \(script.path) is missing.")
      }
      return try launch(server, runDirectory: runDirectory) { ports in
        (python, [script.path, String(ports.plain)])
      }
    case .nginx:
      let nginx = try configuration.resolvedNginx()
      let template = try nginxTemplate()
      let www = configuration.stateDirectory.appendingPathComponent("www")
      do {
        try StaticContent.materializeOnce(in: www)
        try BadContent.materialize(in: www)
      } catch {
        throw LocalServerError(.fileSystem, "cannot write nginx's static files into \(www.path).", cause: error)
      }
      // nginx loads this start's private copy, `tls/` in the run directory, which the template names.
      let tls = try TLSMaterial.prepare(
        stateDirectory: configuration.stateDirectory,
        runDirectory: runDirectory,
        openssl: OpenSSL(executable: configuration.resolvedOpenSSL())
      )
      return try launch(server, runDirectory: runDirectory, tls: tls) { ports throws(LocalServerError) in
        let config = runDirectory.appendingPathComponent("nginx.conf")
        let text = render(template, ports: ports, runDirectory: runDirectory, www: www)
        do {
          try text.write(to: config, atomically: true, encoding: .utf8)
        } catch {
          throw LocalServerError(.fileSystem, "cannot write \(config.path).", cause: error)
        }
        return (nginx, ["-p", runDirectory.path + "/", "-c", config.path, "-e", "stderr"])
      }
    }
  }

  // MARK: - Launching

  /// The ports of one attempt: the plain one every server has, and the TLS one of a server started with TLS material.
  private struct Ports {
    let plain: UInt16
    let tls: UInt16?
  }

  private func launch(
    _ server: LocalServers.Server,
    runDirectory: URL,
    tls: TLSMaterial? = nil,
    command: (Ports) throws(LocalServerError) -> (URL, [String])
  ) throws(LocalServerError) -> ServerProcess {
    var lastFailure: LocalServerError?
    for attempt in 1...Self.portAttempts {
      guard let free = Self.freePorts(count: tls == nil ? 1 : 2) else {
        throw LocalServerError(.startFailed, "no free port on 127.0.0.1 for \(server.rawValue).")
      }
      let ports = Ports(plain: free[0], tls: tls == nil ? nil : free[1])
      let port = ports.plain
      let (executable, arguments) = try command(ports)
      // nginx: TERM is its fast shutdown; gunicorn: TERM is graceful (a second or more), INT is quick; the fault
      // server ends at once on TERM (Python's default action).
      let stopSignal = server == .httpbin ? "INT" : "TERM"
      let logFile = runDirectory.appendingPathComponent("\(server.rawValue)-\(attempt).log")
      let (process, handle) = try ServerProcess.spawn(
        name: server.rawValue,
        executable: executable,
        arguments: arguments,
        stopSignal: stopSignal,
        port: port,
        logFile: logFile,
        configuration: configuration
      )
      switch waitUntilReady(server, process, isRunning: { handle.isRunning }) {
      case .ready:
        var process = process
        if let tls, let tlsPort = ports.tls {
          process.tls = ServerProcess.TLSEndpoint(port: tlsPort, material: tls)
        }
        return process
      case .portTaken:
        process.stop()
        let taken = ports.tls.map { "port \(port) or \($0)" } ?? "port \(port)"
        lastFailure = failure(.startFailed, server, process, "\(taken) was taken by another process")
      case .exited:
        let status = handle.terminationStatus
        process.stop()
        throw failure(.startFailed, server, process, "the process exited with status \(status) before it answered")
      case .timedOut:
        process.stop()
        throw failure(
          .notReady,
          server,
          process,
          "it did not answer on 127.0.0.1:\(port) within \(configuration.startTimeout)"
        )
      }
    }
    throw lastFailure ?? LocalServerError(.startFailed, "\(server.rawValue) did not start.")
  }

  /// `count` distinct ports that were free a moment ago, or nil when the kernel has none to give.
  private static func freePorts(count: Int) -> [UInt16]? {
    var ports: [UInt16] = []
    for _ in 0..<(count * 4) where ports.count < count {
      guard let port = LoopbackSocket.freePort() else { return nil }
      if !ports.contains(port) {
        ports.append(port)
      }
    }
    return ports.count == count ? ports : nil
  }

  private enum Readiness {
    case ready
    case portTaken
    case exited
    case timedOut
  }

  /// Polls the server's readiness path every 50 ms until it answers as expected, exits, or the timeout passes.
  private func waitUntilReady(
    _ server: LocalServers.Server,
    _ process: ServerProcess,
    isRunning: () -> Bool
  ) -> Readiness {
    let deadline = ContinuousClock.now + configuration.startTimeout
    let probePath: String
    switch server {
    case .httpbin: probePath = "/get"
    case .nginx: probePath = "/health"
    case .faults: probePath = "/ok"
    case .proxy: probePath = "/health"
    case .graphQL: probePath = "/health"
    }
    while ContinuousClock.now < deadline {
      guard isRunning() else {
        return portTaken(process) ? .portTaken : .exited
      }
      if let answer = LoopbackSocket.get(port: process.port, path: probePath), answer.status == 200 {
        // Our own server, not something else that took the port: nginx says ok, httpbin echoes the URL, the fault
        // server names itself.
        let ours: Bool
        switch server {
        case .httpbin: ours = answer.head.contains("\"url\"")
        case .nginx: ours = answer.head.hasSuffix("ok\n")
        case .faults: ours = answer.head.contains("Server: malibu-faults")
        case .proxy: ours = answer.head.contains("Server: malibu-proxy")
        case .graphQL: ours = answer.head.contains("Server: malibu-graphql")
        }
        if ours {
          return .ready
        }
      }
      if portTaken(process) {
        return .portTaken
      }
      Thread.sleep(forTimeInterval: 0.05)
    }
    return .timedOut
  }

  private func portTaken(_ process: ServerProcess) -> Bool {
    let output = process.outputTail(lines: 50)
    return output.contains("Address already in use") || output.contains("Connection in use")
  }

  private func failure(
    _ code: LocalServerError.Code,
    _ server: LocalServers.Server,
    _ process: ServerProcess,
    _ reason: String
  ) -> LocalServerError {
    LocalServerError(
      code,
      """
      \(server.rawValue) did not start: \(reason).
      Command: \(process.commandLine)
      Output (last lines of \(process.logFile.path)):
      \(process.outputTail())
      \(LocalServerError.fixHint(repositoryRoot: configuration.repositoryRoot))
      """
    )
  }

  // MARK: - Server commands

  private func httpbinArguments(port: UInt16, runDirectory: URL) -> [String] {
    [
      "-m", "gunicorn",
      "--bind", "127.0.0.1:\(port)",
      "--workers", String(configuration.httpbinWorkers),
      "--worker-class", "gthread",
      "--threads", String(configuration.httpbinThreads),
      "--keep-alive", "75",
      "--timeout", "120",
      "--graceful-timeout", "2",
      "--worker-tmp-dir", runDirectory.path,
      "--pid", runDirectory.appendingPathComponent("gunicorn.pid").path,
      "--chdir", runDirectory.path,
      "--error-logfile", "-",
      "--log-level", "info",
      "httpbin:app",
    ]
  }

  private func nginxTemplate() throws(LocalServerError) -> String {
    do {
      return try String(contentsOf: configuration.nginxTemplate, encoding: .utf8)
    } catch {
      throw LocalServerError(.fileSystem, "cannot read \(configuration.nginxTemplate.path).", cause: error)
    }
  }

  private func render(_ template: String, ports: Ports, runDirectory: URL, www: URL) -> String {
    template
      .replacingOccurrences(of: "@TLS_PORT@", with: ports.tls.map { String($0) } ?? "")
      .replacingOccurrences(of: "@PORT@", with: String(ports.plain))
      .replacingOccurrences(of: "@RUN_DIR@", with: runDirectory.path)
      .replacingOccurrences(of: "@WWW_DIR@", with: www.path)
      // As root, nginx would run its worker as `nobody`, who may not read a tree under /root.
      .replacingOccurrences(of: "@USER_DIRECTIVE@", with: geteuid() == 0 ? "user root;" : "")
  }

  /// Removes the run directories of test processes that are gone (killed before their exit handler ran).
  private func removeStaleRunDirectories() {
    let fileManager = FileManager.default
    guard let names = try? fileManager.contentsOfDirectory(atPath: configuration.stateDirectory.path) else { return }
    for name in names where name.hasPrefix("run-") {
      guard let pid = Int32(name.dropFirst(4)), pid != getpid() else { continue }
      if kill(pid, 0) != 0 && errno == ESRCH {
        try? fileManager.removeItem(at: configuration.stateDirectory.appendingPathComponent(name))
      }
    }
  }
}
