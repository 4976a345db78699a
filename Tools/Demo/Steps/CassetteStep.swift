import Foundation
import Malibu

/// A `CassetteTransport` records one exchange with httpbin (a bearer token in its header, echoed back in the body),
/// then replays it with no network: the same values, and the token in none of the cassette's files.
enum CassetteStep {
  static func run(_ options: DemoOptions) async throws {
    let cassette = FileManager.default.temporaryDirectory.appendingPathComponent("malibu-demo-cassette-\(UUID())")
    defer { try? FileManager.default.removeItem(at: cassette) }
    let token = "demo-token-\(UUID().uuidString.prefix(8))"

    let recording = Networking<HttpbinEndpoint>(
      transport: .custom(CassetteTransport(recording: cassette, through: CurlTransport.shared))
    )
    recording.authenticate(bearerToken: token)
    let live = try await recording.request(.echo(parameters: ["board": "balsa"])).validate()
      .decode(using: HttpbinEcho<Board>.self).value

    let replaying = Networking<HttpbinEndpoint>(transport: .custom(CassetteTransport(replaying: cassette)))
    replaying.authenticate(bearerToken: "another-token-\(UUID().uuidString.prefix(8))")
    let replayed = try await replaying.request(.echo(parameters: ["board": "balsa"])).validate()
      .decode(using: HttpbinEcho<Board>.self).value
    try expect(replayed.args == live.args && replayed.url == live.url, "the replay answered \(replayed)")

    let names = try FileManager.default.contentsOfDirectory(atPath: cassette.path).sorted()
    for name in names {
      let text = try String(contentsOf: cassette.appendingPathComponent(name), encoding: .utf8)
      try expect(!text.contains(token), "the token reached \(name)")
    }
    report("GET /get recorded through curl into \(names.joined(separator: " and ")), the token redacted")
    report(
      "replayed with no network: args \(replayed.args), echoed Authorization \(replayed.headers["Authorization"] ?? "none")"
    )
  }
}
