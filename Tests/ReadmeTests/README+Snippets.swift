// Generated from README.md and the guide's articles by Tools/scripts/readme-snippets: do not edit.
// Regenerate with `make readme`; `make build` fails while this file is out of date.
//
// Declaration blocks sit at file scope; every other block is an `async throws` function named after its
// section, ending with `_ = ...` for the names it declares. Names the prose assumes: ReadmeContext.swift.
// `#sourceLocation` makes diagnostics name the lines of README.md and of the articles.

import Foundation
import HTTPTypes
import Logging
import Malibu
import MalibuCore
import MalibuCurl
import MalibuEncoding
import MalibuSerialization
import MalibuTransport
import MalibuTypedRequests
import MalibuURLSession
import MalibuValidation
import Testing
#if Lifecycle
import MalibuLifecycle
import ServiceLifecycle
import UnixSignals
#endif
#if Metrics
import MalibuMetrics
import Metrics
#endif
#if OpenAPI
import MalibuOpenAPI
import MalibuOpenAPIExampleClient
import OpenAPIRuntime
#endif
#if Tracing
import MalibuTracing
import Tracing
#endif

// README.md:19, "Install": a Package.swift excerpt; its product names are checked against Package.swift.

/// README.md:44, "Hello".
func readmeHello() async throws {
  #sourceLocation(file:"README.md",line:47)
  struct Greeting: Decodable, Sendable { let message: String }

  let request = Request.get("http://127.0.0.1:8080/hello.json")
  let greeting = try await Malibu.request(request).validate().decode(using: Greeting.self).value
  print(greeting.message)
  #sourceLocation()
  _ = (request, greeting)
}

// Modules/Malibu/Docs.docc/Endpoints.md:12, "Describe the endpoints".
#sourceLocation(file:"Modules/Malibu/Docs.docc/Endpoints.md",line:15)
enum SharkywatersEndpoint: RequestConvertible {
  case fetchBoards
  case showBoard(id: Int)
  case createBoard(type: Int, title: String)
  case replaceBoard(id: Int, title: String)
  case updateBoard(id: Int, title: String)
  case deleteBoard(id: Int)
  case checkBoard(id: Int)
  case uploadPhoto(boardId: Int, file: URL)
  case uploadBackup(file: URL)

  static let baseUrl: (any URLStringConvertible)? = "http://127.0.0.1:8080/api/"
  static let headers: [String: String] = ["Accept": "application/json"]

  var request: Request {
    switch self {
    case .fetchBoards:
      return .get("boards")
    case .showBoard(let id):
      return .get("boards/\(id)")
    case .createBoard(let type, let title):
      return .post("boards", parameters: ["type": type, "title": title])  // a JSON body
    case .replaceBoard(let id, let title):
      return .put("boards/\(id)", contentType: .formURLEncoded, parameters: ["title": title])
    case .updateBoard(let id, let title):
      return .patch("boards/\(id)", parameters: ["title": title], headers: ["If-Match": "\"v7\""])
    case .deleteBoard(let id):
      return .delete("boards/\(id)", storePolicy: .offline)  // kept and replayed when the host is unreachable
    case .checkBoard(let id):
      return .head("boards/\(id)")
    case .uploadPhoto(let boardId, let file):
      let photo = MultipartFile(url: file, mimeType: "image/jpeg")  // streamed from disk
      return .upload(multipartParameters: ["boardId": boardId, "photo": photo], to: "photos")
    case .uploadBackup(let file):
      return .upload(fileAt: file, to: "backups", method: .put, contentType: .custom("application/zip"))
    }
  }
}

struct Board: Decodable, Sendable {
  let id: Int
  let title: String
}
#sourceLocation()

/// Modules/Malibu/Docs.docc/Endpoints.md:65, "Describe the endpoints".
func readmeDescribeTheEndpoints() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/Endpoints.md",line:66)
  let request = Request(
    method: .get,
    resource: "boards",
    contentType: .query,  // .query, .formURLEncoded, .json, .multipartFormData or .custom("application/xml")
    parameters: ["type": 1, "text": "classic"],  // Parameters = [String: any Sendable], nested values allowed
    headers: ["X-Board-Version": "2"],
    storePolicy: .unspecified,  // .offline: saved when the host cannot be reached, sent again by replay()
    cachePolicy: .useProtocolCachePolicy  // see "HTTP cache" below
  )
  let signed = request.adding(parameters: ["userId": "12345"], headers: ["X-Token": "abc"])
  let url = try signed.buildURL(baseUrl: SharkywatersEndpoint.baseUrl)
  // http://127.0.0.1:8080/api/boards?text=classic&type=1&userId=12345
  #sourceLocation()
  _ = (request, signed, url)
}

/// Modules/Malibu/Docs.docc/Endpoints.md:91, "Networking".
func readmeNetworking() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/Endpoints.md",line:92)
  let networking = Networking<SharkywatersEndpoint>()  // .async, curl (URLSession on iOS and co.), no HTTP cache
  let serial = Networking<SharkywatersEndpoint>(mode: .sync)  // one request at a time, in call order
  let pooled = Networking<SharkywatersEndpoint>(mode: .limited(4))  // at most four in flight
  let system = Networking<SharkywatersEndpoint>(sessionConfiguration: .ephemeral, transport: .urlSession)
  let tested = Networking<SharkywatersEndpoint>(transport: .custom(MockTransport()))  // see "Mocking"
  #sourceLocation()
  _ = (networking, serial, pooled, system, tested)
}

