import Foundation
@_spi(Malibu) import MalibuCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One server started by the harness: `Tools/servers/supervise.sh TEST_PID COMMAND...`, which Foundation's `Process`
/// makes the leader of a new process group, so the server and its workers are stopped together by signalling the
/// group. Every group is recorded, and an `atexit` handler stops them all when the test process exits; if the process
/// dies without exiting (a crash, SIGKILL), the supervisor notices within a second and stops the server itself.
struct ServerProcess: Sendable {
  /// "nginx" or "httpbin".
  let name: String
  /// The loopback port the server listens on.
  let port: UInt16
  /// The supervisor's process id, which is also the process group of the server and its workers.
  let processGroup: Int32
  /// The command that was run, for error messages.
  let commandLine: String
  /// Where the server's stdout and stderr go.
  let logFile: URL

  /// The TLS port and its certificates, for a server that has one (nginx).
  var tls: TLSEndpoint?

  /// `http://127.0.0.1:PORT`.
  var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

  /// A server's second, TLS-only port.
  struct TLSEndpoint: Sendable {
    /// The loopback port.
    let port: UInt16
    /// The CA, certificate and pin the port's certificate belongs to.
    let material: TLSMaterial

    /// `https://127.0.0.1:PORT`.
    var baseURL: URL { URL(string: "https://127.0.0.1:\(port)")! }
  }

  /// Starts `executable arguments` under the supervisor, output to `logFile`, and records its process group.
  /// `stopSignal` ("TERM", "INT") is the server's fast-shutdown signal, which the supervisor sends it when stopped.
  /// The returned `Process` tells whether the supervisor (and so the server) is still running.
  static func spawn(
    name: String,
    executable: URL,
    arguments: [String],
    stopSignal: String,
    port: UInt16,
    logFile: URL,
    configuration: LocalServers.Configuration
  ) throws(LocalServerError) -> (ServerProcess, Process) {
    let commandLine = ([executable.path] + arguments).map(quoted).joined(separator: " ")
    guard FileManager.default.createFile(atPath: logFile.path, contents: nil),
      let output = try? FileHandle(forWritingTo: logFile)
    else {
      throw LocalServerError(.fileSystem, "cannot create \(logFile.path) for \(name)'s output.")
    }
    defer { try? output.close() }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments =
      [configuration.supervisor.path, String(getpid()), stopSignal, executable.path] + arguments
    process.currentDirectoryURL = logFile.deletingLastPathComponent()
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = output
    process.standardError = output
    var environment = ProcessInfo.processInfo.environment
    environment["PYTHONUNBUFFERED"] = "1"
    environment["PYTHONDONTWRITEBYTECODE"] = "1"
    process.environment = environment
    do {
      // posix_spawn hands the calling thread's signal mask to the child, and the threads of a Swift process block
      // most signals: a supervisor (and server) spawned from here would never see SIGTERM. Spawn unblocked.
      var everything = sigset_t()
      var previous = sigset_t()
      sigemptyset(&everything)
      pthread_sigmask(SIG_SETMASK, &everything, &previous)
      defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
      try process.run()
    } catch {
      throw LocalServerError(
        .startFailed,
        "\(name) did not start: cannot run the supervisor.\nCommand: \(commandLine)",
        cause: error
      )
    }
    let server = ServerProcess(
      name: name,
      port: port,
      processGroup: process.processIdentifier,
      commandLine: commandLine,
      logFile: logFile
    )
    ServerRegistry.record(process)
    return (server, process)
  }

  /// Stops the server and its workers: SIGTERM to the supervisor, which stops the server the fast way; SIGKILL to
  /// whatever is left of the group after `grace` seconds.
  func stop(grace: Double = 3) {
    ServerRegistry.stop(processGroup, grace: grace)
  }

