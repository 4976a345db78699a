import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A second httpbin the offline step starts itself: gunicorn from the project's `.venv`, run by
/// `Tools/servers/supervise.sh`, which stops it if the demo dies without stopping it.
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
    guard FileManager.default.isExecutableFile(atPath: options.python.path) else {
      throw TourFailure("no Python at \(options.python.path) to run httpbin with; run `make setup-servers`")
    }
    let logFile = directory.appendingPathComponent("httpbin-\(port).log")
    guard FileManager.default.createFile(atPath: logFile.path, contents: nil) else {
      throw TourFailure("cannot create \(logFile.path)")
    }
    let output = try FileHandle(forWritingTo: logFile)
    defer { try? output.close() }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = [
      options.supervisor.path, String(getpid()), "INT", options.python.path,
      "-m", "gunicorn",
      "--bind", "127.0.0.1:\(port)",
      "--workers", "1",
      "--worker-class", "gthread",
      "--threads", "4",
      "--graceful-timeout", "1",
      "--worker-tmp-dir", directory.path,
      "--error-logfile", "-",
      "httpbin:app",
    ]
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