/// Modules/Malibu/Docs.docc/Endpoints.md:107, "Networking".
func readmeNetworking2() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/Endpoints.md",line:108)
  networking.headers = ["X-Client": "sharkywaters"]
  networking.beforeEach = { request in
    request.adding(parameters: ["locale": "en"], headers: ["X-Request-Source": "app"])
  }
  networking.preProcessRequest = { request in
    var request = request
    request.headerFields[HTTPField.Name("X-Trace")!] = "on"
    return request
  }
  networking.middleware = { gate in
    gate.resolve()  // let the request go on; gate.reject(error) fails it with NetworkError code .requestRejected
  }
  #sourceLocation()
}

/// Modules/Malibu/Docs.docc/Endpoints.md:131, "Making requests".
func readmeMakingRequests() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/Endpoints.md",line:132)
  networking.request(.fetchBoards)
    .validate()
    .decode(using: [Board].self)
    .done { boards in print(boards.count) }
    .fail { error in print(error) }  // a NetworkError; cancellations are skipped unless .fail(policy: .allErrors)
    .always { _ in print("finished") }

  let boards = try await networking.request(.fetchBoards).validate().decode(using: [Board].self).value
  let titles: Promise<[String]> = networking.request(.fetchBoards)
    .validate()
    .decode(using: [Board].self)
    .then { boards in boards.map(\.title) }
    .recover { _ in [] }
  let both = try await when(networking.request(.showBoard(id: 1)), networking.request(.showBoard(id: 2))).value
  #sourceLocation()
  _ = (boards, titles, both)
}

/// Modules/Malibu/Docs.docc/Endpoints.md:150, "Making requests".
func readmeMakingRequests2() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/Endpoints.md",line:151)
  let promise = networking.request(.showBoard(id: 1))
  promise.validate()  // a 2xx status and a Content-Type the request's Accept asks for
  promise.validate(statusCodes: [200, 201])  // or a range: 200..<300
  promise.validate(contentTypes: ["application/json", "text/*"])
  promise.validate(using: CombinedValidator(StatusCodeValidator([200]), ContentTypeValidator(["application/json"])))

  let data: Data = try await promise.toData().value
  let text: String = try await promise.toString().value  // the charset of Content-Type, else UTF-8
  let object: [String: any Sendable] = try await promise.toJsonDictionary().value  // null is JSONNull
  let array: [any Sendable] = try await networking.request(.fetchBoards).toJsonArray().value
  let decoder = JSONDecoder()
  decoder.keyDecodingStrategy = .convertFromSnakeCase
  let board: Board = try await promise.decode(using: Board.self, decoder: decoder).value
  let response: Response = try await promise.value  // data, statusCode, headers, request, url
  #sourceLocation()
  _ = (promise, data, text, object, array, decoder, board, response)
}

/// Modules/Malibu/Docs.docc/Endpoints.md:174, "Codable bodies and per-request options".
func readmeCodableBodiesAndPerRequestOptions() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/Endpoints.md",line:175)
  struct NewBoard: Codable, Sendable {
    let title: String
    let tags: [String]
  }

  let created = try await networking.request(.createBoard(type: 1, title: "Balsa Fish")).value  // parameters, as ever
  let withBody = Request.post("boards", body: NewBoard(title: "Balsa Fish", tags: ["fast"]))  // {"tags":[...],...}
  let batch = Request.put("boards", body: [NewBoard(title: "A", tags: []), NewBoard(title: "B", tags: [])])
  let form = Request.patch("boards/1", body: NewBoard(title: "B", tags: []), contentType: .formURLEncoded)
  let snakeCase = JSONEncoder()
  snakeCase.keyEncodingStrategy = .convertToSnakeCase
  let own = Request.post("boards", body: NewBoard(title: "C", tags: []), encoder: snakeCase, parameters: ["a": 1])
  #sourceLocation()
  _ = (created, withBody, batch, form, snakeCase, own)
}

/// Modules/Malibu/Docs.docc/Endpoints.md:192, "Codable bodies and per-request options".
func readmeCodableBodiesAndPerRequestOptions2() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/Endpoints.md",line:193)
  let quick = try await networking.request(.fetchBoards) { options in
    options.timeouts.total = .seconds(5)  // this request only
    options.redirects = .none
  }.value
  networking.transferOptionsForEndpoint = { endpoint, options in
    if case .uploadBackup = endpoint { options.timeouts.total = .seconds(600) }
  }
  networking.progress = { event in  // a RequestProgress: endpoint, request head, TransferProgress
    print(event.endpoint.map { "\($0)" } ?? "replay", event.request.path ?? "", event.progress.uploaded)
  }
  #sourceLocation()
  _ = quick
}

/// Modules/Malibu/Docs.docc/Endpoints.md:214, "Decoders and encoders".
func readmeDecodersAndEncoders() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/Endpoints.md",line:215)
  let foundation = JSONDecoder()
  foundation.keyDecodingStrategy = .convertFromSnakeCase
  let one = try await networking.request(.showBoard(id: 1)).validate()
    .decode(using: Board.self, decoder: foundation).value  // this call only
  networking.decoder = foundation  // every decode of this networking that names no decoder
  networking.decoder = MalibuJSONDecoder()  // and back to the default

  // Bodies: an encoder of the body's own (its content type is sent), or the networking's for bodies without one.
  let plist = Request.post("boards", body: ["title": "D"], encoder: PropertyListEncoder())  // application/x-plist
  networking.bodyEncoder = MalibuJSONEncoder()  // nil (the default): Malibu's JSON rules, keys sorted
  #sourceLocation()
  _ = (foundation, one, plist)
}

/// Modules/Malibu/Docs.docc/Endpoints.md:230, "Decoders and encoders".
func readmeDecodersAndEncoders2() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/Endpoints.md",line:231)
  /// JSON behind an anti-XSSI prefix (`)]}'` and a newline), as some APIs send it.
  struct XSSIDecoder: ResponseDecoder {
    func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
      let prefix = Data(")]}'\n".utf8)
      let body = data.starts(with: prefix) ? data.dropFirst(prefix.count) : data
      return try MalibuJSONDecoder().decode(type, from: body)
    }
  }

  let boards = networking.request(.fetchBoards).validate().decode(using: [Board].self, decoder: XSSIDecoder())
  #sourceLocation()
  _ = boards
}

