import Foundation
import HTTPTypes
import Malibu
@_spi(Malibu) import MalibuCore
import Testing

/// Typed requests, resilient decoding and GraphQL through `Networking` on both transports: REST against httpbin
/// (`/anything` echoes what it got), GraphQL against `Tools/servers/graphql_server.py`.
@Suite("Facade: typed requests and GraphQL")
struct FacadeTypedRequestTests {
  /// httpbin's echo of a query: the arguments it got.
  struct Echo: Decodable, Sendable {
    let args: [String: String]
    let method: String
  }

  struct SearchImages: TypedRequest {
    typealias RawResource = Echo
    typealias FinalResource = [String: String]
    var method: HTTPRequest.Method { .get }
    var path: String { "anything/images/search" }
    var parameters: [String: String] { ["mime_type": "jpg,png", "limit": "2"] }
    func finalize(raw: Echo) async throws -> [String: String] { raw.args }
  }

  struct Cat: Codable, Sendable, Equatable {
    let name: String
    let tags: [String]
  }

  /// A cat posted as JSON, read back from under httpbin's `json` key.
  struct CreateCat: TypedRequest {
    typealias RawResource = Cat
    let cat: Cat
    var method: HTTPRequest.Method { .post }
    var path: String { "anything/cats" }
    var parameters: Cat { cat }
    var resourceKeyPath: ResourceKeyPath? { "json" }
  }

  struct Post: Codable, Sendable, Equatable {
    let title: String
    let content: String
  }

  /// Posts echoed by httpbin: the body is whatever `posts` holds, read back lossily from under `key`.
  struct EchoPosts: TypedRequest {
    typealias RawResource = [Post]
    let posts: [[String: String]]
    var key: ResourceKeyPath = "json"
    var method: HTTPRequest.Method { .post }
    var path: String { "anything/posts" }
    var parameters: [[String: String]] { posts }
    var resourceKeyPath: ResourceKeyPath? { key }
    var arrayDecoding: ArrayDecodingStrategy { .lossy }
  }

  struct CoolCat: Decodable, Sendable {
    let name: String
    let breed: String
  }

  struct Nickname: Decodable, Sendable {
    let nickname: String
  }

  struct EchoCoolCat: TypedRequest {
    typealias RawResource = CoolCat
    typealias FallbackResource = Nickname
    let body: [String: String]
    var method: HTTPRequest.Method { .put }
    var path: String { "anything/cat" }
    var parameters: [String: String] { body }
    var resourceKeyPath: ResourceKeyPath? { "json" }
  }

  @Test(arguments: Backend.allCases)
  func aGetAndAPostTravelAsTypedRequests(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let networking = Networking<HttpbinProbe>(transport: backend.kind)
    #expect(try await networking.send(SearchImages()) == ["mime_type": "jpg,png", "limit": "2"])
    let cat = Cat(name: "Tom", tags: ["grey"])
    #expect(try await networking.request(typed: CreateCat(cat: cat)).value == cat)
  }

  /// An element that does not decode is left out and reported; a wrapped resource whose key is missing and a
  /// fallback that fails too end with errors that say so; the networking then serves a good request.
  @Test(arguments: Backend.allCases)
  func resilientDecodingAndItsBadCases(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let networking = Networking<HttpbinProbe>(transport: backend.kind)
    let heard = Locked<[NetworkingFailure<HttpbinProbe>]>([])
    networking.onFailure = { failure in heard.withLock { $0.append(failure) } }
    let posts: [[String: String]] = [["title": "a", "content": "A"], ["title": "b"], ["title": "c", "content": "C"]]
    #expect(try await networking.send(EchoPosts(posts: posts)).map(\.title) == ["a", "c"])
    let skipped = try #require(heard.withLock { $0.first })
    #expect(skipped.networkError?.code == .skippedElements)
    #expect((skipped.networkError?.underlyingError as? SkippedElements)?.elements.map(\.element.path) == ["json[1]"])
    #expect(skipped.typedRequest is EchoPosts)

    let missing = try #require(await networkError(networking.request(typed: EchoPosts(posts: posts, key: "items"))))
    #expect(missing.code == .decodingFailed)
    #expect(missing.message.contains("has no key 'items'"))
    #expect(missing.message.contains("'json'"))

    let fallback = try #require(await networkError(networking.request(typed: EchoCoolCat(body: ["nickname": "T"]))))
    #expect(fallback.code == .decodedFallback)
    #expect(fallback.fallbackResource(Nickname.self)?.nickname == "T")
    let neither = try #require(await networkError(networking.request(typed: EchoCoolCat(body: ["colour": "grey"]))))
    #expect(neither.code == .decodingFailed)
    #expect(neither.message.contains("the fallback did not decode either"))
    #expect(heard.withLock { $0.count } == 4)

    #expect(try await networking.send(CreateCat(cat: Cat(name: "Tom", tags: []))).name == "Tom")
  }

  /// Adds a header to requests for `/anything`, answers `/status/…` with a mock.
  struct StagingInterceptor: RequestInterceptor {
    func adapt(_ request: HTTPRequest) async throws -> AdaptedRequest {
      if request.path?.hasPrefix("/status/") == true {
        return .mocked(Mock(json: ["mocked": true]))
      }
      guard request.path?.hasPrefix("/anything") == true else { return .notChanged }
      var changed = request
      changed.headerFields[HTTPField.Name("X-Intercepted")!] = "yes"
      return .changed(changed)
    }
  }

