import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A local server a step starts itself, run by `Tools/servers/supervise.sh`, which stops it if the demo dies without
/// stopping it: a second httpbin (gunicorn from the project's `.venv`) for the offline step, the fault server
/// (`Tools/servers/faults.py`) for the events step.
final class HttpbinServer: Sendable {
  /// The port it listens on, on 127.0.0.1.
  let port: Int
  /// Where its output goes.
  let logFile: URL
  private let supervisor: Process
  private let cleanupID: Int

  private init(port: Int, logFile: URL, supervisor: Process) {
    self.port = port
    self.logFile = logFile
    self.supervisor = supervisor
    cleanupID = Cleanup.shared.add { Self.stop(supervisor) }
  }

  /// Starts httpbin on `port`, writing its output to a file in `directory`.
  static func start(port: Int, options: DemoOptions, directory: URL) throws -> HttpbinServer {
    try launch(
      "httpbin",
      port: port,
      stopSignal: "INT",
      arguments: [
        "-m", "gunicorn",
        "--bind", "127.0.0.1:\(port)",
        "--workers", "1",
        "--worker-class", "gthread",
        "--threads", "4",
        "--graceful-timeout", "1",
        "--worker-tmp-dir", directory.path,
        "--error-logfile", "-",
        "httpbin:app",
      ],
      options: options,
      directory: directory
    )
  }

  /// Starts the fault server (`Tools/servers/faults.py`, Python's standard library only) on `port`.
  static func startFaults(port: Int, options: DemoOptions, directory: URL) throws -> HttpbinServer {
    let script = options.supervisor.deletingLastPathComponent().appendingPathComponent("faults.py")
    return try launch(
      "faults",
      port: port,
      stopSignal: "TERM",
      arguments: ["-u", script.path, String(port)],
      options: options,
      directory: directory
    )
  }

  /// Runs `python arguments` under the supervisor, its output in `<name>-<port>.log` in `directory`.
  private static func launch(
    _ name: String,
    port: Int,
    stopSignal: String,
    arguments: [String],
    options: DemoOptions,
    directory: URL
  ) throws -> HttpbinServer {
    guard FileManager.default.isExecutableFile(atPath: options.python.path) else {
      throw TourFailure("no Python at \(options.python.path) to run \(name) with; run `make setup-servers`")
    }
    let logFile = directory.appendingPathComponent("\(name)-\(port).log")
    guard FileManager.default.createFile(atPath: logFile.path, contents: nil) else {
      throw TourFailure("cannot create \(logFile.path)")
    }
    let output = try FileHandle(forWritingTo: logFile)
    defer { try? output.close() }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = [options.supervisor.path, String(getpid()), stopSignal, options.python.path] + arguments
    process.currentDirectoryURL = directory
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = output
    process.standardError = output
    var environment = ProcessInfo.processInfo.environment
    environment["PYTHONDONTWRITEBYTECODE"] = "1"
    process.environment = environment
    try Cleanup.shared.withDefaultSignals { try process.run() }
    return HttpbinServer(port: port, logFile: logFile, supervisor: process)
  }

  /// Whether the server (its supervisor) is still running.
  var isRunning: Bool {
    supervisor.isRunning
  }

  /// The last lines of its output.
  func outputTail() -> String {
    let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").suffix(8).map { "    \($0)" }.joined(separator: "\n")
  }

  /// Stops the server and waits until it is gone; safe to call more than once.
  func stop() {
    Cleanup.shared.run(cleanupID)
  }

  /// SIGTERM to the supervisor, which stops gunicorn the quick way (SIGINT) and waits for it; SIGKILL to the
  /// supervisor's process group (gunicorn and its worker too) if it is still there after 5 s.
  private static func stop(_ supervisor: Process) {
    guard supervisor.isRunning else { return }
    supervisor.terminate()
    for _ in 0..<100 where supervisor.isRunning {
      usleep(50_000)
    }
    if supervisor.isRunning {
      kill(-supervisor.processIdentifier, SIGKILL)
    }
  }
}
