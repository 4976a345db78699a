import Foundation
import HTTPTypes
import Testing

@testable import Malibu

/// `Encodable` bodies through the facade, on MockTransport: what reaches the transport.
@Suite("Codable bodies")
struct CodableBodyTests {
  struct NewBoard: Codable, Sendable, Hashable {
    var title: String
    var lengthInFeet: Double
    var tags: [String]
  }

  /// An `Encodable` whose encoding always throws.
  struct Unencodable: Encodable, Sendable {
    struct Refused: Error {}
    func encode(to encoder: any Encoder) throws { throw Refused() }
  }

  private let board = NewBoard(title: "Balsa/Fish", lengthInFeet: 6.5, tags: ["fast"])

  private func send(_ request: Request) async throws -> MockTransport.RecordedRequest {
    let transport = makeTransport()
    _ = try await Networking<Probe>(transport: .custom(transport)).request(Probe(request)).value
    return try #require(transport.recordedRequests.first)
  }

  private func text(_ data: Data?) -> String? {
    data.map { String(decoding: $0, as: UTF8.self) }
  }

  @Test func postPutAndPatchSendAStructAsJSON() async throws {
    let requests = [
      Request.post("boards", body: board), .put("boards/1", body: board), .patch("boards/1", body: board),
    ]
    for request in requests {
      let sent = try await send(request)
      #expect(sent.head.method == request.method)
      #expect(text(sent.body) == #"{"lengthInFeet":6.5,"tags":["fast"],"title":"Balsa/Fish"}"#)
      #expect(sent.head.headerFields[.contentType] == "application/json")
    }
  }

  @Test func aTopLevelArrayIsAJSONArray() async throws {
    let sent = try await send(.post("boards/batch", body: [board, NewBoard(title: "B", lengthInFeet: 5, tags: [])]))
    #expect(
      text(sent.body)
        == #"[{"lengthInFeet":6.5,"tags":["fast"],"title":"Balsa/Fish"},{"lengthInFeet":5,"tags":[],"title":"B"}]"#
    )
  }

  @Test func anEncoderOfOnesOwnWritesTheJSON() async throws {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.outputFormatting = [.sortedKeys]
    let sent = try await send(.post("boards", body: board, encoder: encoder))
    #expect(text(sent.body) == #"{"length_in_feet":6.5,"tags":["fast"],"title":"Balsa\/Fish"}"#)
  }

  /// Form and multipart bodies take the value's fields; the request's parameters go into the query.
  @Test func formAndMultipartFromAStructAndParametersInTheQuery() async throws {
    let form = try await send(.post("boards", body: board, contentType: .formURLEncoded, parameters: ["draft": 1]))
    #expect(text(form.body) == "lengthInFeet=6.5&tags%5B%5D=fast&title=Balsa/Fish")
    #expect(form.head.headerFields[.contentType] == FormURLEncoder.formContentType)
    #expect(form.head.path == "/api/boards?draft=1")

    let multipart = try await send(.put("boards/1", body: board, contentType: .multipartFormData))
    #expect(multipart.head.headerFields[.contentType]?.hasPrefix("multipart/form-data; boundary=") == true)
    let body = try #require(text(multipart.body))
    #expect(body.contains("name=\"title\"\r\n\r\nBalsa/Fish\r\n"))
    #expect(body.contains("name=\"lengthInFeet\"\r\n\r\n6.5\r\n"))

    let json = try await send(.post("boards", body: board, parameters: ["draft": 1]))
    #expect(json.head.path == "/api/boards?draft=1")
  }

  /// A POST, PUT or PATCH with `.json` and no parameters sends `{}`; GET, HEAD and DELETE send nothing.
  @Test(arguments: [
    (Request.post("boards"), "{}" as String?),
    (.put("boards/1"), "{}"),
    (.patch("boards/1"), "{}"),
    (.delete("boards/1", contentType: .json), nil),
    (.get("boards"), nil),
    (.post("boards", contentType: .formURLEncoded), nil),
  ])
  func aBodilessJSONRequestSendsAnEmptyObjectOnlyForMethodsWithABody(request: Request, body: String?) async throws {
    let sent = try await send(request)
    #expect(text(sent.body) == body)
    #expect(sent.head.headerFields[.contentType] == (body == nil ? nil : "application/json"))
  }

  /// An `Encodable` that throws, or an array sent as a form, fails with `encodingFailed` before anything is sent;
  /// the networking then serves the next request.
  @Test(arguments: [
    Request.post("boards", body: Unencodable()),
    .post("boards", body: Unencodable(), contentType: .formURLEncoded),
    .post("boards", body: [1, 2], contentType: .formURLEncoded),
    .post("boards", body: ["x": Double.nan]),
  ])
  func anEncodingFailureIsAClearErrorAndTheNextRequestIsServed(request: Request) async throws {
    let transport = makeTransport()
    let networking = Networking<Probe>(transport: .custom(transport))
    let error = await networkError(networking.request(Probe(request)))
    #expect(error?.code == .encodingFailed)
    #expect(transport.recordedRequests.isEmpty)
    #expect(try await networking.request(Probe(.post("boards", body: board))).value.statusCode == 200)
    #expect(transport.recordedRequests.count == 1)
  }

  @Test func requestsWithBodiesCompareByWhatTheySend() {
    let one = Request.post("boards", body: board)
    #expect(one == .post("boards", body: board))
    #expect(one.hashValue == Request.post("boards", body: board).hashValue)
    #expect(one != .post("boards", body: NewBoard(title: "Other", lengthInFeet: 6.5, tags: ["fast"])))
    #expect(one != .post("boards", body: board, contentType: .formURLEncoded))
    #expect(one != .post("boards", parameters: ["title": "Balsa/Fish", "lengthInFeet": 6.5, "tags": ["fast"]]))
    #expect(Set([one, .post("boards", body: board), .put("boards", body: board)]).count == 2)
  }

  /// An `.offline` request with a body is stored and replayed with the same JSON.
  @Test func anOfflineRequestWithABodyIsReplayedWithTheSameJSON() async throws {
    let transport = makeTransport()
    transport.stub(.post, "/api/boards", error: TransportError(code: .connectionRefused, message: "refused"))
    let store = makeOfflineStore()
    let networking = Networking<Probe>(transport: .custom(transport), offlineStore: store)
    let request = Request.post("boards", body: [board], parameters: ["draft": 1], storePolicy: .offline)
    _ = await networkError(networking.request(Probe(request)))
    #expect(try store.all().count == 1)
    transport.reset()
    let outcomes = try await networking.replay().value
    #expect(outcomes.count == 1)
    let sent = transport.recordedRequests.map { (text($0.body), $0.head.path) }
    #expect(sent.count == 1)
    #expect(sent.first?.0 == #"[{"lengthInFeet":6.5,"tags":["fast"],"title":"Balsa/Fish"}]"#)
    #expect(sent.first?.1 == "/api/boards?draft=1")
    #expect(try store.all().isEmpty)
  }
}
