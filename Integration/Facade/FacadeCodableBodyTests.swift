import Foundation
import Malibu
import Testing

/// `Encodable` bodies on both transports, checked against httpbin's echo (`/anything` returns the body it got).
@Suite("Facade: Codable bodies")
struct FacadeCodableBodyTests {
  struct NewBoard: Codable, Sendable {
    var title: String
    var lengthInFeet: Double
    var tags: [String]
  }

  struct Unencodable: Encodable, Sendable {
    struct Refused: Error {}
    func encode(to encoder: any Encoder) throws { throw Refused() }
  }

  private let board = NewBoard(title: "Wave Rider", lengthInFeet: 6.5, tags: ["fast", "blue"])

  private func echo(_ request: Request, _ backend: Backend) async throws -> [String: any Sendable] {
    try await FacadeServer.start()
    let networking = Networking<HttpbinProbe>(transport: backend.kind)
    return try await networking.request(HttpbinProbe(request)).validate().toJsonDictionary().value
  }

  @Test(arguments: Backend.allCases)
  func aStructAndAnArrayArriveAsJSON(_ backend: Backend) async throws {
    let single = try await echo(.post("anything/boards", body: board, parameters: ["draft": 1]), backend)
    #expect(single["data"] as? String == #"{"lengthInFeet":6.5,"tags":["fast","blue"],"title":"Wave Rider"}"#)
    #expect(single["method"] as? String == "POST")
    #expect((single["args"] as? [String: any Sendable])?["draft"] as? String == "1")
    let headers = try #require(single["headers"] as? [String: any Sendable])
    #expect(headers["Content-Type"] as? String == "application/json")

    let many = try await echo(.put("anything/boards", body: [board, board]), backend)
    let json = try #require(many["json"] as? [[String: any Sendable]])
    #expect(json.count == 2)
    #expect(json.first?["title"] as? String == "Wave Rider")
  }

  @Test(arguments: Backend.allCases)
  func aStructAsAFormAndAsMultipart(_ backend: Backend) async throws {
    let form = try await echo(.patch("anything/boards/1", body: board, contentType: .formURLEncoded), backend)
    let fields = try #require(form["form"] as? [String: any Sendable])
    #expect(fields["title"] as? String == "Wave Rider")
    #expect(fields["lengthInFeet"] as? String == "6.5")

    let multipart = try await echo(.post("anything/boards", body: board, contentType: .multipartFormData), backend)
    let parts = try #require(multipart["form"] as? [String: any Sendable])
    #expect(parts["title"] as? String == "Wave Rider")
  }

  /// The decision for a bodiless JSON POST: `{}` on the wire.
  @Test(arguments: Backend.allCases)
  func aBodilessJSONPostSendsAnEmptyObject(_ backend: Backend) async throws {
    let echoed = try await echo(.post("anything/boards"), backend)
    #expect(echoed["data"] as? String == "{}")
    let headers = try #require(echoed["headers"] as? [String: any Sendable])
    #expect(headers["Content-Type"] as? String == "application/json")
    #expect(headers["Content-Length"] as? String == "2")
  }

  @Test(arguments: Backend.allCases)
  func aBodyThatCannotBeEncodedFailsAndTheNextRequestGoesThrough(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let networking = Networking<HttpbinProbe>(transport: backend.kind)
    let error = await rejection(networking.request(HttpbinProbe(.post("anything", body: Unencodable()))))
    #expect(error?.code == .encodingFailed)
    #expect(error?.underlyingError is Unencodable.Refused)
    let next = try await networking.request(HttpbinProbe(.post("anything", body: board))).validate().toJsonDictionary()
      .value
    #expect((next["json"] as? [String: any Sendable])?["title"] as? String == "Wave Rider")
  }
}