/// Modules/Malibu/Docs.docc/Endpoints.md:254, "The Malibu namespace".
func readmeTheMalibuNamespace() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/Endpoints.md",line:255)
  struct PlainTextEncoder: ParameterEncoding {
    func encode(parameters: Parameters) throws -> Data? {
      let lines = parameters.keys.sorted().map { key in "\(key)=\(parameters[key]!)" }
      return lines.isEmpty ? nil : Data(lines.joined(separator: "\n").utf8)
    }
  }

  Malibu.request(Request.get("http://127.0.0.1:8080/status")).validate().toString().done { text in print(text) }
  Malibu.register("sharkywaters", networking: networking)
  let same: Networking<SharkywatersEndpoint>? = Malibu.networking("sharkywaters")
  Malibu.unregister("sharkywaters")
  Malibu.parameterEncoders[.custom("text/plain")] = PlainTextEncoder()  // any ParameterEncoding, by content type
  Malibu.logger.level = .error
  #sourceLocation()
  _ = same
}

// Modules/Malibu/Docs.docc/TypedRequests.md:86, "Typed requests in use".
#sourceLocation(file:"Modules/Malibu/Docs.docc/TypedRequests.md",line:87)
struct CatImage: Decodable, Sendable {
  let id: String
  let url: String
}

struct GetCatImages: TypedRequest {
  typealias RawResource = [CatImage]
  var method: HTTPRequest.Method { .get }
  var path: String { "images/search" }
  var parameters: [String: String] { ["mime_type": "jpg,png", "limit": "2"] }
}

struct GetCatImageURL: TypedRequest {
  typealias RawResource = [CatImage]
  typealias FinalResource = URL
  struct NoCat: Error {}
  var method: HTTPRequest.Method { .get }
  var path: String { "images/search" }

  func finalize(raw: [CatImage]) async throws -> URL {
    guard let first = raw.first, let url = URL(string: first.url) else { throw NoCat() }
    return url
  }
}
#sourceLocation()

/// Modules/Malibu/Docs.docc/TypedRequests.md:113, "Typed requests in use".
func readmeTypedRequestsInUse() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/TypedRequests.md",line:114)
  let cats = try await networking.send(GetCatImages())  // GET images/search?limit=2&mime_type=jpg%2Cpng → [CatImage]
  let catURL = try await networking.send(GetCatImageURL())  // the first cat's URL, made by finalize(raw:)
  networking.request(typed: GetCatImages()).done { cats in print(cats.count) }  // the promise form
  let quickCats = try await networking.send(GetCatImages()) { options in options.timeouts.total = .seconds(5) }
  try networking.register(mock: Mock(json: ["name": "Tom"]), forTyped: GetCoolCat())  // mocks, as for endpoints
  #sourceLocation()
  _ = (cats, catURL, quickCats)
}

// Modules/Malibu/Docs.docc/TypedRequests.md:130, "Typed requests in use".
#sourceLocation(file:"Modules/Malibu/Docs.docc/TypedRequests.md",line:131)
struct Post: Decodable, Sendable {
  let title: String
  let content: String
}

struct GetPosts: TypedRequest {
  typealias RawResource = [Post]
  var method: HTTPRequest.Method { .get }
  var path: String { "posts" }
  var resourceKeyPath: ResourceKeyPath? { "data" }  // {"data": [...]}
  var arrayDecoding: ArrayDecodingStrategy { .lossy }
}

struct Cat: Decodable, Sendable {
  let name: String
}

struct GetCoolCat: TypedRequest {
  struct CoolCat: Decodable, Sendable {
    let name: String
    let breed: String
  }
  typealias RawResource = CoolCat
  typealias FallbackResource = Cat
  var method: HTTPRequest.Method { .get }
  var path: String { "cats/1" }
}
#sourceLocation()

/// Modules/Malibu/Docs.docc/TypedRequests.md:160, "Typed requests in use".
func readmeTypedRequestsInUse2() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/TypedRequests.md",line:161)
  let posts = try await networking.send(GetPosts())  // the posts that decode; the others reach `failures`
  do {
    _ = try await networking.send(GetCoolCat())
  } catch let error as NetworkError where error.code == .decodedFallback {
    print(error.fallbackResource(Cat.self)?.name ?? "")  // the cat without a breed
  }
  let boards = try await networking.request(.fetchBoards).validate()
    .decodeResource(using: [Board].self, at: .topLevel, arrays: .lossy).value
  networking.resourceKeyPath = "data"  // from now on, for typed requests that name no key path of their own
  #sourceLocation()
  _ = (posts, boards)
}

// Modules/Malibu/Docs.docc/TypedRequests.md:179, "Typed requests in use".
#sourceLocation(file:"Modules/Malibu/Docs.docc/TypedRequests.md",line:180)
struct PostTitles: Decodable, Sendable {
  struct Post: Decodable, Sendable {
    let id: String
    let title: String
  }
  let posts: [Post]
}

struct AllPosts: GraphQLRequest {
  typealias RawResource = PostTitles
  var query: GraphQLQuery { "query AllPosts($first: Int) { posts(first: $first) { id title } }" }
  var variables: [String: Int] { ["first": 2] }
  var operationName: String? { "AllPosts" }
}
#sourceLocation()

