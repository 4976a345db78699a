import Foundation
import HTTPTypes
import MalibuTestSupport
import Testing

@testable import Malibu

/// Typed requests through `Networking`, on MockTransport: what reaches the transport, what the caller gets, and what
/// the failure hooks hear.
@Suite("Typed requests")
struct TypedRequestTests {
  struct CatImage: Codable, Sendable, Equatable {
    let id: String
    let url: String
  }

  struct GetCatImages: TypedRequest {
    typealias RawResource = [CatImage]
    var method: HTTPRequest.Method { .get }
    var path: String { "images/search" }
    var parameters: [String: String] { ["mime_type": "jpg,png", "limit": "2"] }
  }

  /// The first cat's URL: a final resource of another type, and a post-process step that counts.
  struct GetCatImageURL: TypedRequest {
    typealias RawResource = [CatImage]
    typealias FinalResource = URL
    struct Empty: Error {}
    let processed: Box<Int>
    var method: HTTPRequest.Method { .get }
    var path: String { "images/search" }

    func finalize(raw: [CatImage]) async throws -> URL {
      guard let first = raw.first, let url = URL(string: first.url) else { throw Empty() }
      return url
    }

    func postProcess(result: URL) -> URL {
      processed.update { $0 += 1 }
      return result
    }
  }

  struct NewCat: Encodable, Sendable {
    let name: String
    let tags: [String]
  }

  struct CreateCat: TypedRequest {
    typealias RawResource = CatImage
    var method: HTTPRequest.Method { .post }
    var path: String { "cats" }
    var parameters: NewCat { NewCat(name: "Tom", tags: ["grey"]) }
    var headers: [String: String] { ["X-Typed": "yes"] }
  }

  struct Post: Decodable, Sendable, Equatable {
    let title: String
    let content: String
  }

  /// Posts, under a key path, strict or lossy.
  struct GetPosts: TypedRequest {
    typealias RawResource = [Post]
    var keyPath: ResourceKeyPath?
    var lossy = false
    var method: HTTPRequest.Method { .get }
    var path: String { "posts" }
    var resourceKeyPath: ResourceKeyPath? { keyPath }
    var arrayDecoding: ArrayDecodingStrategy { lossy ? .lossy : .strict }
  }

  struct CoolCat: Decodable, Sendable {
    let name: String
    let breed: String
  }

  struct Cat: Decodable, Sendable, Equatable {
    let name: String
  }

  struct GetCoolCat: TypedRequest {
    typealias RawResource = CoolCat
    typealias FallbackResource = Cat
    var method: HTTPRequest.Method { .get }
    var path: String { "cat" }
  }

  static let posts = Data(
    #"{"data":[{"title":"a","content":"A"},{"title":"b"},{"title":"c","content":"C"}],"total":3}"#.utf8
  )

