import Foundation
import HTTPTypes
import MalibuTestSupport
import Testing

@testable import Malibu

/// Decoders and body encoders plugged into every entry point of the facade, on MockTransport: the default
/// (MalibuJSON, Malibu's JSON rules for bodies), Foundation's with a strategy, a property-list or counting coder of a
/// user's, the networking-wide defaults and their per-call overrides.
@Suite("Pluggable coders")
struct PluggableCodersTests {
  struct Post: Codable, Sendable, Equatable {
    let postTitle: String
    let content: String
  }

  /// A user's body encoder: `key=value` lines of a flat object, as `text/x-lines`.
  struct LinesEncoder: RequestBodyEncoder {
    var contentType: String { "text/x-lines" }

    func encode<T: Encodable>(_ value: T) throws -> Data {
      let json = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(value)) as? [String: Any] ?? [:]
      return Data(json.keys.sorted().map { "\($0)=\(json[$0]!)" }.joined(separator: "\n").utf8)
    }
  }

  /// A body encoder that always throws.
  struct FailingEncoder: RequestBodyEncoder {
    struct Refusal: Error {}
    func encode<T: Encodable>(_ value: T) throws -> Data { throw Refusal() }
  }

  static var snakeCase: JSONDecoder {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    return decoder
  }

  static let camel = Data(#"{"postTitle":"a","content":"A"}"#.utf8)
  static let snake = Data(#"{"post_title":"a","content":"A"}"#.utf8)
  static let camelFeed = Data(#"{"data":[{"postTitle":"a","content":"A"},{"postTitle":"b"}]}"#.utf8)
  static let snakeFeed = Data(#"{"data":[{"post_title":"a","content":"A"},{"post_title":"b"}]}"#.utf8)
  static let post = Post(postTitle: "a", content: "A")

  /// A post, by default decoder, by a JSONDecoder with snake case keys, or by a decoder given to the request.
  struct GetPost: TypedRequest {
    typealias RawResource = Post
    var method: HTTPRequest.Method { .get }
    var path: String { "post" }
  }

  struct GetSnakePost: TypedRequest {
    typealias RawResource = Post
    var method: HTTPRequest.Method { .get }
    var path: String { "snake" }
    // A typed request written before ResponseDecoder: a `JSONDecoder` property still is its decoder.
    var decoder: JSONDecoder {
      let decoder = JSONDecoder()
      decoder.keyDecodingStrategy = .convertFromSnakeCase
      return decoder
    }
  }

  struct GetPostWith<D: ResponseDecoder>: TypedRequest {
    typealias RawResource = Post
    typealias FallbackResource = Fallback
    let decoder: D
    var path = "post"
    var method: HTTPRequest.Method { .get }
  }

  struct Fallback: Decodable, Sendable {
    let error: String
  }

  /// Posts under `data`, lossily, decoded by the networking's decoder.
  struct GetFeed: TypedRequest {
    typealias RawResource = [Post]
    var path = "feed"
    var method: HTTPRequest.Method { .get }
    var resourceKeyPath: ResourceKeyPath? { "data" }
    var arrayDecoding: ArrayDecodingStrategy { .lossy }
  }

  struct CreatePost<E: RequestBodyEncoder>: TypedRequest {
    typealias RawResource = Post
    let encoder: E?
    var method: HTTPRequest.Method { .post }
    var path: String { "posts" }
    var parameters: Post { PluggableCodersTests.post }
    var bodyEncoder: (any RequestBodyEncoder)? { encoder }
  }

  struct PostsData: Decodable, Sendable, Equatable {
    let postTitles: [String]
  }

  struct Titles: GraphQLRequest {
    typealias RawResource = PostsData
    var query: GraphQLQuery { "{ postTitles }" }
  }

  struct SnakeTitles: GraphQLRequest {
    typealias RawResource = PostsData
    var query: GraphQLQuery { "{ postTitles }" }
    var decoder: JSONDecoder { PluggableCodersTests.snakeCase }
  }

  private func makeNetworking() -> (Networking<Probe>, MockTransport) {
    let transport = makeTransport()
    transport.stub(.get, "/api/post", headerFields: jsonHeaders, body: Self.camel)
    transport.stub(.get, "/api/snake", headerFields: jsonHeaders, body: Self.snake)
    transport.stub(.get, "/api/feed", headerFields: jsonHeaders, body: Self.camelFeed)
    transport.stub(.get, "/api/snakefeed", headerFields: jsonHeaders, body: Self.snakeFeed)
    transport.stub(.get, "/api/fallback", headerFields: jsonHeaders, body: Data(#"{"error":"gone"}"#.utf8))
    transport.stub(.post, "/api/posts", headerFields: jsonHeaders, body: Self.camel)
    transport.stub(.post, "/api/graphql", headerFields: jsonHeaders, body: Data(#"{"data":{"postTitles":["a"]}}"#.utf8))
    return (Networking<Probe>(transport: .custom(transport)), transport)
  }

  private func get(_ path: String) -> Probe { Probe(Request.get(path)) }

  @Test func promisesDecodeWithMalibuJSONTheNetworkingsDecoderOrTheOneGiven() async throws {
    let (networking, _) = makeNetworking()
    #expect(networking.decoder is MalibuJSONDecoder)
    #expect(try await networking.request(get("post")).validate().decode(using: Post.self).value == Self.post)
    // Foundation's with a key strategy, for one call.
    let snake = networking.request(get("snake")).validate().decode(using: Post.self, decoder: Self.snakeCase)
    #expect(try await snake.value == Self.post)
    // The networking-wide default, then a per-call override of it.
    let counting = CountingDecoder()
    networking.decoder = counting
    #expect(try await networking.request(get("post")).decode(using: Post.self).value == Self.post)
    #expect(counting.count == 1)
    #expect(
      try await networking.request(get("snake")).decode(using: Post.self, decoder: Self.snakeCase).value == Self.post
    )
    #expect(counting.count == 1)
    networking.decoder = Self.snakeCase
    #expect(try await networking.request(get("snake")).decode(using: Post.self).value == Self.post)
  }

  @Test func decodeResourceOnPromisesTakesAnyDecoderWithKeyPathsAndLossyArrays() async throws {
    let (networking, _) = makeNetworking()
    let skipped = Box<[NetworkError.Code]>([])
    networking.onFailure = { failure in skipped.update { $0.append(failure.networkError?.code ?? .cancelled) } }
    let byDefault = networking.request(get("feed")).decodeResource(using: [Post].self, at: "data", arrays: .lossy)
    #expect(try await byDefault.value == [Self.post])
    let foundation = networking.request(get("snakefeed"))
      .decodeResource(using: [Post].self, decoder: Self.snakeCase, at: "data", arrays: .lossy)
    #expect(try await foundation.value == [Self.post])
    let counting = CountingDecoder()
    networking.decoder = counting
    let custom = networking.request(get("feed")).decodeResource(using: [Post].self, at: "data", arrays: .lossy)
    #expect(try await custom.value == [Self.post])
    #expect(counting.count == 1)
    await eventually("three skipped reports") { skipped.value.count == 3 }
    #expect(skipped.value == [.skippedElements, .skippedElements, .skippedElements])
  }

  @Test func typedRequestsUseTheNetworkingsDecoderUnlessTheyNameTheirOwn() async throws {
    let (networking, _) = makeNetworking()
    #expect(try await networking.send(GetPost()) == Self.post)  // MalibuJSON
    #expect(try await networking.send(GetSnakePost()) == Self.post)  // its JSONDecoder, with snake case keys
    let counting = CountingDecoder()
    networking.decoder = counting
    #expect(try await networking.send(GetPost()) == Self.post)
    #expect(try await networking.send(GetFeed()) == [Self.post])  // key path and lossy array, on the user's decoder
    #expect(counting.count == 2)
    // A decoder of the request's own wins over the networking's.
    let own = CountingDecoder()
    #expect(try await networking.send(GetPostWith(decoder: own)) == Self.post)
    #expect(own.count == 1)
    #expect(counting.count == 2)
    #expect(try await networking.send(GetPostWith(decoder: Self.snakeCase, path: "snake")) == Self.post)
    // The fallback is decoded by the request's decoder too.
    let fallback = await networkError(networking.request(typed: GetPostWith(decoder: own, path: "fallback")))
    #expect(fallback?.code == .decodedFallback)
    #expect(fallback?.fallbackResource(Fallback.self)?.error == "gone")
    #expect(own.count == 3)
  }

  @Test func graphQLDataAndPartialDataUseTheRequestsOrTheNetworkingsDecoder() async throws {
    let (networking, transport) = makeNetworking()
    #expect(try await networking.send(Titles()).postTitles == ["a"])
    let counting = CountingDecoder()
    networking.decoder = counting
    #expect(try await networking.send(Titles()).postTitles == ["a"])
    #expect(counting.count == 1)
    // Partial data: by the networking's decoder, by the request's, or by one given to the call.
    let errors = Data(#"{"errors":[{"message":"boom"}],"data":{"post_titles":["b"]}}"#.utf8)
    transport.stub(.post, "/api/graphql", headerFields: jsonHeaders, body: errors)
    let plain = try #require(await networkError(networking.request(typed: Titles())))
    let partial = try #require(plain.graphQLError)
    #expect(throws: DecodingError.self) { try partial.partialData(PostsData.self) }  // camel case keys
    #expect(counting.count == 2)
    #expect(try partial.partialData(PostsData.self, decoder: Self.snakeCase)?.postTitles == ["b"])
    let snake = try #require(await networkError(networking.request(typed: SnakeTitles())))
    #expect(try snake.graphQLError?.partialData(PostsData.self)?.postTitles == ["b"])
    #expect(counting.count == 2)
  }

  @Test func aDecoderThatThrowsFailsWithDecodingFailedAndTheNetworkingGoesOn() async throws {
    let (networking, _) = makeNetworking()
    let failed = try #require(
      await networkError(networking.request(get("post")).decode(using: Post.self, decoder: FailingDecoder()))
    )
    #expect(failed.code == .decodingFailed)
    #expect(failed.message.contains("the decoder refuses this body"))
    #expect(failed.underlyingError is FailingDecoder.Refusal)
    networking.decoder = FailingDecoder()
    let typed = try #require(await networkError(networking.request(typed: GetPost())))
    #expect(typed.code == .decodingFailed)
    #expect(typed.message.contains("the decoder refuses this body"))
    networking.decoder = MalibuJSONDecoder()
    #expect(try await networking.send(GetPost()) == Self.post)
  }

  @Test func bodiesAreWrittenByTheirOwnEncoderTheNetworkingsOrMalibusRules() async throws {
    let (networking, transport) = makeNetworking()
    func lastBody() -> (String?, String?) {
      let sent = transport.recordedRequests.last
      return (sent?.body.map { String(decoding: $0, as: UTF8.self) }, sent?.headerFields[.contentType])
    }
    // Malibu's rules: keys sorted.
    _ = try await networking.request(Probe(Request.post("posts", body: Self.post))).value
    #expect(lastBody().0 == #"{"content":"A","postTitle":"a"}"#)
    // A user's encoder: its bytes and its content type reach the server.
    _ = try await networking.request(Probe(Request.post("posts", body: Self.post, encoder: LinesEncoder()))).value
    #expect(lastBody().0 == "content=A\npostTitle=a")
    #expect(lastBody().1 == "text/x-lines")
    // Property lists.
    let plist = PropertyListEncoder()
    plist.outputFormat = .xml
    _ = try await networking.request(Probe(Request.put("posts", body: Self.post, encoder: plist))).value
    let sent = try #require(transport.recordedRequests.last?.body)
    #expect(try PropertyListDecoder().decode(Post.self, from: sent) == Self.post)
    #expect(lastBody().1 == "application/x-plist")
    // MalibuJSON's encoder (its byte-for-byte agreement with Foundation's is MalibuJSON's own tests' business).
    _ = try await networking.request(Probe(Request.post("posts", body: Self.post, encoder: MalibuJSONEncoder()))).value
    let json = try #require(transport.recordedRequests.last?.body)
    #expect(try JSONDecoder().decode(Post.self, from: json) == Self.post)
    #expect(lastBody().1 == "application/json")
    // The networking's encoder, for bodies without their own; a body's own wins.
    networking.bodyEncoder = LinesEncoder()
    _ = try await networking.request(Probe(Request.post("posts", body: Self.post))).value
    #expect(lastBody() == ("content=A\npostTitle=a", "text/x-lines"))
    _ = try await networking.request(Probe(Request.post("posts", body: Self.post, encoder: JSONEncoder()))).value
    #expect(lastBody().1 == "application/json")
    // Typed and GraphQL requests: the request's encoder, else the networking's.
    _ = try await networking.send(CreatePost<LinesEncoder>(encoder: nil))
    #expect(lastBody() == ("content=A\npostTitle=a", "text/x-lines"))
    _ = try await networking.send(CreatePost(encoder: MalibuJSONEncoder()))
    #expect(lastBody().1 == "application/json")
    networking.bodyEncoder = MalibuJSONEncoder()
    _ = try await networking.send(Titles())
    #expect(lastBody() == (#"{"query":"{ postTitles }"}"#, "application/json"))
  }

  @Test func anEncoderThatThrowsFailsWithEncodingFailedAndTheNetworkingGoesOn() async throws {
    let (networking, transport) = makeNetworking()
    let own = Probe(Request.post("posts", body: Self.post, encoder: FailingEncoder()))
    let error = try #require(await networkError(networking.request(own)))
    #expect(error.code == .encodingFailed)
    #expect(error.underlyingError is FailingEncoder.Refusal)
    networking.bodyEncoder = FailingEncoder()
    let typed = try #require(await networkError(networking.request(typed: CreatePost<FailingEncoder>(encoder: nil))))
    #expect(typed.code == .encodingFailed)
    #expect(transport.recordedRequests.isEmpty)
    networking.bodyEncoder = nil
    #expect(try await networking.send(CreatePost<FailingEncoder>(encoder: nil)) == Self.post)
  }
}