/// Modules/Malibu/Docs.docc/TypedRequests.md:196, "Typed requests in use".
func readmeTypedRequestsInUse3() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/TypedRequests.md",line:197)
  do {
    let posts = try await networking.send(AllPosts()).posts
    print(posts.map(\.title))
  } catch let error as NetworkError where error.code == .graphQLErrors {
    for entry in error.graphQLError?.errors ?? [] { print(entry.message, entry.pathText ?? "") }
    let partial = try error.graphQLError?.partialData(PostTitles.self)  // what the server could answer
    print(partial?.posts.count ?? 0)
  }
  #sourceLocation()
}

// Modules/Malibu/Docs.docc/TypedRequests.md:211, "Typed requests in use".
#sourceLocation(file:"Modules/Malibu/Docs.docc/TypedRequests.md",line:212)
struct StagingInterceptor: RequestInterceptor {
  func adapt(_ request: HTTPRequest) async throws -> AdaptedRequest {
    if request.path?.hasPrefix("/api/boards/404") == true {
      return .mocked(Mock(json: ["id": 404, "title": "Staged"]))
    }
    var changed = request
    changed.headerFields[HTTPField.Name("X-Stage")!] = "staging"
    return .changed(changed)
  }
}
#sourceLocation()

/// Modules/Malibu/Docs.docc/TypedRequests.md:224, "Typed requests in use".
func readmeTypedRequestsInUse4() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/TypedRequests.md",line:225)
  networking.interceptors = [StagingInterceptor()]
  let staged = try await networking.request(.showBoard(id: 404)).validate().decode(using: Board.self).value
  #sourceLocation()
  _ = staged
}

/// Modules/Malibu/Docs.docc/ErrorsAndFailures.md:23, "Errors".
func readmeErrors() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/ErrorsAndFailures.md",line:24)
  do {
    _ = try await networking.request(.showBoard(id: 404)).validate().value
  } catch let error as NetworkError {
    switch error.code {
    case .unacceptableStatusCode:
      let body = String(decoding: error.response?.data ?? Data(), as: UTF8.self)
      print("status \(error.response?.statusCode ?? 0): \(body)")
    case .timedOut:
      print("too slow: \(error.message)")  // the underlying TransportError says which timeout
    case .transportFailed:
      let transportError = error.underlyingError as? TransportError
      print("not sent: \(transportError?.code == .connectionRefused ? "server down" : error.message)")
    default:
      print(error)
    }
  }
  #sourceLocation()
}

/// Modules/Malibu/Docs.docc/ErrorsAndFailures.md:55, "Failures and activity".
func readmeFailuresAndActivity() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/ErrorsAndFailures.md",line:56)
  networking.onFailure = { failure in
    print("\(failure.request.resource.urlString) failed: \(failure.error)")  // endpoint: nil if typed
  }
  let failures = networking.failures
  Task {
    for await failure in failures where failure.response?.statusCode == 503 { print("retry later", failure.request) }
  }
  Task { @MainActor in
    for await count in networking.activity { print(count == 0 ? "idle" : "\(count) requests") }
  }
  print(networking.inFlight)
  #sourceLocation()
  _ = failures
}

/// Modules/Malibu/Docs.docc/ErrorsAndFailures.md:75, "Failures and activity".
func readmeFailuresAndActivity2() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/ErrorsAndFailures.md",line:76)
  struct APIError: Error { let message: String }
  struct APIErrorBody: Decodable { let error: String? }

  networking.shouldContinue = { failure in
    guard case .fetchBoards = failure.endpoint else { return true }
    return failure.networkError?.response?.statusCode != 401  // a revoked token: stop until signed in again
  }
  networking.validate = { response in
    if let body = try? JSONDecoder().decode(APIErrorBody.self, from: response.data), let message = body.error {
      throw APIError(message: message)  // a 200 with an error object
    }
  }
  do {
    _ = try await networking.request(.fetchBoards).validate().value
  } catch let error as APIError {
    print("the API said: \(error.message)")
  }
  if networking.isStopped {
    networking.authenticate(bearerToken: try await refreshAccessToken())
    networking.resume()
  }
  #sourceLocation()
}

/// Modules/Malibu/Docs.docc/ErrorsAndFailures.md:101, "Cancellation".
func readmeCancellation() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/ErrorsAndFailures.md",line:102)
  let promise = networking.request(.fetchBoards)
  promise.cancel()  // rejects it with CancellationError and stops the transfer, wherever it is

  networking.cancelAllRequests()  // every unfinished request of this networking: NetworkError code .cancelled

  let task = Task {
    try await networking.request(.fetchBoards).validate().decode(using: [Board].self).value
  }
  task.cancel()  // cancelling the awaiting task cancels the promise, and the request with it
  #sourceLocation()
  _ = (promise, task)
}

/// Modules/Malibu/Docs.docc/AuthenticationAndLogging.md:13, "Authentication".
func readmeAuthentication() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/AuthenticationAndLogging.md",line:14)
  networking.authenticate(username: "malibu", password: "surfingparadise")  // Authorization: Basic ...
  networking.authenticate(bearerToken: token)  // Authorization: Bearer <token>
  networking.authenticate(authorizationHeader: "Malibu-Token abc123")  // the whole value, as it is
  networking.clearAuthentication()
  #sourceLocation()
}

/// Modules/Malibu/Docs.docc/AuthenticationAndLogging.md:24, "Authentication".
func readmeAuthentication2() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/AuthenticationAndLogging.md",line:25)
  networking.authenticate(bearerToken: token) {
    try await refreshAccessToken()  // your code: ask the auth server for a new access token
  }
  #sourceLocation()
}

