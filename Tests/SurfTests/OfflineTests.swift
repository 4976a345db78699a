import Foundation
import HTTPTypes
import Malibu
import Testing

@testable import SurfCore

/// `--offline` as HTTPie 3.2.4's: "With `--offline`, HTTPie builds a request based on the specified options and
/// arguments, prints it to `stdout`, and then exits. It works completely offline; no network connection is ever made."
/// (HTTPie's docs, "Offline mode"). The old meaning is `--store-if-unreachable`.
@Suite struct OfflineTests {
  static func surf() -> (Surf, URL) {
    let config = FileManager.default.temporaryDirectory.appendingPathComponent("surf-offline-\(UUID().uuidString)")
    let console = Console(inputIsTerminal: true, outputIsTerminal: false, errorIsTerminal: false)
    return (Surf(console: console, environment: ["XDG_CONFIG_HOME": config.path, "HOME": config.path]), config)
  }

  /// Port 9 on loopback refuses connections: a request that were sent would fail with exit status 1.
  static let refused = "http://127.0.0.1:9/boards/1"

  @Test func aDryRunOfADeleteSendsNothing() async throws {
    let (surf, config) = Self.surf()
    defer { try? FileManager.default.removeItem(at: config) }
    var options = SurfOptions()
    options.offline = true
    #expect(try await surf.send(["DELETE", Self.refused], options: options) == .success)

    let sending = SurfOptions()
    await #expect(throws: SurfError.self, "the same command without --offline reaches for the host") {
      try await surf.send(["DELETE", Self.refused], options: sending)
    }
  }

  @Test func theDryRunsRequestIsTheOneMalibuWouldSend() async throws {
    let (surf, config) = Self.surf()
    defer { try? FileManager.default.removeItem(at: config) }
    var options = SurfOptions()
    options.offline = true
    let networking = try surf.makeNetworking(options: options, cookies: nil, transport: .custom(DryRunTransport()))
    networking.authenticate(bearerToken: "t0ken")
    let spec = try RequestSpec(line: RequestLine(parsing: ["DELETE", Self.refused, "X-Board:2"]))
    let response = try await networking.request(SurfEndpoint(request: spec.request())).value
    #expect(response.statusCode == 204)
    #expect(response.request.method == .delete)
    #expect(response.request.path == "/boards/1")
    #expect(response.request.headerFields[HTTPField.Name("X-Board")!] == "2")
    let head = Formatter(pretty: Pretty(colors: false, format: false)).requestHead(response.request)
    #expect(head.hasPrefix("DELETE /boards/1\nHost: 127.0.0.1:9\n"), "\(head)")
  }

  @Test func storingWhenUnreachableIsItsOwnFlag() throws {
    var options = SurfOptions()
    options.storeIfUnreachable = true
    let spec = try RequestSpec(line: RequestLine(parsing: ["PUT", Self.refused, "board=balsa"]))
    let error = NetworkError(
      code: .transportFailed,
      message: "the transport failed",
      underlyingError: TransportError(code: .connectionRefused, message: "refused")
    )
    let stored = Surf().failure(error, options: options, spec: spec)
    #expect(stored.status == .storedOffline)
    #expect(stored.message.contains("the request is stored: `surf replay` sends it"))

    options.storeIfUnreachable = false
    options.offline = true
    #expect(Surf().failure(error, options: options, spec: spec).status == .error, "--offline stores nothing")
  }
}
