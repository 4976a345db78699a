import Foundation
import HTTPTypes
import MalibuCore
import MalibuMocking
import MalibuTransport
import Testing

@Suite("MockProvider")
struct MockProviderTests {
  /// API.md's "Mocks" block, as written.
  static func apiExample() -> (MockProvider<SharkywatersEndpoint>, MockTransport) {
    let mockProvider = MockProvider<SharkywatersEndpoint>(delay: 0.1) { endpoint in
      switch endpoint {
      case .fetchBoards: return Mock(fileName: "boards.json", bundle: .module)  // or directory:
      case .showBoard: return Mock(json: ["id": 1, "title": "Balsa Fish"])
      default: return nil  // nil → the real network
      }
    }
    let mockTransport = MockTransport()  // a Transport: stubs by method + path, records what it was sent
    return (mockProvider, mockTransport)
  }

  struct ResolverCase: Sendable, CustomTestStringConvertible {
    let endpoint: SharkywatersEndpoint
    let expectedBody: String?
    var testDescription: String { "\(endpoint)" }
  }

  static let resolverCases: [ResolverCase] = [
    ResolverCase(
      endpoint: .fetchBoards,
      expectedBody: #"[{"id":1,"title":"Balsa Fish"},{"id":2,"title":"Wave Rider"}]"#
    ),
    ResolverCase(endpoint: .showBoard(id: 1), expectedBody: #"{"id":1,"title":"Balsa Fish"}"#),
    ResolverCase(endpoint: .deleteBoard(id: 1), expectedBody: nil),
  ]

  @Test("the resolver picks a mock or nil (the real network)", arguments: resolverCases)
  func resolver(_ testCase: ResolverCase) async throws {
    let (provider, _) = Self.apiExample()
    #expect(provider.delay == 0.1)
    let response = try await provider.mockedResponse(for: testCase.endpoint, request: makeRequest(.get, "/api/x"))
    if let expected = testCase.expectedBody {
      let body = try await #require(response).body.collect(upTo: 1 << 20)
      #expect(String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == expected)
    } else {
      #expect(provider.mock(for: testCase.endpoint) == nil)
      #expect(response == nil)
    }
  }

  @Test("cancelling during the provider's delay ends with a cancellation error", arguments: [nil, 600.0])
  func cancellation(_ mockDelay: Double?) async throws {
    let provider = MockProvider<SharkywatersEndpoint>(delay: 600) { _ in Mock(json: ["id": 1], delay: mockDelay) }
    let started = AsyncStream<Void>.makeStream()
    let task = Task {
      started.continuation.yield()
      return try await provider.mockedResponse(for: .fetchBoards, request: makeRequest(.get, "/api/boards"))
    }
    for await _ in started.stream { break }
    task.cancel()
    let error = await caughtError { _ = try await task.value }
    #expect((error as? TransportError)?.code == .cancelled)
  }

  @Test("a mock's own delay replaces the provider's")
  func mockDelayWins() async throws {
    let provider = MockProvider<SharkywatersEndpoint>(delay: 600) { _ in Mock(json: ["id": 1], delay: 0) }
    let response = try await provider.mockedResponse(for: .fetchBoards, request: makeRequest(.get, "/api/boards"))
    #expect(response?.head.status == .ok)
  }
}

@Suite("MockResponder")
struct MockResponderTests {
  @Test("the provider's transport answers every request with the endpoint's mock, or is nil")
  func responder() async throws {
    let provider = MockProvider<SharkywatersEndpoint> { endpoint in
      if case .showBoard(let id) = endpoint { return Mock(json: ["id": id]) }
      return nil
    }
    #expect(provider.transport(for: .fetchBoards) == nil)
    let transport: any Transport = try #require(provider.transport(for: .showBoard(id: 3)))
    let (head, data, url) = try await transport.data(
      for: makeRequest(.get, "/api/boards/3"),
      body: .data(Data("ignored".utf8)),
      options: TransferOptions(),
      upTo: 1024
    )
    #expect(head.status == .ok)
    #expect(data == Data(#"{"id":3}"#.utf8))
    #expect(url?.path == "/api/boards/3")
    let error = await caughtError {
      _ = try await transport.data(for: makeRequest(.get, "/x"), body: nil, options: TransferOptions(), upTo: 2)
    }
    #expect((error as? TransportError)?.code == .bodyTooLarge)
  }

  @Test("a mocked request passes through middleware like a real one")
  func throughMiddleware() async throws {
    struct Stamp: Middleware {
      func intercept(
        _ request: HTTPRequest,
        body: RequestBody?,
        options: TransferOptions,
        next: @Sendable (HTTPRequest, RequestBody?, TransferOptions) async throws -> TransportResponse
      ) async throws -> TransportResponse {
        var response = try await next(request, body, options)
        response.head.headerFields[HTTPField.Name("X-Stamp")!] = "seen"
        return response
      }
    }
    let responder = MockResponder(mock: Mock(json: ["ok": true]))
    let transport = MiddlewareTransport(transport: responder, middleware: [Stamp()])
    let response = try await transport.send(makeRequest(.get, "/api/x"), body: nil, options: TransferOptions())
    #expect(response.head.headerFields[HTTPField.Name("X-Stamp")!] == "seen")
  }
}
