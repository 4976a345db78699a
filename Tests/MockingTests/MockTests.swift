import Foundation
import HTTPTypes
import MalibuCore
import MalibuMocking
import MalibuTransport
import Testing

@Suite("Mock")
struct MockTests {
  struct Board: Encodable, Sendable {
    let id: Int
    let title: String
  }

  struct Pin: Encodable, Sendable {
    let boardId: Int
  }

  struct Variant: Sendable, CustomTestStringConvertible {
    let name: String
    let mock: @Sendable () -> Mock
    let status: HTTPResponse.Status
    let contentType: String?
    let body: Data
    var testDescription: String { name }
  }

  static let boards = Data(#"[{"id":1,"title":"Balsa Fish"},{"id":2,"title":"Wave Rider"}]"#.utf8 + [0x0A])

  static let variants: [Variant] = [
    Variant(
      name: "bundle .module, bare name",
      mock: { Mock(fileName: "boards.json", bundle: .module) },
      status: .ok,
      contentType: "application/json",
      body: boards
    ),
    Variant(
      name: "bundle .module, relative path",
      mock: { Mock(fileName: "Fixtures/note.txt", bundle: .module) },
      status: .ok,
      contentType: "text/plain; charset=utf-8",
      body: Data("plain text fixture\n".utf8)
    ),
    Variant(
      name: "json",
      mock: { Mock(json: ["id": 1, "title": "Balsa Fish", "tags": ["a", "b"], "gone": JSONNull()]) },
      status: .ok,
      contentType: "application/json",
      body: Data(#"{"gone":null,"id":1,"tags":["a","b"],"title":"Balsa Fish"}"#.utf8)
    ),
    Variant(
      name: "json array",
      mock: { Mock(json: [["id": 1], ["id": 2, "tags": ["a"]] as [String: any Sendable]]) },
      status: .ok,
      contentType: "application/json",
      body: Data(#"[{"id":1},{"id":2,"tags":["a"]}]"#.utf8)
    ),
    Variant(
      name: "json array of mixed values",
      mock: { Mock(json: [1, "two", true, JSONNull()] as [any Sendable]) },
      status: .ok,
      contentType: "application/json",
      body: Data(#"[1,"two",true,null]"#.utf8)
    ),
    Variant(
      name: "json Encodable",
      mock: { Mock(json: Board(id: 1, title: "Balsa Fish/2")) },
      status: .ok,
      contentType: "application/json",
      body: Data(#"{"id":1,"title":"Balsa Fish/2"}"#.utf8)
    ),
    Variant(
      name: "json array of Encodable",
      mock: { Mock(json: [Board(id: 1, title: "a"), Board(id: 2, title: "b")]) },
      status: .ok,
      contentType: "application/json",
      body: Data(#"[{"id":1,"title":"a"},{"id":2,"title":"b"}]"#.utf8)
    ),
    Variant(
      name: "json Encodable with an encoder",
      mock: {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = .sortedKeys
        return Mock(json: Pin(boardId: 7), encoder: encoder)
      },
      status: .ok,
      contentType: "application/json",
      body: Data(#"{"board_id":7}"#.utf8)
    ),
    Variant(
      name: "json text",
      mock: { Mock(json: #"{ "id": 1, "title": "Balsa Fish" }"#) },
      status: .ok,
      contentType: "application/json",
      body: Data(#"{ "id": 1, "title": "Balsa Fish" }"#.utf8)
    ),
    Variant(
      name: "json text, a string value",
      mock: { Mock(json: #""hello""#) },
      status: .ok,
      contentType: "application/json",
      body: Data(#""hello""#.utf8)
    ),
    Variant(
      name: "json Data",
      mock: { Mock(json: Data("[1,2]".utf8)) },
      status: .ok,
      contentType: "application/json",
      body: Data("[1,2]".utf8)
    ),
    Variant(
      name: "httpResponse with data",
      mock: {
        Mock(
          httpResponse: HTTPResponse(status: .notFound, headerFields: [.contentType: "text/plain"]),
          data: Data("missing".utf8)
        )
      },
      status: .notFound,
      contentType: "text/plain",
      body: Data("missing".utf8)
    ),
    Variant(
      name: "httpResponse without data",
      mock: { Mock(httpResponse: HTTPResponse(status: .noContent)) },
      status: .noContent,
      contentType: nil,
      body: Data()
    ),
  ]

  @Test("mock variants answer with their head and body", arguments: variants)
  func answers(_ variant: Variant) async throws {
    let provider = MockProvider<SharkywatersEndpoint> { _ in variant.mock() }
    let mock = try #require(provider.mock(for: .fetchBoards))
    let response = try await provider.response(for: mock, request: makeRequest(.get, "/api/boards"))
    #expect(response.head.status == variant.status)
    #expect(response.head.headerFields[.contentType] == variant.contentType)
    #expect(response.url?.absoluteString == "http://127.0.0.1:8080/api/boards")
    #expect(try await response.body.collect(upTo: 1 << 20) == variant.body)
  }

  @Test("JSON text that is not JSON fails the mock when used, saying so", arguments: ["{\"id\": 1", "hello", ""])
  func invalidJSONText(_ text: String) async throws {
    for mock in [Mock(json: text), Mock(json: Data(text.utf8))] {
      #expect(mock.httpResponse.headerFields[.contentType] == "application/json")
      let error = await caughtError { _ = try mock.loadData() }
      let networkError = try #require(error as? NetworkError)
      #expect(networkError.code == .jsonSerializationFailed)
      #expect(networkError.message.hasPrefix("the mock's JSON text (\(text.utf8.count) bytes) is not valid JSON: "))
      #expect(networkError.localizedDescription == networkError.message)
      #expect(networkError.description.hasPrefix("NetworkError.jsonSerializationFailed: the mock's JSON text"))
    }
  }

  @Test("an Encodable that cannot be encoded fails the mock when used, with the EncodingError")
  func unencodableValue() async throws {
    struct Reading: Encodable, Sendable { let value = Double.nan }
    let mock = Mock(json: Reading())
    let error = await caughtError { _ = try mock.loadData() }
    let networkError = try #require(error as? NetworkError)
    #expect(networkError.code == .encodingFailed)
    #expect(networkError.underlyingError is EncodingError)
    #expect(networkError.message.hasPrefix("the mock's Reading cannot be encoded as JSON: "))
    #expect(networkError.localizedDescription == networkError.message)
  }

  @Test("a directory mock reads its file when used")
  func directoryMock() async throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let mock = Mock(fileName: "board.json", directory: directory)
    try Data(#"{"id":7}"#.utf8).write(to: directory.appendingPathComponent("board.json"))
    #expect(try mock.loadData() == Data(#"{"id":7}"#.utf8))
    #expect(mock.httpResponse.headerFields[.contentType] == "application/json")
  }

  struct MissingCase: Sendable, CustomTestStringConvertible {
    let name: String
    let mock: @Sendable () -> Mock
    let mentions: String
    var testDescription: String { name }
  }

  static let missing: [MissingCase] = [
    MissingCase(
      name: "bundle",
      mock: { Mock(fileName: "no-such-file.json", bundle: .module) },
      mentions: "no-such-file.json"
    ),
    MissingCase(
      name: "directory",
      mock: { Mock(fileName: "absent.json", directory: URL(fileURLWithPath: "/nonexistent-malibu-dir")) },
      mentions: "/nonexistent-malibu-dir/absent.json"
    ),
    MissingCase(
      name: "directory, a folder instead of a file",
      mock: { Mock(fileName: "tmp", directory: URL(fileURLWithPath: "/")) },
      mentions: "/tmp"
    ),
    MissingCase(name: "empty name", mock: { Mock(fileName: "", bundle: .module) }, mentions: "''"),
  ]

  @Test("a mock file that does not exist is a clear NetworkError at request time", arguments: missing)
  func missingFile(_ testCase: MissingCase) async throws {
    let mock = testCase.mock()
    let provider = MockProvider<SharkywatersEndpoint> { _ in mock }
    let error = await caughtError { _ = try await provider.response(for: mock, request: makeRequest(.get, "/x")) }
    let networkError = try #require(error as? NetworkError)
    #expect(networkError.code == .transportFailed)
    #expect(networkError.message.contains(testCase.mentions))
    #expect(networkError.message.contains("does not exist"))
  }

  struct EscapingName: Sendable, CustomTestStringConvertible {
    let fileName: String
    let mentions: String
    var testDescription: String { fileName.replacingOccurrences(of: "\0", with: "\\0") }
  }

  static let escapingNames: [EscapingName] = [
    EscapingName(fileName: "../x.json", mentions: "'..' component"),
    EscapingName(fileName: "Fixtures/../../x.json", mentions: "'..' component"),
    EscapingName(fileName: "..", mentions: "'..' component"),
    EscapingName(fileName: "/etc/passwd", mentions: "absolute path"),
    EscapingName(fileName: "boards\0.json", mentions: "NUL byte"),
  ]

  @Test(
    "a mock file name that leads outside its directory is refused, for a bundle and a directory",
    arguments: escapingNames
  )
  func escapingName(_ testCase: EscapingName) async throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    // A file the name would reach if it were followed.
    try Data("outside".utf8).write(to: directory.deletingLastPathComponent().appendingPathComponent("x.json"))
    for mock in [
      Mock(fileName: testCase.fileName, bundle: .module), Mock(fileName: testCase.fileName, directory: directory),
    ] {
      let provider = MockProvider<SharkywatersEndpoint> { _ in mock }
      let error = await caughtError { _ = try await provider.response(for: mock, request: makeRequest(.get, "/x")) }
      let networkError = try #require(error as? NetworkError)
      #expect(networkError.code == .transportFailed)
      #expect(networkError.message.contains(testCase.mentions), "\(networkError.message)")
      #expect(networkError.message.contains("must be a relative path inside its directory"))
    }
    // The same provider setup with a good name still answers.
    try Data(#"{"id":7}"#.utf8).write(to: directory.appendingPathComponent("board.json"))
    #expect(try Mock(fileName: "board.json", directory: directory).loadData() == Data(#"{"id":7}"#.utf8))
    #expect(try Mock(fileName: "boards.json", bundle: .module).loadData() == Self.boards)
  }

  @Test("a symbolic link in a mock directory is followed inside it and refused when it leads outside")
  func symbolicLinks() async throws {
    let outside = try makeTemporaryDirectory()
    let directory = try makeTemporaryDirectory()
    defer {
      try? FileManager.default.removeItem(at: directory)
      try? FileManager.default.removeItem(at: outside)
    }
    try Data("secret".utf8).write(to: outside.appendingPathComponent("secret.txt"))
    try Data("inside".utf8).write(to: directory.appendingPathComponent("real.txt"))
    try FileManager.default.createSymbolicLink(
      at: directory.appendingPathComponent("escape.txt"),
      withDestinationURL: outside.appendingPathComponent("secret.txt")
    )
    try FileManager.default.createSymbolicLink(
      atPath: directory.appendingPathComponent("alias.txt").path,
      withDestinationPath: "real.txt"
    )

    let error = await caughtError { _ = try Mock(fileName: "escape.txt", directory: directory).loadData() }
    let networkError = try #require(error as? NetworkError)
    #expect(networkError.code == .transportFailed)
    #expect(networkError.message.contains("symbolic link that leads outside"), "\(networkError.message)")
    #expect(!networkError.message.contains("secret\""))
    #expect(try Mock(fileName: "alias.txt", directory: directory).loadData() == Data("inside".utf8))
  }

  @Test("a JSON value that cannot be serialised fails when used")
  func unsupportedJSON() async throws {
    let mock = Mock(json: ["set": Set([1, 2])])
    let error = await caughtError { _ = try mock.loadData() }
    #expect((error as? NetworkError)?.code == .unsupportedParameter)
  }

  @Test("a mock's error is thrown as it is")
  func mockError() async throws {
    let failure = TransportError(code: .dnsFailure, message: "no such host")
    let mock = Mock(httpResponse: HTTPResponse(status: .ok), data: Data("x".utf8), error: failure)
    let provider = MockProvider<SharkywatersEndpoint> { _ in mock }
    let error = await caughtError { _ = try await provider.response(for: mock, request: makeRequest(.get, "/x")) }
    #expect((error as? TransportError)?.code == .dnsFailure)
  }

  @Test("odd delays neither trap nor hang", arguments: [-1, 0, .nan, .infinity, -.infinity, 0.001])
  func oddDelays(_ delay: Double) async throws {
    let provider = MockProvider<SharkywatersEndpoint>(delay: delay) { _ in Mock(json: [:]) }
    var mock = Mock(json: ["ok": true])
    mock.delay = delay
    let response = try await provider.response(for: mock, request: makeRequest(.get, "/x"))
    #expect(response.head.status == .ok)
  }

  @Test("a mock can be served by MockTransport too")
  func mockInTransport() async throws {
    let transport = MockTransport()
    transport.stub(.get, "/boards", mock: Mock(fileName: "boards.json", bundle: .module))
    transport.stub(.get, "/missing", mock: Mock(fileName: "missing.json", bundle: .module))
    let (head, data, _) = try await transport.data(
      for: makeRequest(.get, "/boards"),
      body: nil,
      options: TransferOptions(),
      upTo: 1 << 20
    )
    #expect(head.headerFields[.contentType] == "application/json")
    #expect(data == Self.boards)
    let error = await caughtError {
      _ = try await transport.send(makeRequest(.get, "/missing"), body: nil, options: TransferOptions())
    }
    #expect((error as? NetworkError)?.code == .transportFailed)
  }
}