/// Modules/Malibu/Docs.docc/AuthenticationAndLogging.md:39, "Logging".
func readmeLogging() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/AuthenticationAndLogging.md",line:40)
  var logger = Logger(label: "com.example.surf")  // the application's logger
  logger.logLevel = .debug  // responses and failures; .trace adds each request as it is sent
  let surf = Networking<SharkywatersEndpoint>(logger: logger)  // logs to it, at LogLevel.info
  surf.logger.level = .verbose  // and header fields, body size, type and preview (secrets redacted)

  var requestLogger = logger  // one request's logger wins over the networking's, for that request
  requestLogger[metadataKey: "request-id"] = "4711"
  let boards = try await networking.request(.fetchBoards, logger: requestLogger).validate().toJsonArray().value
  #sourceLocation()
  _ = (logger, surf, requestLogger, boards)
}

/// Modules/Malibu/Docs.docc/AuthenticationAndLogging.md:65, "Logging".
func readmeLogging2() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/AuthenticationAndLogging.md",line:66)
  Malibu.logger.level = .error  // networkings without a Logger of their own
  Malibu.logger.logger = Logger(label: "com.example.surf.malibu")  // instead of "malibu"
  Malibu.logger.redactedHeaderNames.insert("X-Api-Key")
  Malibu.logger.redactedParameterKeys.insert("pin")
  #sourceLocation()
}

/// Modules/Malibu/Docs.docc/Mocking.md:11, "Mocking".
func readmeMocking() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/Mocking.md",line:12)
  let mockProvider = MockProvider<SharkywatersEndpoint>(delay: 0.05) { endpoint in
    switch endpoint {
    case .fetchBoards:
      return Mock(fileName: "boards.json", bundle: .module)  // a resource of your test target
    case .showBoard(let id):
      return Mock(json: ["id": id, "title": "Balsa Fish"])
    case .deleteBoard:
      return Mock(httpResponse: HTTPResponse(status: .noContent))
    case .createBoard:
      return Mock(httpResponse: HTTPResponse(status: .serviceUnavailable), data: Data(#"{"error":"later"}"#.utf8))
    default:
      return nil
    }
  }
  let mocked = Networking<SharkywatersEndpoint>(mockProvider: mockProvider)
  let boards = try await mocked.request(.fetchBoards).validate().decode(using: [Board].self).value
  #sourceLocation()
  _ = (mockProvider, mocked, boards)
}

/// Modules/Malibu/Docs.docc/Mocking.md:36, "Mocking".
func readmeMocking2() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/Mocking.md",line:39)
  let transport = MockTransport()
  transport.stub(.get, "/api/boards", headerFields: [.contentType: "application/json"], body: Data("[]".utf8))
  transport.stub(.get, "/api/boards/*", status: .notFound)
  transport.stub(.post, "/api/boards", error: TransportError(code: .connectionReset, message: "reset"))
  let networking = Networking<SharkywatersEndpoint>(transport: .custom(transport))

  let boards = try await networking.request(.fetchBoards).validate().decode(using: [Board].self).value
  #expect(boards.isEmpty)
  #expect(transport.recordedRequests.map(\.path) == ["/api/boards"])
  #sourceLocation()
  _ = (transport, networking, boards)
}

/// Modules/Malibu/Docs.docc/Mocking.md:59, "Mock modes".
func readmeMockModes() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/Mocking.md",line:60)
  let previews = Networking<SharkywatersEndpoint>()
  previews.mockMode = .mocksOnly
  previews.register(mock: Mock(json: ["id": 1, "title": "Balsa Fish"]), for: .showBoard(id: 1))
  let board = try await previews.request(.showBoard(id: 1)).validate().toJsonDictionary().value
  do {
    _ = try await previews.request(.fetchBoards).value
  } catch let error as NetworkError where error.code == .missingMock {
    print(error.message)  // no mock answers SharkywatersEndpoint.fetchBoards (GET /api/boards) and …
  }
  previews.unregisterMock(for: .showBoard(id: 1))
  #sourceLocation()
  _ = (previews, board)
}

/// Modules/Malibu/Docs.docc/Mocking.md:81, "Record and replay".
func readmeRecordAndReplay() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/Mocking.md",line:82)
  let recording = CassetteTransport(recording: cassette, through: server)
  let live = Networking<SharkywatersEndpoint>(transport: .custom(recording))
  _ = try await live.request(.fetchBoards).validate().decode(using: [Board].self).value
  #sourceLocation()
  _ = (recording, live)
}

/// Modules/Malibu/Docs.docc/Mocking.md:89, "Record and replay".
func readmeRecordAndReplay2() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/Mocking.md",line:92)
  let replaying = Networking<SharkywatersEndpoint>(transport: .custom(CassetteTransport(replaying: cassette)))
  let boards = try await replaying.request(.fetchBoards).validate().decode(using: [Board].self).value
  #expect(boards.map(\.title) == ["Balsa Fish", "Wave Rider"])
  #sourceLocation()
  _ = (replaying, boards)
}

/// Modules/Malibu/Docs.docc/OfflineAndCaching.md:18, "Offline storage and replay".
func readmeOfflineStorageAndReplay() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/OfflineAndCaching.md",line:19)
  let store = OfflineRequestStore(directory: try OfflineRequestStore.defaultDirectory(name: "sharkywaters"))
  let networking = Networking<SharkywatersEndpoint>(offlineStore: store)
  networking.request(.deleteBoard(id: 11))

  // Later, when the network is back:
  let outcomes: [ReplayOutcome] = try await networking.replay().value  // Result<Response, NetworkError> each
  print("\(outcomes.count) requests replayed")
  try networking.clearOfflineRequestStorage()  // forget what is left
  try Malibu.clearOfflineRequestStorage()  // the default store, shared by networkings created without one
  #sourceLocation()
  _ = (store, networking, outcomes)
}

