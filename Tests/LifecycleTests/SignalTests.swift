#if Lifecycle
import Foundation
@_spi(Malibu) import MalibuCore
import MalibuTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension LifecycleTests {
  /// A server process (the `MalibuLifecycleFixture` executable: a `ServiceGroup` with `MalibuService` over a
  /// `Networking` and its `CurlTransport`) gets `SIGTERM` in the middle of a transfer. The signal goes to a child
  /// process, never to the test runner, whose other tests it would stop.
  @Suite struct Signals {
    /// The transfer completes within the grace period; afterwards new requests are refused with `shutDown`, no curl
    /// thread is left and no descriptor opened since the start is still open.
    @Test(.timeLimit(.minutes(3))) func sigtermMidTransferCompletesWithinTheGracePeriod() async throws {
      let server = try TestServer(echo: .body)
      defer { server.stop() }
      let lines = try await runFixture(
        url: server.url("/drip?chunks=10&size=2000&delay=60"),
        gracePeriodMilliseconds: 60_000,
        signalWhen: { server.requests.contains { $0.path == "/drip" } }
      )
      #expect(lines.contains("COMPLETED 20000"), "\(lines)")
      expectCleanExit(lines)
      let drip = try #require(server.requests.first { $0.path == "/drip" })
      #expect(drip.method == "GET")
    }

    /// The transfer outlasts the grace period: it is cancelled after it, and the process still ends cleanly.
    @Test(.timeLimit(.minutes(3))) func sigtermMidTransferCancelsAfterTheGracePeriod() async throws {
      let server = try TestServer(echo: .body)
      defer { server.stop() }
      let lines = try await runFixture(
        url: server.url("/stall-body?size=100000&sent=100"),
        gracePeriodMilliseconds: 300,
        signalWhen: { server.requests.contains { $0.path == "/stall-body" } }
      )
      #expect(lines.contains("FAILED cancelled"), "\(lines)")
      expectCleanExit(lines)
      try await expectNoConnectionLeft(on: server)
    }

    private func expectCleanExit(_ lines: [String], sourceLocation: SourceLocation = #_sourceLocation) {
      #expect(lines.contains("REFUSED shutDown shutDown"), "\(lines)", sourceLocation: sourceLocation)
      #expect(lines.contains("LOOPS 0"), "\(lines)", sourceLocation: sourceLocation)
      #expect(lines.contains("LEAKED "), "\(lines)", sourceLocation: sourceLocation)
      #expect(lines.last == "EXIT", "\(lines)", sourceLocation: sourceLocation)
    }

    /// Runs the fixture against `url`, sends it `SIGTERM` once it said `READY` and `signalWhen` holds (again, until
    /// it says the shutdown began: the group installs its signal handling in steps), and returns what it printed once
    /// it has exited (with status 0).
    private func runFixture(
      url: URL,
      gracePeriodMilliseconds: Int,
      signalWhen ready: @escaping @Sendable () -> Bool
    ) async throws -> [String] {
      let executable = try fixtureExecutable()
      let child = Process()
      child.executableURL = executable
      child.arguments = [url.absoluteString, String(gracePeriodMilliseconds)]
      let output = Pipe()
      child.standardOutput = output
      child.standardError = FileHandle.nullDevice
      try child.run()
      let printed = Printed()
      let handle = output.fileHandleForReading
      let reader = Thread {
        while true {
          let chunk = handle.availableData
          if chunk.isEmpty { break }
          printed.append(chunk)
        }
        printed.close()
      }
      reader.start()
      defer {
        if child.isRunning { kill(child.processIdentifier, SIGKILL) }
      }

      for _ in 0..<6000 where !printed.contains("READY") && !printed.isClosed {
        try await Task.sleep(for: .milliseconds(10))
      }
      try #require(printed.contains("READY"), "the fixture did not start: \(printed.text)")
      for _ in 0..<3000 where !ready() {
        try await Task.sleep(for: .milliseconds(10))
      }
      try #require(ready(), "the fixture never sent its request")
      for _ in 0..<10 where !printed.contains("SHUTDOWN") && !printed.isClosed {
        kill(child.processIdentifier, SIGTERM)
        for _ in 0..<200 where !printed.contains("SHUTDOWN") && !printed.isClosed {
          try await Task.sleep(for: .milliseconds(10))
        }
      }
      try #require(printed.contains("SHUTDOWN"), "SIGTERM did not start the shutdown: \(printed.text)")
      for _ in 0..<6000 where !printed.isClosed {
        try await Task.sleep(for: .milliseconds(10))
      }
      try #require(printed.isClosed, "the fixture did not exit: \(printed.text)")
      child.waitUntilExit()
      #expect(child.terminationReason == .exit && child.terminationStatus == 0, "\(printed.text)")
      return printed.text.split(separator: "\n").map(String.init)
    }

    /// The fixture executable, built next to the test bundle by `swift build --build-tests`.
    private func fixtureExecutable() throws -> URL {
      #if os(Linux)
      let me = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
      #else
      let me = URL(fileURLWithPath: CommandLine.arguments[0])
      #endif
      var directory = me.deletingLastPathComponent()
      while directory.pathComponents.count > 1,
        directory.pathExtension == "xctest" || directory.lastPathComponent == "MacOS"
          || directory.lastPathComponent == "Contents"
      {
        directory = directory.deletingLastPathComponent()
      }
      let fixture = directory.appendingPathComponent("MalibuLifecycleFixture")
      try #require(
        FileManager.default.isExecutableFile(atPath: fixture.path),
        "no \(fixture.path): build it with `swift build --build-tests` (it is a target of the package, not a product)"
      )
      return fixture
    }
  }
}

/// What a child process printed, appended by the thread that reads its output.
private final class Printed: Sendable {
  private let state = Locked<(text: String, closed: Bool)>(("", false))

  var text: String { state.withLock { $0.text } }
  var isClosed: Bool { state.withLock { $0.closed } }

  func append(_ data: Data) {
    state.withLock { $0.text += String(decoding: data, as: UTF8.self) }
  }

  func close() {
    state.withLock { $0.closed = true }
  }

  /// Whether a whole line reads `line`.
  func contains(_ line: String) -> Bool {
    text.split(separator: "\n").contains { $0 == line }
  }
}
#endif
