import Malibu
import Synchronization

/// Requests described as types (`TypedRequest`): a search whose parameters go into the query, a lossy list whose
/// broken element is left out and reported to `onFailure`, and a GraphQL query answered by an interceptor's mock
/// (httpbin speaks no GraphQL).
enum TypedRequestStep {
  struct Echo: Decodable, Sendable {
    let args: [String: String]
  }

  struct SearchImages: TypedRequest {
    typealias RawResource = Echo
    typealias FinalResource = [String: String]
    var method: HTTPRequest.Method { .get }
    var path: String { "anything/images/search" }
    var parameters: [String: String] { ["mime_type": "jpg,png", "limit": "2"] }
    func finalize(raw: Echo) async throws -> [String: String] { raw.args }
  }

  struct Post: Codable, Sendable {
    let title: String
    let content: String
  }

  /// httpbin echoes the posts back under `json`; the second has no content.
  struct EchoPosts: TypedRequest {
    typealias RawResource = [Post]
    var method: HTTPRequest.Method { .post }
    var path: String { "anything/posts" }
    var parameters: [[String: String]] {
      [["title": "a", "content": "A"], ["title": "b"], ["title": "c", "content": "C"]]
    }
    var resourceKeyPath: ResourceKeyPath? { "json" }
    var arrayDecoding: ArrayDecodingStrategy { .lossy }
  }

  struct Titles: Decodable, Sendable {
    struct Post: Decodable, Sendable { let title: String }
    let posts: [Post]
  }

  struct AllPosts: GraphQLRequest {
    typealias RawResource = Titles
    var query: GraphQLQuery { "{ posts { title } }" }
  }

  /// Answers `POST /graphql` with a GraphQL reply, as a staging setup might.
  struct GraphQLStub: RequestInterceptor {
    func adapt(_ request: HTTPRequest) async throws -> AdaptedRequest {
      guard request.path == "/graphql" else { return .notChanged }
      return .mocked(Mock(json: ["data": ["posts": [["title": "Balsa"], ["title": "Foam"]]]]))
    }
  }

  static func run(_ options: DemoOptions) async throws {
    let networking = Networking<HttpbinEndpoint>()
    let heard = Mutex<[String]>([])
    networking.onFailure = { failure in
      heard.withLock { $0.append(failure.networkError?.message ?? "\(failure.error)") }
    }

    let args = try await networking.send(SearchImages())
    try expect(args == ["mime_type": "jpg,png", "limit": "2"], "GET /anything/images/search echoed \(args)")
    report("send(SearchImages()) → GET /anything/images/search?limit=2&mime_type=jpg%2Cpng, finalized to \(args)")

    let posts = try await networking.send(EchoPosts())
    let skipped = heard.withLock { $0 }
    try expect(posts.map(\.title) == ["a", "c"] && skipped.count == 1, "lossy posts \(posts), heard \(skipped)")
    report("send(EchoPosts()) lossy under \"json\" → \(posts.map(\.title)); onFailure heard: \(skipped[0].prefix(90))…")

    networking.interceptors = [GraphQLStub()]
    let titles = try await networking.send(AllPosts()).posts.map(\.title)
    try expect(titles == ["Balsa", "Foam"], "the GraphQL query gave \(titles)")
    report("send(AllPosts()) → POST /graphql, answered by an interceptor's mock → \(titles)")
  }
}
