import Foundation
import HTTPTypes
import MalibuMocking
import MalibuTransport
import Testing

/// `surf --record DIR` writes the cassette a test suite replays with `CassetteTransport`, and `surf --replay DIR`
/// answers from it with no network.
@Suite(.serialized) struct SurfCassetteTests {
  let sandbox: SurfSandbox

  init() throws {
    sandbox = try SurfSandbox()
  }

  @Test func aCassetteRecordedBySurfServesATestSuite() async throws {
    defer { sandbox.remove() }
    let cassette = sandbox.work.appendingPathComponent("cassette")
    let target = try await Servers.httpbin("/get").absoluteString
    let password = "w4ve-secret-pass"
    let recorded = try await sandbox.run([
      "--record", cassette.path, "-a", "surfer:\(password)", target, "board==balsa",
    ])
    #expect(recorded.status == 0, "\(recorded)")
    #expect(try recorded.json()["args"] as? [String: String] == ["board": "balsa"])

    let replayed = try await sandbox.run(["--replay", cassette.path, target, "board==balsa"])
    #expect(replayed.status == 0, "\(replayed)")
    #expect(try replayed.json()["args"] as? [String: String] == ["board": "balsa"])

    // The test suite's own transport replays what surf recorded.
    let replay = CassetteTransport(replaying: cassette)
    let (head, data, _) = try await replay.data(
      for: HTTPRequest(method: .get, url: URL(string: target + "?board=balsa")!)
    )
    #expect(head.status == .ok)
    #expect(String(decoding: data, as: UTF8.self).contains("balsa"))

    // The credentials reached no file.
    let basic = Data("surfer:\(password)".utf8).base64EncodedString()
    for name in try FileManager.default.contentsOfDirectory(atPath: cassette.path) {
      let text = try String(contentsOf: cassette.appendingPathComponent(name), encoding: .utf8)
      #expect(!text.contains(password) && !text.contains(basic), "\(name)")
    }

    // A request surf did not record fails, naming the nearest recording.
    let missing = try await sandbox.run(["--replay", cassette.path, target, "board==foam"])
    #expect(missing.status != 0, "\(missing)")
    #expect(missing.stderr.contains("the nearest is 0001-GET-get.json"), "\(missing)")
  }
}
