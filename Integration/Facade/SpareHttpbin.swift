import Foundation
import Testing

/// A second httpbin on a port the test chose, started by the harness's supervisor (stopped with ``stop()`` or when
/// the process exits): the offline tests store a request for a port that refuses connections, then bring the
/// server up on that very port.
struct SpareHttpbin {
  let process: ServerProcess
  let directory: TemporaryDirectory

  /// Starts httpbin on 127.0.0.1:`port` and returns once it answers `/get`.
  static func start(port: UInt16) async throws -> SpareHttpbin {
    let configuration = try LocalServers.Configuration.default()
    let python = try configuration.resolvedPython()
    let directory = try TemporaryDirectory("malibu-spare-httpbin")
    let arguments = [
      "-m", "gunicorn", "--bind", "127.0.0.1:\(port)", "--workers", "1", "--worker-class", "gthread",
      "--threads", "4", "--worker-tmp-dir", directory.url.path, "--chdir", directory.url.path,
      "--error-logfile", "-", "httpbin:app",
    ]
    let (process, handle) = try ServerProcess.spawn(
      name: "httpbin",
      executable: python,
      arguments: arguments,
      stopSignal: "INT",
      port: port,
      logFile: directory.url.appendingPathComponent("httpbin.log"),
      configuration: configuration
    )
    let spare = SpareHttpbin(process: process, directory: directory)
    for _ in 0..<200 {
      if let answer = LoopbackSocket.get(port: port, path: "/get"), answer.status == 200 { return spare }
      guard handle.isRunning else { break }
      try await Task.sleep(for: .milliseconds(100))
    }
    let output = process.outputTail()
    spare.stop()
    throw LocalServerError(.notReady, "the spare httpbin did not answer on 127.0.0.1:\(port):\n\(output)")
  }

  func stop() {
    process.stop(grace: 1)
    directory.remove()
  }
}