/// Modules/Malibu/Docs.docc/OfflineAndCaching.md:44, "HTTP cache".
func readmeHTTPCache() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/OfflineAndCaching.md",line:45)
  let cache = HTTPCache(maxBodyBytes: 1 << 20, directory: URL(fileURLWithPath: "/var/cache/sharkywaters"))
  let networking = Networking<SharkywatersEndpoint>(cache: cache)
  let response = try await networking.request(.fetchBoards).validate().value
  print(response.isFromCache)  // true when answered from the cache, or after a 304
  let offline = Request.get("boards", cachePolicy: .returnCacheDataDontLoad)
  #sourceLocation()
  _ = (cache, networking, response, offline)
}

/// Modules/Malibu/Docs.docc/OfflineAndCaching.md:65, "ETags".
func readmeETags() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/OfflineAndCaching.md",line:66)
  networking.etagPolicy = .enabled
  networking.etagStore = ETagStore(maxTotalBytes: 1 << 20, credentialFields: [HTTPField.Name("X-Api-Key")!])
  let boards = try await networking.request(.fetchBoards).validate().value
  let again = try await networking.request(.fetchBoards).validate().value  // If-None-Match; a 304 answered here
  print(again.isFromCache, again.data == boards.data)

  var live = Request.get("boards/live")
  live.etagPolicy = .disabled  // this request only
  #sourceLocation()
  _ = (boards, again, live)
}

/// Modules/Malibu/Docs.docc/OfflineAndCaching.md:92, "Cookies".
func readmeCookies() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/OfflineAndCaching.md",line:93)
  let jar = CookieJar(fileURL: URL(fileURLWithPath: "/var/lib/sharkywaters/cookies.json"))
  let withCookies = Networking<SharkywatersEndpoint>(cookies: jar)  // or, a transport alone:
  let transport = URLSessionTransport().with(middleware: [CookieMiddleware(jar: jar)])
  _ = try await withCookies.request(.fetchBoards).validate().value
  print(jar.cookieHeader(for: URL(string: "https://api.sharkywaters.example/boards")!) ?? "no cookies")
  let refused = jar.store(setCookie: ["id=1; Domain=evil.example"], from: URL(string: "https://example.com/")!)
  print(refused.map(\.reason))  // [domainMismatch]
  jar.removeAll()
  #sourceLocation()
  _ = (jar, withCookies, transport, refused)
}

/// Modules/Malibu/Docs.docc/Transfers.md:13, "Downloads".
func readmeDownloads() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/Transfers.md",line:14)
  let destination = FileManager.default.temporaryDirectory.appendingPathComponent("boards.json")
  let file: DownloadedFile = try await networking.download(.fetchBoards, to: destination, resume: true).value
  print(file.location.path, file.byteCount, file.isResumed)  // isResumed: an earlier partial file was continued
  #sourceLocation()
  _ = (destination, file)
}

/// Modules/Malibu/Docs.docc/Transfers.md:34, "Downloads".
func readmeDownloads2() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/Transfers.md",line:35)
  let request = HTTPRequest(method: .get, url: URL(string: "http://127.0.0.1:8080/files/big.bin")!)
  let saved = try await CurlTransport().download(request, to: URL(fileURLWithPath: "/tmp/big.bin"), resume: true)
  #sourceLocation()
  _ = (request, saved)
}

/// Modules/Malibu/Docs.docc/Transfers.md:45, "Streaming".
func readmeStreaming() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/Transfers.md",line:46)
  let response = try await networking.stream(.fetchBoards)
  if response.statusCode == 200 {
    var received = 0
    for try await chunk in response.body { received += chunk.count }  // errors are NetworkErrors
    print("\(received) bytes")
  }
  #sourceLocation()
  _ = response
}

// Modules/Malibu/Docs.docc/Transfers.md:68, "Server-sent events".
#sourceLocation(file:"Modules/Malibu/Docs.docc/Transfers.md",line:69)
enum Assistant: RequestConvertible {
  case complete(prompt: String)

  static let baseUrl: (any URLStringConvertible)? = "https://llm.example.com/v1/"
  static let headers: [String: String] = [:]

  var request: Request {
    switch self {
    case .complete(let prompt): .post("completions", parameters: ["prompt": prompt, "stream": true])
    }
  }
}

struct CompletionChunk: Decodable, Sendable {
  let text: String
}
#sourceLocation()

/// Modules/Malibu/Docs.docc/Transfers.md:87, "Server-sent events".
func readmeServerSentEvents() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/Transfers.md",line:88)
  let assistant = Networking<Assistant>()
  var answer = ""
  for try await event in assistant.events(.complete(prompt: "Name three sharks"), as: CompletionChunk.self) {
    switch event {
    case .value(let chunk, _): answer += chunk.text
    case .undecodable(let raw, let error): print("skipped \(raw.data): \(error)")
    }
  }
  #sourceLocation()
  _ = (assistant, answer)
}

// Modules/Malibu/Docs.docc/Transfers.md:103, "Server-sent events".
#sourceLocation(file:"Modules/Malibu/Docs.docc/Transfers.md",line:104)
enum Feed: RequestConvertible {
  case notifications

  static let baseUrl: (any URLStringConvertible)? = "https://api.example.com/"
  static let headers: [String: String] = [:]

  var request: Request { .get("notifications") }
}
#sourceLocation()

/// Modules/Malibu/Docs.docc/Transfers.md:114, "Server-sent events".
func readmeServerSentEvents2() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/Transfers.md",line:115)
  let feed = Networking<Feed>()
  feed.authenticate(bearerToken: token)  // re-sent on every reconnection, refreshed tokens included
  let reconnection = EventReconnection(delay: .seconds(2), maximumDelay: .seconds(30), idleTimeout: .seconds(45))
  for try await notification in feed.events(.notifications, reconnection: reconnection) {
    print(notification.id, notification.type, notification.data)  // id: what a reconnection sends as Last-Event-ID
    if notification.type == "bye" { break }
  }
  #sourceLocation()
  _ = (feed, reconnection)
}

