import Foundation
import HTTPTypes
import MalibuCore
import MalibuMocking
import MalibuTestSupport
import MalibuTransport
import MalibuTypedRequests
import Testing

/// Typed and GraphQL requests recorded through a cassette, then replayed with the server gone: the same decoded
/// values, and a GraphQL `errors` reply still a typed error.
@Suite("Typed requests over a cassette")
struct CassetteTypedRequestTests {
  typealias Bare = BareTransportTests

  @Test func typedAndGraphQLRequestsReplayTheirDecodedValues() async throws {
    try await withTemporaryDirectory(named: "malibu-typed-cassette") { directory in
      let server = MockTransport()
      Bare.serveBoards(on: server)
      Bare.servePosts(on: server)
      let recording = CassetteTransport(recording: directory, through: server)
      let titles = try await recording.send(Bare.BoardTitles(), baseUrl: Bare.base)
      let posts = try await recording.send(Bare.AllPosts(), baseUrl: Bare.base)

      server.reset()
      let replaying = CassetteTransport(replaying: directory)
      #expect(try await replaying.send(Bare.BoardTitles(), baseUrl: Bare.base) == titles)
      #expect(try await replaying.send(Bare.AllPosts(), baseUrl: Bare.base) == posts)
      #expect(server.recordedRequests.isEmpty)
      #expect(try replaying.recordings().map(\.name) == ["0001-GET-api-boards.json", "0002-POST-api-graphql.json"])
    }
  }

  @Test func aGraphQLErrorReplyReplaysAsTheTypedError() async throws {
    try await withTemporaryDirectory(named: "malibu-typed-cassette") { directory in
      let server = MockTransport()
      Bare.serveGraphQLError(on: server)
      let recording = CassetteTransport(recording: directory, through: server)
      await #expect(throws: NetworkError.self) {
        try await recording.send(Bare.AllPosts(), baseUrl: Bare.base)
      }
      let replaying = CassetteTransport(replaying: directory)
      let error = await #expect(throws: NetworkError.self) {
        try await replaying.send(Bare.AllPosts(), baseUrl: Bare.base)
      }
      #expect(error?.graphQLError?.errors.map(\.message) == ["no such field"])
    }
  }
}
