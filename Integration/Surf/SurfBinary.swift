import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One finished run of the built `surf` binary.
struct SurfRun: Sendable, CustomStringConvertible {
  let status: Int32
  let stdout: Data
  let stderr: String

  var text: String { String(decoding: stdout, as: UTF8.self) }

  /// Standard output as httpbin's JSON echo.
  func json() throws -> [String: any Sendable] {
    let object = try JSONSerialization.jsonObject(with: stdout)
    return try #require(object as? [String: any Sendable], "not a JSON object: \(text.prefix(300)) / \(stderr)")
  }

  var description: String { "exit \(status)\nstdout: \(text.prefix(500))\nstderr: \(stderr.prefix(500))" }
}

/// The `surf` executable of this build (the test target depends on it, so `swift build --build-tests` builds it into
/// the same products directory as the test bundle), run in a sandbox: a temporary working directory and a
/// temporary `HOME` and `XDG_CONFIG_HOME`, so that sessions and the offline store never touch the user's.
struct SurfSandbox: Sendable {
  let directory: URL
  var home: URL { directory.appendingPathComponent("home") }
  var config: URL { directory.appendingPathComponent("config") }
  var work: URL { directory.appendingPathComponent("work") }

  init() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("surf-e2e-\(UUID().uuidString)")
    for folder in [home, config, work] {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }
  }

  func remove() {
    try? FileManager.default.removeItem(at: directory)
  }

  /// The binary, beside the test bundle in the build products directory.
  static func binary() throws -> URL {
    let products =
      Bundle.main.bundleURL.pathExtension == "xctest"
      ? Bundle.main.bundleURL.deletingLastPathComponent()
      : URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    var candidates = [products.appendingPathComponent("surf")]
    // Swift Testing's runner may be started from the bundle itself (`….xctest`): its parent is the products folder.
    candidates.append(products.deletingLastPathComponent().appendingPathComponent("surf"))
    for candidate in candidates where FileManager.default.isExecutableFile(atPath: candidate.path) {
      return candidate
    }
    Issue.record("the surf binary is not in \(products.path); build it first: swift build --build-tests")
    throw SurfBinaryMissing()
  }

  struct SurfBinaryMissing: Error {}

  var environment: [String: String] {
    var environment = ProcessInfo.processInfo.environment
    environment["HOME"] = home.path
    environment["XDG_CONFIG_HOME"] = config.path
    // Proxies from the environment would send loopback requests elsewhere.
    for name in ["http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"] {
      environment[name] = nil
    }
    return environment
  }

  /// Starts `surf` with `arguments`; standard input from `input` (else `/dev/null`).
  func start(_ arguments: [String], input: Data? = nil) throws -> (Process, stdout: URL, stderr: URL) {
    let process = Process()
    process.executableURL = try Self.binary()
    process.arguments = arguments
    process.environment = environment
    process.currentDirectoryURL = work
    let id = UUID().uuidString
    let stdout = directory.appendingPathComponent("stdout-\(id)")
    let stderr = directory.appendingPathComponent("stderr-\(id)")
    _ = FileManager.default.createFile(atPath: stdout.path, contents: nil)
    _ = FileManager.default.createFile(atPath: stderr.path, contents: nil)
    process.standardOutput = try FileHandle(forWritingTo: stdout)
    process.standardError = try FileHandle(forWritingTo: stderr)
    if let input {
      let file = directory.appendingPathComponent("stdin-\(id)")
      try input.write(to: file)
      process.standardInput = try FileHandle(forReadingFrom: file)
    } else {
      process.standardInput = FileHandle.nullDevice
    }
    try process.run()
    return (process, stdout, stderr)
  }

  /// Runs `surf` under a pseudo-terminal, through util-linux's `script`, and returns what the terminal received
  /// (standard output and standard error together, as a terminal shows them).
  func runUnderTerminal(_ arguments: [String]) async throws -> SurfRun {
    let script = URL(fileURLWithPath: "/usr/bin/script")
    guard FileManager.default.isExecutableFile(atPath: script.path) else {
      Issue.record("util-linux's `script` is missing: apt-get install -y bsdutils")
      throw SurfBinaryMissing()
    }
    let quoted = ([try Self.binary().path] + arguments).map {
      "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
    let process = Process()
    process.executableURL = script
    // -q quiet, -e the command's exit status, -f flush as it goes, -c the command; the typescript file is not needed.
    process.arguments = ["-qefc", "stty cols 100 2>/dev/null; " + quoted.joined(separator: " "), "/dev/null"]
    process.environment = environment
    process.currentDirectoryURL = work
    let id = UUID().uuidString
    let stdout = directory.appendingPathComponent("tty-\(id)")
    _ = FileManager.default.createFile(atPath: stdout.path, contents: nil)
    process.standardOutput = try FileHandle(forWritingTo: stdout)
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    try await Self.wait(for: process)
    return SurfRun(status: process.terminationStatus, stdout: try Data(contentsOf: stdout), stderr: "")
  }

  /// Runs `surf` to its end.
  func run(_ arguments: [String], input: Data? = nil) async throws -> SurfRun {
    let (process, stdout, stderr) = try start(arguments, input: input)
    try await Self.wait(for: process)
    return SurfRun(
      status: process.terminationStatus,
      stdout: try Data(contentsOf: stdout),
      stderr: String(decoding: try Data(contentsOf: stderr), as: UTF8.self)
    )
  }

  /// Waits for a process without blocking a thread of the cooperative pool; kills it after 60 s.
  static func wait(for process: Process) async throws {
    let deadline = ContinuousClock.now + .seconds(60)
    while process.isRunning {
      if ContinuousClock.now > deadline {
        process.terminate()
        Issue.record("surf did not finish within 60 s")
        break
      }
      try await Task.sleep(for: .milliseconds(20))
    }
    process.waitUntilExit()
  }
}