  private func makeNetworking() -> (Networking<Probe>, MockTransport) {
    let transport = makeTransport()
    transport.stub(
      .get,
      "/api/images/search",
      headerFields: jsonHeaders,
      body: Data(#"[{"id":"a1","url":"http://127.0.0.1/a1.png"},{"id":"b2","url":"http://127.0.0.1/b2.png"}]"#.utf8)
    )
    transport.stub(.post, "/api/cats", headerFields: jsonHeaders, body: Data(#"{"id":"t","url":"u"}"#.utf8))
    transport.stub(.get, "/api/posts", headerFields: jsonHeaders, body: Self.posts)
    transport.stub(.get, "/api/cat", headerFields: jsonHeaders, body: Data(#"{"name":"Tom"}"#.utf8))
    return (Networking<Probe>(transport: .custom(transport)), transport)
  }

  @Test func aGetSendsItsParametersInTheQueryAndDecodesTheResource() async throws {
    let (networking, transport) = makeNetworking()
    networking.beforeEach = { $0.adding(headers: ["X-Before": "each"]) }
    let cats = try await networking.send(GetCatImages())
    #expect(cats.map(\.id) == ["a1", "b2"])
    let sent = try #require(transport.recordedRequests.first)
    #expect(sent.method == .get)
    #expect(sent.path == "/api/images/search?limit=2&mime_type=jpg%2Cpng")
    #expect(sent.body == nil)
    #expect(sent.headerFields[HTTPField.Name("X-Before")!] == "each")
    #expect(sent.headerFields[HTTPField.Name("X-Endpoint")!] == "endpoint")  // the endpoint type's headers apply

    // The promise form, and finalize/postProcess.
    let processed = Box(0)
    let url = try await networking.request(typed: GetCatImageURL(processed: processed)).value
    #expect(url.absoluteString == "http://127.0.0.1/a1.png")
    #expect(processed.value == 1)
  }

  @Test func aPostSendsItsParametersAsAJSONBodyWithItsHeaders() async throws {
    let (networking, transport) = makeNetworking()
    let options = Box(0)
    let cat = try await networking.send(CreateCat()) { _ in options.update { $0 += 1 } }
    #expect(cat == CatImage(id: "t", url: "u"))
    #expect(options.value == 1)  // the per-request options closure ran
    let sent = try #require(transport.recordedRequests.first)
    #expect(sent.body.map { String(decoding: $0, as: UTF8.self) } == #"{"name":"Tom","tags":["grey"]}"#)
    #expect(sent.headerFields[.contentType] == "application/json")
    #expect(sent.headerFields[HTTPField.Name("X-Typed")!] == "yes")
  }

  /// The per-request options reach the chain: a retry policy set for this request alone retries a 503.
  @Test func aTypedRequestIsRetriedByItsOwnOptions() async throws {
    let (networking, transport) = makeNetworking()
    let calls = Box(0)
    transport.stub(.get, "/api/cat") { _ in
      let call = calls.update { count -> Int in
        count += 1
        return count
      }
      return call == 1
        ? MockTransport.Reply(status: .serviceUnavailable)
        : MockTransport.Reply(status: .ok, headerFields: jsonHeaders, body: Data(#"{"name":"a","breed":"b"}"#.utf8))
    }
    let cat = try await networking.send(GetCoolCat()) { options in
      options.retry = RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(1))
    }
    #expect(cat.breed == "b")
    #expect(calls.value == 2)
    // Without the option, a 503 is the caller's.
    calls.update { $0 = 0 }
    #expect(await networkError(networking.request(typed: GetCoolCat()))?.code == .unacceptableStatusCode)
  }

  @Test func aFinalizeThatThrowsFailsWithDecodingFailed() async throws {
    let (networking, transport) = makeNetworking()
    transport.stub(.get, "/api/images/search", headerFields: jsonHeaders, body: Data("[]".utf8))
    let error = await networkError(networking.request(typed: GetCatImageURL(processed: Box(0))))
    #expect(error?.code == .decodingFailed)
    #expect(error?.underlyingError is GetCatImageURL.Empty)
    #expect(error?.message.contains("finalize(raw:)") == true)
  }

  @Test func aResourceUnderAKeyPerRequestOrByTheNetworkingsDefault() async throws {
    let (networking, _) = makeNetworking()
    let strict = await networkError(networking.request(typed: GetPosts(keyPath: "data")))
    #expect(strict?.code == .decodingFailed)  // the second post has no content

    networking.resourceKeyPath = "data"
    let posts = try await networking.send(GetPosts(lossy: true))
    #expect(posts.map(\.title) == ["a", "c"])
    // The request's own key path wins over the networking's: the top level is an object, not an array.
    let topLevel = await networkError(networking.request(typed: GetPosts(keyPath: .topLevel, lossy: true)))
    #expect(topLevel?.code == .decodingFailed)
  }

  /// A wrapped resource whose key is missing: the error names the key and the keys that are there; the same
  /// networking then serves a good request.
  @Test func aMissingKeyNamesTheKeyAndTheKeysPresent() async throws {
    let (networking, _) = makeNetworking()
    let error = try #require(await networkError(networking.request(typed: GetPosts(keyPath: "items"))))
    #expect(error.code == .decodingFailed)
    #expect(error.message.contains("has no key 'items'"))
    #expect(error.message.contains("its keys are 'data', 'total'"))
    #expect(error.message.contains(#"{\"data\":[{\"title\":\"a\""#))  // the first bytes of the body
    #expect(error.response?.statusCode == 200)
    #expect(try await networking.send(GetPosts(keyPath: ["data"], lossy: true)).count == 2)
  }

  /// An element that does not decode: a strict array fails naming its path; a lossy one leaves it out and reports it
  /// to the failure hooks, without stopping the networking.
  @Test func anElementThatDoesNotDecodeIsNamedOrSkippedAndReported() async throws {
    let (networking, _) = makeNetworking()
    let strict = try #require(await networkError(networking.request(typed: GetPosts(keyPath: "data"))))
    #expect(strict.code == .decodingFailed)
    #expect(strict.message.contains("missing key 'content' at data[1].content"))

    let heard = Box<[NetworkingFailure<Probe>]>([])
    networking.onFailure = { failure in heard.update { $0.append(failure) } }
    networking.shouldContinue = { _ in false }
    let posts = try await networking.send(GetPosts(keyPath: "data", lossy: true))
    #expect(posts == [Post(title: "a", content: "A"), Post(title: "c", content: "C")])
    let failure = try #require(heard.value.first)
    #expect(heard.value.count == 1)
    #expect(failure.networkError?.code == .skippedElements)
    #expect(failure.endpoint == nil)
    #expect(failure.typedRequest is GetPosts)
    #expect(failure.response?.statusCode == 200)
    let skipped = try #require(failure.networkError?.underlyingError as? SkippedElements)
    #expect(skipped.elements.map(\.element.path) == ["data[1]"])
    #expect(skipped.elements.first?.element.reason.contains("missing key 'content'") == true)
    #expect(!networking.isStopped)  // shouldContinue is not asked about left-out elements
  }

  /// The same for an endpoint's promise: `decodeResource(using:at:arrays:)` reports what it left out, with the endpoint.
  @Test func anEndpointsPromiseDecodesLossilyAndReportsToo() async throws {
    let (networking, _) = makeNetworking()
    var failures = networking.failures.makeAsyncIterator()
    let posts = try await networking.request(Probe(.get("posts"))).validate()
      .decodeResource(using: [Post].self, at: "data", arrays: .lossy).value
    #expect(posts.map(\.title) == ["a", "c"])
    let failure = try #require(await failures.next())
    #expect(failure.endpoint?.request == Probe(.get("posts")).request)
    #expect(failure.networkError?.code == .skippedElements)
    #expect(failure.networkError?.message.hasPrefix("1 element of Array<Post> did not decode and was left out") == true)
  }

  @Test func aFallbackResourceIsDecodedAndCarriedByTheError() async throws {
    let (networking, transport) = makeNetworking()
    let error = try #require(await networkError(networking.request(typed: GetCoolCat())))
    #expect(error.code == .decodedFallback)
    #expect(error.fallbackResource(Cat.self) == Cat(name: "Tom"))
    #expect(error.message.contains("missing key 'breed'"))

    // A fallback that fails too: decodingFailed naming both.
    transport.stub(.get, "/api/cat", headerFields: jsonHeaders, body: Data(#"{"nickname":"T"}"#.utf8))
    let both = try #require(await networkError(networking.request(typed: GetCoolCat())))
    #expect(both.code == .decodingFailed)
    #expect(both.message.contains("missing key 'name'"))
    #expect(both.message.contains("the fallback did not decode either"))
    #expect(both.fallbackResource(Cat.self) == nil)
    #expect(try await networking.send(GetCatImages()).count == 2)
  }

  @Test func aStatusOutside2xxFailsBeforeDecoding() async throws {
    let (networking, transport) = makeNetworking()
    transport.stub(.get, "/api/cat", status: .notFound, headerFields: jsonHeaders, body: Data(#"{"name":"x"}"#.utf8))
    let failures = Box<[String]>([])
    networking.onFailure = { failure in failures.update { $0.append(failure.networkError?.code.description ?? "") } }
    let error = await networkError(networking.request(typed: GetCoolCat()))
    #expect(error?.code == .unacceptableStatusCode)
    #expect(failures.value == ["unacceptableStatusCode"])
  }

  @Test func transportFailuresAndTheStoppedStateReachTheHooksWithTheTypedRequest() async throws {
    let (networking, transport) = makeNetworking()
    transport.stub(.get, "/api/cat", error: TransportError(code: .connectionRefused, message: "nothing listens"))
    networking.shouldContinue = { _ in false }
    let first = await networkError(networking.request(typed: GetCoolCat()))
    #expect(first?.code == .transportFailed)
    #expect(networking.stoppingFailure?.typedRequest is GetCoolCat)
    let second = await networkError(networking.request(typed: GetCatImages()))
    #expect(second?.code == .stopped)
    #expect(second?.message.contains("after GetCoolCat failed") == true)
    networking.resume()
    #expect(try await networking.send(GetCatImages()).count == 2)
  }

  @Test func mocksAnswerTypedRequestsAndMocksOnlyNamesTheMissingOne() async throws {
    let (networking, transport) = makeNetworking()
    let mock = Mock(
      httpResponse: HTTPResponse(status: .ok, headerFields: jsonHeaders),
      data: Data(#"[{"id":"m","url":"mocked"}]"#.utf8)
    )
    try networking.register(mock: mock, forTyped: GetCatImages())
    #expect(try await networking.send(GetCatImages()) == [CatImage(id: "m", url: "mocked")])
    networking.mockMode = .mocksOnly
    let missing = await networkError(networking.request(typed: CreateCat()))
    #expect(missing?.code == .missingMock)
    #expect(missing?.message.contains("CreateCat") == true)
    #expect(transport.recordedRequests.isEmpty)
  }

  @Test func cancellingThePromiseStopsTheRequest() async throws {
    let (networking, transport) = makeNetworking()
    transport.stub(.get, "/api/cat", reply: MockTransport.Reply(status: .ok, delay: .seconds(3600)))
    let promise = networking.request(typed: GetCoolCat())
    await eventually("the request reached the transport") { !transport.recordedRequests.isEmpty }
    promise.cancel()
    let outcome = await outcome(promise)
    guard case .failure(let error) = outcome else {
      Issue.record("a cancelled request succeeded")
      return
    }
    #expect(isCancellationError(error))
    await eventually("the request landed") { networking.inFlight == 0 }
  }
}