/// Modules/Malibu/Docs.docc/Transfers.md:127, "Server-sent events".
func readmeServerSentEvents3() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/Transfers.md",line:128)
  let script = MockEventStream([
    .event(ServerSentEvent(data: "wave", id: "1", retry: 10)),
    .pause(.milliseconds(20)),
    .drop,
    .event(ServerSentEvent(type: "bye", data: "", id: "2")),
  ])
  let mocked = Networking<Feed>(mockProvider: MockProvider { _ in Mock(events: script) })
  var types: [String] = []
  for try await notification in mocked.events(.notifications) { types.append(notification.type) }
  #expect(types == ["message", "bye"])
  #sourceLocation()
  _ = (script, mocked, types)
}

/// Modules/Malibu/Docs.docc/Transfers.md:149, "Gzip".
func readmeGzip() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/Transfers.md",line:150)
  var options = networking.transferOptions
  options.requestCompression = .gzip  // Content-Encoding: gzip, sent chunked
  options.decompression = .enabled(limit: 50 << 20)  // a larger decoded body fails with bodyTooLarge
  networking.transferOptions = options

  let packed = try Gzip.deflate(Data("hello".utf8))
  let unpacked = try Gzip.inflate(packed, limit: 1 << 20)  // gzip, zlib or raw deflate, detected
  #sourceLocation()
  _ = (options, packed, unpacked)
}

/// Modules/Malibu/Docs.docc/Transfers.md:161, "Transfer options".
func readmeTransferOptions() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/Transfers.md",line:162)
  var options = TransferOptions()
  options.timeouts = Timeouts(connect: .seconds(5), idle: .seconds(30), total: .seconds(120))
  options.redirects = .follow(max: 3)  // .none returns the 3xx response itself
  options.redirects.sensitiveFields = [HTTPField.Name("X-Api-Key")!]  // dropped with Authorization across origins
  options.decompression = .disabled  // bodies as they arrived (curl only; see the Transports table)
  options.tls = TLSOptions(caFile: "/etc/ssl/certs/private-ca.pem")  // also pinnedPublicKey: "sha256//...", insecure
  options.progress = { progress in print(progress.downloaded, progress.downloadTotal ?? -1) }
  networking.transferOptions = options
  networking.maximumResponseSize = 10 << 20  // 256 MiB by default
  #sourceLocation()
  _ = options
}

/// Modules/Malibu/Docs.docc/Transfers.md:193, "Retries".
func readmeRetries() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/Transfers.md",line:194)
  networking.transferOptions.retry = .default  // 3 attempts, backoff from 0.5 s, Retry-After waited for up to 30 s
  networking.transferOptions.retry.noRetryIfRetryAfterExceeds = .seconds(60)  // a longer one returns the response
  networking.transferOptions.retry.maxAttempts = 5
  networking.transferOptions.retry.statuses.remove(.internalServerError)  // 408, 429, 500, 502, 503, 504 by default
  networking.transferOptions.retry.methods.insert(.post)  // only when the server recognises a repeated POST

  // A transport alone: RetryMiddleware, innermost, reads each request's TransferOptions.retry.
  let transport = CurlTransport().with(middleware: [RetryMiddleware()])
  var options = TransferOptions()
  options.retry = RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(200), maxDelay: .seconds(5))
  let url = URL(string: "http://127.0.0.1:8080/api/boards")!
  let (head, data, _) = try await transport.data(for: HTTPRequest(method: .get, url: url), options: options)
  #sourceLocation()
  _ = (transport, options, url, head, data)
}

/// Modules/Malibu/Docs.docc/Transfers.md:231, "HTTPS only, proxies and session configuration".
func readmeHTTPSOnlyProxiesAndSessionConfiguration() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/Transfers.md",line:232)
  var options = TransferOptions()
  options.insecureHTTP = .refuse  // http:// requests and redirects to http:// fail with `insecureScheme`
  options.insecureHTTP = .upgrade  // ... or go over https:// to the same host and path
  options.proxy = .http(host: "proxy.internal", port: 3128, bypass: ["localhost", ".corp.example"])
  options.proxy = .socks5(host: "127.0.0.1", port: 1080, credentials: ProxyCredentials(user: "u", password: "p"))
  options.proxy = .direct  // no proxy, whatever http_proxy says
  networking.transferOptions = options

  let configuration = URLSessionConfiguration.ephemeral
  configuration.httpAdditionalHeaders = ["X-Client": "board-app"]  // sent on every transport
  configuration.timeoutIntervalForRequest = 20  // the idle timeout, on every transport
  let configured = Networking<SharkywatersEndpoint>(sessionConfiguration: .custom(configuration))
  #sourceLocation()
  _ = (options, configuration, configured)
}

#if OpenAPI
/// Modules/Malibu/Docs.docc/OnAServer.md:29, "OpenAPI".
func readmeOpenAPI() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/OnAServer.md",line:33)
  let auth = AuthenticationMiddleware(authorization: .bearer(token))  // any Malibu middleware
  let transport = OpenAPITransport(
    options: TransferOptions(timeouts: Timeouts(idle: .seconds(10), total: .seconds(60))),
    middleware: [auth]
  )  // OpenAPITransport(transport: URLSessionTransport(), ...) for another transport
  let client = Client(serverURL: URL(string: "http://127.0.0.1:8080")!, transport: transport)  // the generated client
  do {
    switch try await client.getBearer() {
    case .ok(let ok): print(try ok.body.json.authenticated)
    case .unauthorized(let denied): print("401:", denied.headers.WWW_hyphen_Authenticate)
    case .undocumented(let status, _): print("unexpected", status)
    }
  } catch let error as ClientError {
    print(error.underlyingError)  // a TransportError: .idleTimeout, .cancelled, .bodyTooLarge, ...
  }
  #sourceLocation()
  _ = (auth, transport, client)
}
#endif

