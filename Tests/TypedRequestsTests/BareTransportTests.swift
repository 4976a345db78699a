import Foundation
import HTTPTypes
import MalibuCore
import MalibuMocking
import MalibuSerialization
import MalibuTransport
import MalibuTypedRequests
import Testing

/// Typed and GraphQL requests sent with a bare transport (no `Networking`): built, sent, checked and decoded by the
/// request's own `decodeRaw(from:defaultKeyPath:)`.
@Suite("Typed requests on a bare transport")
struct BareTransportTests {
  struct Board: Decodable, Sendable, Equatable {
    let id: Int
    let title: String
  }

  /// A REST request whose resource sits under `data`, finalized into its titles.
  struct BoardTitles: TypedRequest {
    typealias RawResource = [Board]
    typealias FinalResource = [String]
    var method: HTTPRequest.Method { .get }
    var path: String { "boards" }
    var parameters: [String: Int] { ["type": 1] }
    var resourceKeyPath: ResourceKeyPath? { "data" }
    func finalize(raw: [Board]) async throws -> [String] { raw.map(\.title) }
  }

  /// A REST request whose resource is the whole body, with a fallback for an error envelope.
  struct OneBoard: TypedRequest {
    struct Failure: Decodable, Sendable { let reason: String }
    typealias RawResource = Board
    typealias FallbackResource = Failure
    var method: HTTPRequest.Method { .get }
    var path: String { "boards/1" }
  }

  struct PostsData: Decodable, Sendable, Equatable {
    struct Post: Decodable, Sendable, Equatable { let id: String }
    let posts: [Post]
  }

  struct AllPosts: GraphQLRequest {
    typealias RawResource = PostsData
    var query: GraphQLQuery { "{ posts { id } }" }
  }

  static let json: HTTPFields = [.contentType: "application/json"]
  static let base = "http://127.0.0.1:1/api/"

  /// `/api/boards`: two boards under `data`, for ``BoardTitles``.
  static func serveBoards(on transport: MockTransport) {
    transport.stub(
      .get,
      "/api/boards",
      headerFields: json,
      body: Data(#"{"data":[{"id":1,"title":"Balsa"},{"id":2,"title":"Foam"}]}"#.utf8)
    )
  }

  /// `/api/graphql`: one post, for ``AllPosts``.
  static func servePosts(on transport: MockTransport) {
    transport.stub(.post, "/api/graphql", headerFields: json, body: Data(#"{"data":{"posts":[{"id":"7"}]}}"#.utf8))
  }

  /// `/api/graphql`: a GraphQL `errors` reply with status 400.
  static func serveGraphQLError(on transport: MockTransport) {
    transport.stub(
      .post,
      "/api/graphql",
      status: .badRequest,
      headerFields: json,
      body: Data(#"{"errors":[{"message":"no such field"}]}"#.utf8)
    )
  }

  @Test func aTypedRequestIsSentAndDecodedWithTheTransportAlone() async throws {
    let transport = MockTransport()
    Self.serveBoards(on: transport)
    let titles = try await transport.send(BoardTitles(), baseUrl: Self.base)
    #expect(titles == ["Balsa", "Foam"])
    let sent = try #require(transport.recordedRequests.first)
    #expect(sent.head.path == "/api/boards?type=1")
    #expect(sent.head.headerFields[.acceptEncoding] == "gzip, deflate")  // the default fields, as a networking sends
  }

  @Test func aGraphQLRequestDecodesInsideDataWithoutAskingWhichKindItIs() async throws {
    let transport = MockTransport()
    Self.servePosts(on: transport)
    // The networking's key path would be ignored: a GraphQL request reads inside `data`.
    let response = try await transport.send(AllPosts(), baseUrl: Self.base)
    #expect(response == PostsData(posts: [.init(id: "7")]))
    let body = try #require(transport.recordedRequests.first?.body)
    let sent = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
    #expect(sent["query"] as? String == "{ posts { id } }")
  }

  @Test func graphQLErrorsComeBeforeTheStatus() async throws {
    let transport = MockTransport()
    Self.serveGraphQLError(on: transport)
    let error = await #expect(throws: NetworkError.self) { try await transport.send(AllPosts(), baseUrl: Self.base) }
    #expect(error?.code == .graphQLErrors)
    #expect(error?.graphQLError?.errors.map(\.message) == ["no such field"])
  }

  @Test func aRESTErrorStatusFailsValidation() async throws {
    let transport = MockTransport()
    transport.stub(.get, "/api/boards/1", status: .notFound, headerFields: Self.json, body: Data("{}".utf8))
    let error = await #expect(throws: NetworkError.self) { try await transport.send(OneBoard(), baseUrl: Self.base) }
    #expect(error?.code == .unacceptableStatusCode)
  }

  @Test func aResourceThatDoesNotDecodeCarriesTheFallback() async throws {
    let transport = MockTransport()
    transport.stub(.get, "/api/boards/1", headerFields: Self.json, body: Data(#"{"reason":"archived"}"#.utf8))
    let error = await #expect(throws: NetworkError.self) { try await transport.send(OneBoard(), baseUrl: Self.base) }
    #expect(error?.code == .decodedFallback)
    #expect(error?.fallbackResource(OneBoard.Failure.self)?.reason == "archived")
  }

  @Test func aRelativePathWithoutABaseURLIsAClearError() async throws {
    let transport = MockTransport()
    let error = await #expect(throws: NetworkError.self) { try await transport.send(OneBoard(), baseUrl: nil) }
    #expect(error?.code == .invalidURL)
    #expect(error?.message.contains("no base URL") == true)
    #expect(transport.recordedRequests.isEmpty)
  }

  @Test func theTransportsErrorReachesTheCallerAsItWasThrown() async throws {
    let transport = MockTransport()
    transport.stub(.get, "/api/boards/1", error: TransportError(code: .totalTimeout, message: "stalled"))
    let error = await #expect(throws: TransportError.self) { try await transport.send(OneBoard(), baseUrl: Self.base) }
    #expect(error?.code == .totalTimeout)
  }
}
