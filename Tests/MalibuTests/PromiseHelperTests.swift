import Malibu
import Testing

/// The NetworkPromise helpers, over a MockTransport.
@Suite("NetworkPromise helpers")
struct PromiseHelperTests {
  private func networking(
    status: HTTPResponse.Status = .ok,
    headerFields: HTTPFields = jsonHeaders,
    body: Data = boardsJSON
  ) -> Networking<Probe> {
    let transport = MockTransport(
      fallback: MockTransport.Reply(status: status, headerFields: headerFields, body: body)
    )
    return Networking<Probe>(transport: .custom(transport))
  }

  @Test func toStringOnA404GivesItsBodyTextAndValidateTurnsItIntoAnError() async throws {
    let page = networking(
      status: .notFound,
      headerFields: [.contentType: "text/plain"],
      body: Data("no such board".utf8)
    )
    #expect(try await page.request(Probe(.get("boards/404"))).toString().value == "no such board")
    // An empty 404 is "" like any empty body: the status is validate()'s to check.
    let empty = networking(status: .notFound, headerFields: [:], body: Data())
    #expect(try await empty.request(Probe(.get("boards/404"))).toString().value == "")
    for networking in [page, empty] {
      let error = try #require(await networkError(networking.request(Probe(.get("boards/404"))).validate().toString()))
      #expect(error.code == .unacceptableStatusCode)
      #expect(error.message == "status 404 is not one of 200..<300")
      #expect(error.localizedDescription == "status 404 is not one of 200..<300")
      #expect(
        error.description == "NetworkError.unacceptableStatusCode: status 404 is not one of 200..<300 [status 404]"
      )
      #expect(error.response?.statusCode == 404)
    }
    let error = await networkError(page.request(Probe(.get("boards/404"))).validate().toString())
    #expect(error?.response?.data == Data("no such board".utf8))
  }

  @Test func serializers() async throws {
    let promise = networking().request(Probe(.get("boards")))
    #expect(try await promise.toData().value == boardsJSON)
    #expect(try await promise.toString().value == String(decoding: boardsJSON, as: UTF8.self))
    let array = try await promise.toJsonArray().value
    #expect((array.first as? [String: any Sendable])?["id"] as? Int == 1)
    #expect(try await promise.decode(using: [Board].self).value.map(\.title) == ["Balsa Fish", "Wave Rider"])
    let object = networking(body: Data(#"{"id":3,"title":"Longboard"}"#.utf8)).request(Probe(.get("boards/3")))
    #expect(try await object.toJsonDictionary().value["title"] as? String == "Longboard")
    #expect(
      try await object.decode(using: Board.self, decoder: JSONDecoder()).value == Board(id: 3, title: "Longboard")
    )
  }

  @Test func validationFailuresCarryTheResponse() async throws {
    let failing = networking(status: .internalServerError, body: Data("boom".utf8))
    let status = await networkError(failing.request(Probe(.get("boards"))).validate())
    #expect(status?.code == .unacceptableStatusCode)
    #expect(status?.response?.data == Data("boom".utf8))
    #expect(status?.response?.statusCode == 500)
    let codes = await networkError(networking().request(Probe(.get("boards"))).validate(statusCodes: [201]))
    #expect(codes?.code == .unacceptableStatusCode)
    let types = await networkError(networking().request(Probe(.get("boards"))).validate(contentTypes: ["text/*"]))
    #expect(types?.code == .unacceptableContentType)
    let accept = await networkError(
      networking(headerFields: [.contentType: "text/html"]).request(Probe(.get("boards"))).validate()
    )
    #expect(accept?.code == .unacceptableContentType)
    let custom = await networkError(networking().request(Probe(.get("boards"))).validate(using: CustomValidator()))
    #expect(custom?.message == "not checked")
  }

  @Test func serializationFailuresCarryTheResponse() async throws {
    let broken = networking(body: Data("{not json".utf8))
    let json = await networkError(broken.request(Probe(.get("boards"))).toJsonDictionary())
    #expect(json?.code == .jsonSerializationFailed)
    #expect(json?.response?.data == Data("{not json".utf8))
    let decoded = await networkError(broken.request(Probe(.get("boards"))).decode(using: Board.self))
    #expect(decoded?.code == .decodingFailed)
    let shape = await networkError(networking().request(Probe(.get("boards"))).toJsonDictionary())
    #expect(shape?.code == .unexpectedJSONShape)
    let empty = await networkError(networking(body: Data()).request(Probe(.get("boards"))).toJsonArray())
    #expect(empty?.code == .emptyResponse)
  }

  @Test func aFailedRequestSkipsTheHelpers() async throws {
    let networking = networking()
    let error = await networkError(networking.request(Probe(.get("http://"))).validate().toData())
    #expect(error?.code == .invalidURL)
  }
}
