import Foundation
import HTTPTypes
import Testing

@testable import Malibu

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// GraphQL requests through `Networking`, on MockTransport: the body sent, `data` decoded, `errors` as a typed error.
@Suite("GraphQL requests")
struct GraphQLRequestTests {
  struct PostsData: Decodable, Sendable, Equatable {
    struct Post: Decodable, Sendable, Equatable {
      let id: String
      let title: String
    }
    let posts: [Post]
  }

  struct AllPosts: GraphQLRequest {
    typealias RawResource = PostsData
    var query: GraphQLQuery
    var variables: [String: Int] { ["first": 2] }
    var operationName: String? { "AllPosts" }
  }

  /// The posts alone, finalized out of `data.posts`.
  struct PostTitles: GraphQLRequest {
    typealias RawResource = [PostsData.Post]
    typealias FinalResource = [String]
    var query: GraphQLQuery { "{ posts { id title } }" }
    var resourceKeyPath: ResourceKeyPath? { "posts" }
    func finalize(raw: [PostsData.Post]) async throws -> [String] { raw.map(\.title) }
  }

  static let reply = Data(#"{"data":{"posts":[{"id":"1","title":"Balsa"},{"id":"2","title":"Foam"}]}}"#.utf8)
  static let errorsReply = Data(
    #"""
    {"errors":[{"message":"no such post","path":["posts",1,"author"],"locations":[{"line":1,"column":3}]},
    {"message":"rate limited"}],"data":{"posts":[{"id":"1","title":"Balsa"}]}}
    """#.utf8
  )

  private func makeNetworking(_ body: Data = reply) -> (Networking<Probe>, MockTransport) {
    let transport = makeTransport()
    transport.stub(.post, "/api/graphql", headerFields: jsonHeaders, body: body)
    return (Networking<Probe>(transport: .custom(transport)), transport)
  }

  @Test func anInterpolatedQueryIsItsTextWithTheValuesInsertedAsTheyAre() async throws {
    let (networking, transport) = makeNetworking()
    let operation = "AllPosts"
    let fields = ["id", "title"]
    let query: GraphQLQuery =
      "query \(operation)($first: Int) { posts(first: $first) { \(fields.joined(separator: " ")) } }"
    _ = try await networking.send(AllPosts(query: query))
    // Plain text insertion: no quoting, no escaping, even of a quote.
    let quoted: GraphQLQuery = "{ post(title: \("\"Balsa\"")) { id } }"
    _ = try await networking.send(AllPosts(query: quoted))
    let sent = transport.recordedRequests.compactMap(\.body).map {
      (try? JSONSerialization.jsonObject(with: $0) as? [String: Any])?["query"] as? String
    }
    #expect(
      sent == [
        "query AllPosts($first: Int) { posts(first: $first) { id title } }", #"{ post(title: "Balsa") { id } }"#,
      ]
    )
  }

  @Test func aQueryIsPostedAsJSONAndItsDataDecoded() async throws {
    let (networking, transport) = makeNetworking()
    let query = "query AllPosts($first: Int) { posts(first: $first) { id title } }"
    let data = try await networking.send(AllPosts(query: .text(query)))
    #expect(data.posts.map(\.title) == ["Balsa", "Foam"])
    let sent = try #require(transport.recordedRequests.first)
    #expect(sent.method == .post)
    #expect(sent.path == "/api/graphql")
    #expect(sent.headerFields[.contentType] == "application/json")
    let body = try #require(sent.body)
    let json = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
    #expect(json["query"] as? String == query)
    #expect(json["operationName"] as? String == "AllPosts")
    #expect((json["variables"] as? [String: Any])?["first"] as? Int == 2)

    networking.resourceKeyPath = "payload"  // a REST envelope: not for GraphQL requests
    #expect(try await networking.send(PostTitles()) == ["Balsa", "Foam"])
    let bare = try #require(transport.recordedRequests.last?.body)
    #expect(String(decoding: bare, as: UTF8.self) == #"{"query":"{ posts { id title } }"}"#)  // no variables, no name
  }

  @Test func aQueryFileIsReadFromABundleOrADirectory() async throws {
    let (networking, transport) = makeNetworking()
    _ = try await networking.send(AllPosts(query: .file("Fixtures/AllPosts", in: Bundle.module)))
    let fixtures = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
    _ = try await networking.send(AllPosts(query: .file("AllPosts.graphql", in: fixtures)))
    let texts = try transport.recordedRequests.map { request in
      let body = try #require(request.body)
      return try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])["query"] as? String
    }
    #expect(texts.count == 2)
    #expect(texts.allSatisfy { $0?.hasPrefix("query AllPosts($first: Int) {") == true })
  }

  /// A query file that does not exist fails with `encodingFailed` naming it, without sending anything, and is
  /// published; the same networking then serves a good request.
  @Test func aQueryFileThatDoesNotExistFailsBeforeSending() async throws {
    let (networking, transport) = makeNetworking()
    let heard = Box<[NetworkError.Code]>([])
    networking.onFailure = { failure in heard.update { $0.append(failure.networkError?.code ?? .cancelled) } }
    let inBundle = try #require(
      await networkError(networking.request(typed: AllPosts(query: .file("Nowhere", in: Bundle.module))))
    )
    #expect(inBundle.code == .encodingFailed)
    #expect(inBundle.message.contains("the GraphQL query file 'Nowhere.graphql' is not in the bundle at"))
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("no-queries-\(UUID().uuidString)")
    let onDisk = try #require(
      await networkError(networking.request(typed: AllPosts(query: .file("Nowhere", in: directory))))
    )
    #expect(onDisk.code == .encodingFailed)
    #expect(onDisk.message.contains("'Nowhere.graphql' could not be read from the directory"))
    #expect(onDisk.underlyingError != nil)
    #expect(transport.recordedRequests.isEmpty)
    #expect(heard.value == [.encodingFailed, .encodingFailed])
    #expect(try await networking.send(PostTitles()).count == 2)
  }

  /// A query file name that leaves its directory — a `..` component, an absolute path, or a symbolic link in the
  /// directory that resolves outside it — fails with `encodingFailed` before the file is read or anything is sent;
  /// a FIFO in the directory fails at once instead of blocking. A file inside (through a link that stays inside,
  /// too) is still read, and the networking then serves a good request.
  @Test func aQueryFileOutsideItsDirectoryIsNeverRead() async throws {
    let (networking, transport) = makeNetworking()
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("graphql-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: root) }
    let directory = root.appendingPathComponent("queries")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let secret = root.appendingPathComponent("outside.json")
    try Data("query Secret { token }".utf8).write(to: secret)
    try FileManager.default.createSymbolicLink(
      at: directory.appendingPathComponent("escape.graphql"),
      withDestinationURL: secret
    )
    try Data("{ posts { id title } }".utf8).write(to: directory.appendingPathComponent("inside.graphql"))
    try FileManager.default.createSymbolicLink(
      at: directory.appendingPathComponent("alias.graphql"),
      withDestinationURL: directory.appendingPathComponent("inside.graphql")
    )
    #expect(mkfifo(directory.appendingPathComponent("fifo.graphql").path, 0o600) == 0)

    for name in ["../outside.json", "sub/../../outside.json", secret.path, "escape"] {
      let error = try #require(
        await networkError(networking.request(typed: AllPosts(query: .file(name, in: directory)))),
        "\(name)"
      )
      #expect(error.code == .encodingFailed, "\(name)")
      #expect(error.message.contains("is outside the directory"), "\(name): \(error.message)")
    }
    let fifo = try #require(
      await networkError(networking.request(typed: AllPosts(query: .file("fifo", in: directory))))
    )
    #expect(fifo.code == .encodingFailed)
    #expect("\(fifo.underlyingError.map { "\($0)" } ?? "")".contains("not a regular file"))
    #expect(transport.recordedRequests.isEmpty)

    _ = try await networking.send(AllPosts(query: .file("inside", in: directory)))
    _ = try await networking.send(AllPosts(query: .file("alias", in: directory)))
    #expect(transport.recordedRequests.count == 2)
  }

  /// An `errors` reply: every message and path, the partial data reachable; at a 4xx status too.
  @Test(arguments: [HTTPResponse.Status.ok, .badRequest])
  func anErrorsReplyIsATypedErrorWithPartialData(status: HTTPResponse.Status) async throws {
    let (networking, transport) = makeNetworking()
    transport.stub(.post, "/api/graphql", status: status, headerFields: jsonHeaders, body: Self.errorsReply)
    let error = try #require(await networkError(networking.request(typed: AllPosts(query: "{ posts { id title } }"))))
    #expect(error.code == .graphQLErrors)
    #expect(error.response?.status == status)
    let graphQL = try #require(error.graphQLError)
    #expect(graphQL.errors.map(\.message) == ["no such post", "rate limited"])
    #expect(graphQL.errors.first?.path == [.field("posts"), .index(1), .field("author")])
    #expect(graphQL.errors.map(\.pathText) == ["posts.1.author", nil])
    #expect(error.message.contains(#""no such post" at posts.1.author; "rate limited""#))
    #expect(error.message.contains("and partial data"))
    // What a user reads: every message with its path, not Foundation's "The operation could not be completed".
    let summary = #""no such post" at posts.1.author; "rate limited""#
    #expect((graphQL as any Error).localizedDescription == summary)
    #expect(graphQL.description == "GraphQLError: \(summary)")
    let partial = try graphQL.partialData(PostsData.self)
    #expect(partial?.posts.map(\.title) == ["Balsa"])

    transport.stub(.post, "/api/graphql", headerFields: jsonHeaders, body: Self.reply)
    #expect(try await networking.send(PostTitles()) == ["Balsa", "Foam"])
  }

  @Test func errorsWithNullDataHaveNoPartialData() async throws {
    let (networking, _) = makeNetworking(Data(#"{"errors":[{"message":"boom"}],"data":null}"#.utf8))
    let error = await networkError(networking.request(typed: PostTitles()))
    #expect(error?.graphQLError?.data == nil)
    #expect(try error?.graphQLError?.partialData(PostsData.self) == nil)
  }
}