  /// The last lines of the server's output, indented, for error messages.
  func outputTail(lines: Int = 30) -> String {
    guard let handle = try? FileHandle(forReadingFrom: logFile) else { return "  (no output file)" }
    defer { try? handle.close() }
    let size = (try? handle.seekToEnd()) ?? 0
    let start = size > 8192 ? size - 8192 : 0
    _ = try? handle.seek(toOffset: start)
    let data = (try? handle.readToEnd()) ?? Data()
    let text = String(decoding: data, as: UTF8.self)
    let tail = text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines)
    let body = tail.map { "  \($0)" }.joined(separator: "\n")
    return body.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? "  (no output)" : body
  }

  private static func quoted(_ argument: String) -> String {
    argument.contains(where: { $0 == " " || $0 == "'" || $0 == "\"" }) ? "'\(argument)'" : argument
  }
}

/// The process groups of every server this test process started, and its run directories: an `atexit` handler
/// stops the groups and removes the directories.
///
/// A group is signalled only while its supervisor's `Process` is running. Foundation reaps the supervisor only once
/// every process that inherited its status pipe (the server and its workers too) has exited; until then the
/// supervisor's pid, which is also the group id, cannot be reused, so a signal cannot reach a stranger.
enum ServerRegistry {
  private struct State {
    var groups: [Int32: Process] = [:]
    var runDirectories: Set<URL> = []
    var exitHandlerInstalled = false
  }

  private static let state = Locked(State())

  /// Remembers the group `process` leads, for the exit handler.
  static func record(_ process: Process) {
    update { $0.groups[process.processIdentifier] = process }
  }

  /// Remembers `runDirectory`, to be removed by the exit handler.
  static func record(runDirectory: URL) {
    update { $0.runDirectories.insert(runDirectory) }
  }

  /// The groups still recorded.
  static var groups: Set<Int32> { state.withLock { Set($0.groups.keys) } }

  /// Stops `group` and forgets it.
  static func stop(_ group: Int32, grace: Double) {
    let process = state.withLock { $0.groups.removeValue(forKey: group) }
    if let process {
      stop([group: process], grace: grace)
    }
  }

  /// Stops every recorded group and removes the run directories. Runs at exit.
  static func stopAll() {
    let (groups, runDirectories) = state.withLock { state in
      defer {
        state.groups = [:]
        state.runDirectories = []
      }
      return (state.groups, state.runDirectories)
    }
    stop(groups, grace: 3)
    for directory in runDirectories {
      try? FileManager.default.removeItem(at: directory)
    }
  }

  /// Applies `change` under the lock, installing the exit handler on first use.
  private static func update(_ change: (inout State) -> Void) {
    let install = state.withLock { state in
      change(&state)
      defer { state.exitHandlerInstalled = true }
      return !state.exitHandlerInstalled
    }
    if install {
      atexit { ServerRegistry.stopAll() }
    }
  }

  /// SIGTERM to each supervisor (which stops its server with the server's fast-shutdown signal), then SIGKILL to
  /// each group whose supervisor is still running after `grace` seconds.
  private static func stop(_ groups: [Int32: Process], grace: Double) {
    var remaining = groups.filter { $0.value.isRunning }
    for group in remaining.keys {
      _ = kill(group, SIGTERM)
    }
    let deadline = Date().addingTimeInterval(grace)
    while !remaining.isEmpty && Date() < deadline {
      usleep(10_000)
      remaining = remaining.filter { $0.value.isRunning }
    }
    for group in remaining.keys where kill(-group, SIGKILL) != 0 {
      // Not a group leader (a platform whose Process keeps the parent's group): at least the supervisor.
      _ = kill(group, SIGKILL)
    }
    // SIGKILL is not instant either: give the kernel a moment, so callers see the processes gone.
    let killDeadline = Date().addingTimeInterval(1)
    while !remaining.isEmpty && Date() < killDeadline {
      usleep(10_000)
      remaining = remaining.filter { $0.value.isRunning }
    }
  }
}
