import Foundation
import HTTPTypes
import MalibuCore
import MalibuMocking
import MalibuTransport
import MalibuTypedRequests
import Testing

/// Typed and GraphQL requests recorded through a cassette, then replayed with the server gone: the same decoded
/// values, and a GraphQL `errors` reply still a typed error.
@Suite("Typed requests over a cassette")
struct CassetteTypedRequestTests {
  @Test func typedAndGraphQLRequestsReplayTheirDecodedValues() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("malibu-typed-cassette-\(UUID())")
    defer { try? FileManager.default.removeItem(at: directory) }
    let server = MockTransport()
    server.stub(
      .get,
      "/api/boards",
      headerFields: BareTransportTests.json,
      body: Data(#"{"data":[{"id":1,"title":"Balsa"},{"id":2,"title":"Foam"}]}"#.utf8)
    )
    server.stub(
      .post,
      "/api/graphql",
      headerFields: BareTransportTests.json,
      body: Data(#"{"data":{"posts":[{"id":"7"}]}}"#.utf8)
    )
    let recording = CassetteTransport(recording: directory, through: server)
    let titles = try await recording.send(BareTransportTests.BoardTitles(), baseUrl: BareTransportTests.base)
    let posts = try await recording.send(BareTransportTests.AllPosts(), baseUrl: BareTransportTests.base)

    server.reset()
    let replaying = CassetteTransport(replaying: directory)
    #expect(try await replaying.send(BareTransportTests.BoardTitles(), baseUrl: BareTransportTests.base) == titles)
    #expect(try await replaying.send(BareTransportTests.AllPosts(), baseUrl: BareTransportTests.base) == posts)
    #expect(server.recordedRequests.isEmpty)
    #expect(try replaying.recordings().map(\.name) == ["0001-GET-api-boards.json", "0002-POST-api-graphql.json"])
  }

  @Test func aGraphQLErrorReplyReplaysAsTheTypedError() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("malibu-typed-cassette-\(UUID())")
    defer { try? FileManager.default.removeItem(at: directory) }
    let server = MockTransport()
    server.stub(
      .post,
      "/api/graphql",
      status: .badRequest,
      headerFields: BareTransportTests.json,
      body: Data(#"{"errors":[{"message":"no such field"}]}"#.utf8)
    )
    let recording = CassetteTransport(recording: directory, through: server)
    await #expect(throws: NetworkError.self) {
      try await recording.send(BareTransportTests.AllPosts(), baseUrl: BareTransportTests.base)
    }
    let replaying = CassetteTransport(replaying: directory)
    let error = await #expect(throws: NetworkError.self) {
      try await replaying.send(BareTransportTests.AllPosts(), baseUrl: BareTransportTests.base)
    }
    #expect(error?.graphQLError?.errors.map(\.message) == ["no such field"])
  }
}