  @Test(arguments: Backend.allCases)
  func interceptorsChangeAndMockRequests(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let recorder = RecordingTransport(backend.transport)
    let networking = Networking<HttpbinProbe>(transport: .custom(recorder))
    networking.interceptors = [StagingInterceptor()]
    let echoed = try await networking.request(HttpbinProbe(.get("anything/x"))).validate().toJsonDictionary().value
    #expect((echoed["headers"] as? [String: any Sendable])?["X-Intercepted"] as? String == "yes")
    // httpbin would answer 500; the interceptor's mock answers instead, and nothing is sent.
    let mocked = try await networking.request(HttpbinProbe(.get("status/500"))).validate().toJsonDictionary().value
    #expect(mocked["mocked"] as? Bool == true)
    #expect(recorder.all.map { $0.request.path ?? "" } == ["/anything/x"])
    #expect(try await networking.send(SearchImages())["limit"] == "2")  // typed requests pass them too
  }

  // MARK: - GraphQL

  struct PostsData: Decodable, Sendable {
    struct Post: Decodable, Sendable {
      struct Author: Decodable, Sendable { let name: String }
      let id: String
      let title: String
      let author: Author?
    }
    let posts: [Post]
  }

  struct AllPosts: GraphQLRequest {
    typealias RawResource = PostsData
    var query: GraphQLQuery
    var first: Int
    var variables: [String: Int] { ["first": first] }
  }

  struct AddPost: GraphQLRequest {
    struct Added: Decodable, Sendable {
      let id: String
      let title: String
    }
    struct Variables: Encodable, Sendable { let title: String }
    typealias RawResource = Added
    let title: String
    var query: GraphQLQuery { "mutation Add($title: String!) { addPost(title: $title) { id title } }" }
    var variables: Variables { Variables(title: title) }
    var operationName: String? { "Add" }
    var resourceKeyPath: ResourceKeyPath? { "addPost" }
  }

  @Test(arguments: Backend.allCases)
  func aQueryAndAMutationAgainstAGraphQLServer(_ backend: Backend) async throws {
    try await GraphQLServer.start()
    let networking = Networking<GraphQLAPI>(transport: backend.kind)
    let query: GraphQLQuery = "query AllPosts($first: Int) { posts(first: $first) { id title } }"
    let data = try await networking.send(AllPosts(query: query, first: 2))
    #expect(data.posts.map(\.title) == ["Balsa", "Foam"])
    let added = try await networking.send(AddPost(title: "Wave Rider \(backend)"))
    #expect(added.title == "Wave Rider \(backend)")
  }

  /// An `errors` reply with partial data (200), one without data (400), and a query file that does not exist; the
  /// same networking then serves a good query.
  @Test(arguments: Backend.allCases)
  func graphQLErrorsAndAMissingQueryFile(_ backend: Backend) async throws {
    try await GraphQLServer.start()
    let networking = Networking<GraphQLAPI>(transport: backend.kind)
    let partial = try #require(
      await networkError(networking.request(typed: AllPosts(query: "{ posts { id title author { name } } }", first: 0)))
    )
    #expect(partial.code == .graphQLErrors)
    #expect(partial.response?.statusCode == 200)
    let errors = try #require(partial.graphQLError)
    #expect(errors.errors.map(\.message) == ["author 2 is hidden"])
    #expect(errors.errors.first?.path == [.field("posts"), .index(1), .field("author")])
    let data = try #require(try errors.partialData(PostsData.self))
    // The first three posts (mutations of other tests add more after them).
    #expect(data.posts.prefix(3).map { $0.author?.name } == ["Ada", nil, "Lin"])

    let invalid = try #require(await networkError(networking.request(typed: AllPosts(query: "{ nope }", first: 1))))
    #expect(invalid.code == .graphQLErrors)
    #expect(invalid.response?.statusCode == 400)
    #expect(invalid.graphQLError?.errors.first?.message == "Cannot query field 'nope' on type 'Query'.")
    #expect(invalid.graphQLError?.data == nil)

    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("queries-\(UUID().uuidString)")
    let missing = try #require(
      await networkError(networking.request(typed: AllPosts(query: .file("AllPosts", in: directory), first: 1)))
    )
    #expect(missing.code == .encodingFailed)
    #expect(missing.message.contains("'AllPosts.graphql' could not be read"))

    let good: GraphQLQuery = "query AllPosts($first: Int) { posts(first: $first) { id title } }"
    #expect(try await networking.send(AllPosts(query: good, first: 1)).posts.map(\.title) == ["Balsa"])
  }
}

/// The GraphQL server's base URL, kept once it started (endpoint types read it statically).
enum GraphQLServer {
  private static let base = Locked<String?>(nil)

  /// Starts the server (once per test process) and returns its base URL, with a trailing slash.
  @discardableResult
  static func start() async throws -> String {
    let url = try await LocalServers.shared.graphQL().absoluteString
    let string = url.hasSuffix("/") ? url : url + "/"
    base.withLock { $0 = string }
    return string
  }

  /// The base URL; a port nothing listens on before ``start()``.
  static var baseURL: String { base.withLock { $0 } ?? "http://127.0.0.1:9/" }
}

/// The GraphQL server's API: typed requests only.
struct GraphQLAPI: RequestConvertible {
  static var baseUrl: (any URLStringConvertible)? { GraphQLServer.baseURL }
  let request: Request
}
