import Malibu

// The names README.md's examples use without declaring them. Everything here answers from a `MockTransport`, so an
// example run by the tests never leaves the process.

/// The fixtures of one run of README examples.
///
/// A test runs examples inside `ReadmeFixtures.$current.withValue(ReadmeFixtures()) { ... }`, so each run has a
/// networking and a transport of its own and tests can run in parallel; code outside such a scope sees the default
/// value. A task-local rather than a global variable: nothing here is shared mutable state.
struct ReadmeFixtures: Sendable {
  /// The fixtures of the running test.
  @TaskLocal static var current = ReadmeFixtures()

  /// The transport under ``networking``: every request the examples send ends here.
  let transport: MockTransport
  /// What the README calls `networking` once its "Networking" section has created one.
  let networking: Networking<SharkywatersEndpoint>

  init() {
    let json: HTTPFields = [.contentType: "application/json"]
    transport = MockTransport(fallback: MockTransport.Reply(status: .ok, headerFields: json, body: Data("{}".utf8)))
    transport.stub(.get, "/api/boards", headerFields: json, body: Self.boards)
    transport.stub(.get, "/api/boards/*", headerFields: json, body: Data(#"{"id":1,"title":"Balsa Fish"}"#.utf8))
    transport.stub(.get, "/api/boards/404", status: .notFound, headerFields: json, body: Self.notFound)
    // "Typed requests": cats, posts (the second one without content), a GraphQL reply.
    transport.stub(.get, "/api/images/search", headerFields: json, body: Self.cats)
    transport.stub(.get, "/api/posts", headerFields: json, body: Self.posts)
    transport.stub(.post, "/api/graphql", headerFields: json, body: Self.graphQL)
    networking = Networking<SharkywatersEndpoint>(transport: .custom(transport))
  }

  /// The body of `GET /api/boards`, also `Fixtures/boards.json`.
  static let boards = Data(#"[{"id":1,"title":"Balsa Fish"},{"id":2,"title":"Wave Rider"}]"#.utf8)
  /// The bodies of the "Typed requests" section.
  static let cats = Data(
    #"[{"id":"a1","url":"http://127.0.0.1/a1.png"},{"id":"b2","url":"http://127.0.0.1/b2.png"}]"#.utf8
  )
  static let posts = Data(#"{"data":[{"title":"a","content":"A"},{"title":"b"},{"title":"c","content":"C"}]}"#.utf8)
  static let graphQL = Data(#"{"data":{"posts":[{"id":"1","title":"Balsa"},{"id":"2","title":"Foam"}]}}"#.utf8)
  /// The body of the 404 the "Errors" section reads.
  static let notFound = Data(#"{"error":"no such board"}"#.utf8)
}

/// The README's `networking`: the running test's fixture.
var networking: Networking<SharkywatersEndpoint> { ReadmeFixtures.current.networking }

/// The README's `token`.
let token = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.sharkywaters"

/// The README's `refreshAccessToken()`, the user's own code in the token-refresh example.
func refreshAccessToken() async throws -> String {
  "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.refreshed"
}

/// The "Record and replay" article's `server`: the transport that reaches the server, here the fixtures' mock.
var server: any Transport { ReadmeFixtures.current.transport }

/// The "Record and replay" article's cassette directory: a fresh one for the process.
let cassette = FileManager.default.temporaryDirectory.appendingPathComponent(
  "malibu-readme-cassette-\(UUID().uuidString)"
)
