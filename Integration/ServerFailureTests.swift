import Foundation
import Testing

/// A server that cannot start fails loudly: the error names what is missing or shows the server's output, and always
/// says which command fixes the machine. Each test uses its own `LocalServers`, never the shared one.
@Suite("Local servers that cannot start")
struct ServerFailureTests {
  private static func configuration() throws -> LocalServers.Configuration {
    try LocalServers.Configuration.default()
  }

  @Test("a missing program is a clear error", arguments: LocalServers.Server.allCases)
  func missingProgram(server: LocalServers.Server) async throws {
    var configuration = try Self.configuration()
    configuration.nginxExecutable = URL(fileURLWithPath: "/nonexistent/sbin/nginx")
    configuration.virtualEnvironment = URL(fileURLWithPath: "/nonexistent/.venv")
    let servers = LocalServers(configuration: configuration)

    let error = await #expect(throws: LocalServerError.self) {
      _ = try await servers.baseURL(of: server)
    }
    #expect(error?.code == .executableMissing)
    let text = error?.description ?? ""
    #expect(text.contains(server == .nginx ? "/nonexistent/sbin/nginx" : "/nonexistent/.venv"))
    #expect(text.contains("Tools/scripts/setup-servers.sh"))
    #expect(text.contains("make setup-servers"))

    // The failure is remembered: the next caller gets the same error at once.
    let again = await #expect(throws: LocalServerError.self) {
      _ = try await servers.baseURL(of: server)
    }
    #expect(again?.code == .executableMissing)
  }

  @Test("a program that dies at start shows its output and the command")
  func programDiesAtStart() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("malibu-fake-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let fake = folder.appendingPathComponent("nginx")
    try "#!/bin/sh\necho 'nginx: [emerg] simulated failure for the harness test' >&2\nexit 3\n"
      .write(to: fake, atomically: true, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: fake.path)

    var configuration = try Self.configuration()
    configuration.nginxExecutable = fake
    let servers = LocalServers(configuration: configuration)
    let error = await #expect(throws: LocalServerError.self) {
      _ = try await servers.nginx()
    }
    #expect(error?.code == .startFailed)
    let text = error?.description ?? ""
    #expect(text.contains("simulated failure for the harness test"))
    #expect(text.contains("exited with status 3"))
    #expect(text.contains("Command: \(fake.path) -p "))
    #expect(text.contains("Tools/scripts/setup-servers.sh"))
  }

  @Test("a program that never answers times out with its output")
  func programNeverAnswers() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("malibu-fake-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let fake = folder.appendingPathComponent("nginx")
    try "#!/bin/sh\necho 'listening nowhere' >&2\nwhile :; do sleep 1; done\n"
      .write(to: fake, atomically: true, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: fake.path)

    var configuration = try Self.configuration()
    configuration.nginxExecutable = fake
    configuration.startTimeout = .milliseconds(500)
    let servers = LocalServers(configuration: configuration)
    let error = await #expect(throws: LocalServerError.self) {
      _ = try await servers.nginx()
    }
    #expect(error?.code == .notReady)
    #expect(error?.description.contains("listening nowhere") == true)
    // The stuck process was stopped, not left behind.
    #expect(Self.processes(mentioning: folder.path).isEmpty)
  }

  /// The ids of the processes whose command line contains `text` (Linux's /proc; empty elsewhere).
  private static func processes(mentioning text: String) -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return names.filter { name in
      guard name.allSatisfy(\.isNumber),
        let data = FileManager.default.contents(atPath: "/proc/\(name)/cmdline")
      else { return false }
      return String(decoding: data, as: UTF8.self).contains(text)
    }
  }
}