#if Tracing
// Modules/Malibu/Docs.docc/OnAServer.md:62, "Tracing".
#sourceLocation(file:"Modules/Malibu/Docs.docc/OnAServer.md",line:66)
// Made once, at start-up, and shared by every networking of the process (each CurlTransport has its own thread and
// connection pool). A tracer given to the middleware needs no bootstrap: what a library or a test does.
func makeTracedTransport(tracer: some Tracer) -> any Transport {
  CurlTransport().with(middleware: [TracingMiddleware(tracer: tracer)])
}
#sourceLocation()
#endif

#if Metrics && Tracing
/// Modules/Malibu/Docs.docc/OnAServer.md:90, "Metrics".
func readmeMetrics() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/OnAServer.md",line:95)
  // main.swift, once per process, before anything reports:
  //   MetricsSystem.bootstrap(prometheus); InstrumentationSystem.bootstrap(tracer)
  // then one transport for the whole process, shared by its networkings:
  let observed = CurlTransport().with(middleware: [MetricsMiddleware(), TracingMiddleware()])
  let boards = Networking<SharkywatersEndpoint>(transport: .custom(observed))
  let members = Networking<SharkywatersEndpoint>(transport: .custom(observed))
  #sourceLocation()
  _ = (observed, boards, members)
}
#endif

/// Modules/Malibu/Docs.docc/OnAServer.md:119, "Timings".
func readmeTimings() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/OnAServer.md",line:120)
  let response = try await networking.request(.fetchBoards).value
  if let metrics = response.metrics, let firstByte = metrics.firstByte {
    let reused = metrics.isReusedConnection == true ? "reused" : "new"
    print("HTTP/\(metrics.httpVersion ?? "?") \(reused) connection, first byte after \(firstByte)")
  }
  #sourceLocation()
  _ = response
}

/// Modules/Malibu/Docs.docc/OnAServer.md:138, "Graceful shutdown".
func readmeGracefulShutdown() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/OnAServer.md",line:139)
  await networking.shutdown(gracePeriod: .seconds(10))
  #sourceLocation()
}

#if Lifecycle
// Modules/Malibu/Docs.docc/OnAServer.md:146, "Graceful shutdown".
#sourceLocation(file:"Modules/Malibu/Docs.docc/OnAServer.md",line:152)
func runServer(_ server: some Service, logger: Logger) async throws {
  let transport = CurlTransport()
  let networking = Networking<SharkywatersEndpoint>(transport: .custom(transport))
  let group = ServiceGroup(
    services: [MalibuService([networking, transport], gracePeriod: .seconds(10)), server],
    gracefulShutdownSignals: [.sigterm],
    logger: logger
  )
  try await group.run()
}
#sourceLocation()
#endif

/// Modules/Malibu/Docs.docc/SingleModules.md:15, "Using single modules".
func readmeUsingSingleModules() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/SingleModules.md",line:18)
  let transport = CurlTransport()
  var head = HTTPRequest(method: .get, url: URL(string: "http://127.0.0.1:8080/api/boards?type=1")!)
  head.headerFields[.accept] = "application/json"
  let (answer, data, finalURL) = try await transport.data(for: head)  // no body, TransferOptions(), 256 MiB at most
  #sourceLocation()
  _ = (transport, head, answer, data, finalURL)
}

/// Modules/Malibu/Docs.docc/SingleModules.md:26, "Using single modules".
func readmeUsingSingleModules2() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/SingleModules.md",line:37)
  let transport = CurlTransport()
  let system = URLSessionTransport()  // the same Transport contract over URLSession; init(configuration:) too
  let url = try Request.get("boards", parameters: ["type": 1]).buildURL(baseUrl: "http://127.0.0.1:8080/api/")
  var head = HTTPRequest(method: .get, url: url)
  head.headerFields[.accept] = "application/json"
  let (answer, data, finalURL) = try await transport.data(for: head, upTo: 1 << 20)  // also body:, options:
  let response = Response(data: data, status: answer.status, headers: answer.headerFields, request: head)
  let boards = try response.validate().decode([Board].self)

  let json = try JSONParameterEncoder().encode(parameters: ["title": "Balsa", "type": 1])  // {"title":"Balsa","type":1}
  let form = try FormURLEncoder().encode(parameters: ["firstname": "John", "lastname": "Doe"])  // firstname=John&...
  var upload = MultipartFormData()
  upload.append("John", name: "firstname")
  upload.append(fileAt: URL(fileURLWithPath: "/tmp/photo.jpg"), name: "photo", mimeType: "image/jpeg")
  let length = upload.contentLength  // exact, before anything is read; transports stream the file from disk
  #sourceLocation()
  _ = (transport, system, url, head, answer, data, finalURL, response, boards, json, form, upload, length)
}

/// Modules/Malibu/Docs.docc/SingleModules.md:58, "Using single modules".
func readmeUsingSingleModules3() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/SingleModules.md",line:62)
  let catTransport = CurlTransport()
  let someCats = try await catTransport.send(GetCatImages(), baseUrl: "https://api.thecatapi.com/v1/")
  #sourceLocation()
  _ = (catTransport, someCats)
}

/// Modules/Malibu/Docs.docc/SingleModules.md:100, "Transports".
func readmeTransports() async throws {
  #sourceLocation(file:"Modules/Malibu/Docs.docc/SingleModules.md",line:101)
  let transport = CurlTransport()
  let boards = Networking<SharkywatersEndpoint>(transport: .custom(transport))
  try await withTaskExecutorPreference(transport.taskExecutor) {
    for id in 1...3 {
      _ = try await boards.request(.showBoard(id: id)).validate().toData().value
    }
  }
  #sourceLocation()
  _ = (transport, boards)
}
