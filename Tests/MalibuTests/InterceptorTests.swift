import Foundation
import HTTPTypes
import Testing

@testable import Malibu

/// `Networking.interceptors`: changed, mocked and notChanged, in order, on MockTransport.
@Suite("Interceptors")
struct InterceptorTests {
  /// Adds a header naming itself, after checking what the interceptors before it did.
  struct Tagging: RequestInterceptor {
    let name: String
    let seen: Box<[String]>

    func adapt(_ request: HTTPRequest) async throws -> AdaptedRequest {
      let field = HTTPField.Name("X-Tags")!
      seen.update { $0.append("\(name):\(request.headerFields[field] ?? "-")") }
      var changed = request
      changed.headerFields[field] = [request.headerFields[field], name].compactMap { $0 }.joined(separator: ",")
      return .changed(changed)
    }
  }

  /// Answers `/api/boards` with a mock, leaves everything else alone.
  struct MockingBoards: RequestInterceptor {
    func adapt(_ request: HTTPRequest) async throws -> AdaptedRequest {
      guard request.path?.hasPrefix("/api/boards") == true else { return .notChanged }
      return .mocked(Mock(json: ["id": 7, "title": "Intercepted"]))
    }
  }

  struct Refusing: RequestInterceptor {
    struct Refusal: Error {}
    func adapt(_ request: HTTPRequest) async throws -> AdaptedRequest {
      if request.path?.contains("secret") == true { throw Refusal() }
      return .notChanged
    }
  }

  struct GetBoard: TypedRequest {
    typealias RawResource = Board
    var method: HTTPRequest.Method { .get }
    var path: String { "boards/7" }
  }

  @Test func changedRequestsReachTheTransportInTheInterceptorsOrder() async throws {
    let transport = makeTransport()
    let networking = Networking<Probe>(transport: .custom(transport))
    let seen = Box<[String]>([])
    networking.authenticate(bearerToken: "token-1")
    networking.interceptors = [Tagging(name: "a", seen: seen), MockingBoards(), Tagging(name: "b", seen: seen)]
    _ = try await networking.request(Probe(.get("other"))).validate().value
    #expect(seen.value == ["a:-", "b:a"])
    let sent = try #require(transport.recordedRequests.first)
    #expect(sent.headerFields[HTTPField.Name("X-Tags")!] == "a,b")
    #expect(sent.headerFields[.authorization] == "Bearer token-1")  // interceptors come after authentication
  }

  @Test func aMockedRequestIsAnsweredWithoutTheTransportAndLaterInterceptorsAreNotAsked() async throws {
    let transport = makeTransport()
    let networking = Networking<Probe>(transport: .custom(transport))
    let seen = Box<[String]>([])
    networking.interceptors = [MockingBoards(), Tagging(name: "late", seen: seen)]
    let board = try await networking.request(Probe(.get("boards"))).validate().decode(using: Board.self).value
    #expect(board == Board(id: 7, title: "Intercepted"))
    // A typed request passes them too.
    #expect(try await networking.send(GetBoard()).title == "Intercepted")
    #expect(transport.recordedRequests.isEmpty)
    #expect(seen.value.isEmpty)
  }

  @Test func mockModesDecideWhetherAnInterceptorsMockAnswers() async throws {
    let transport = makeTransport()
    transport.stub(.get, "/api/boards", headerFields: jsonHeaders, body: Data(#"{"id":1,"title":"Real"}"#.utf8))
    let networking = Networking<Probe>(transport: .custom(transport))
    networking.interceptors = [MockingBoards()]
    networking.mockMode = .mocksOnly
    #expect(try await networking.request(Probe(.get("boards"))).decode(using: Board.self).value.title == "Intercepted")
    #expect(await networkError(networking.request(Probe(.get("other"))))?.code == .missingMock)
    networking.mockMode = .realOnly
    #expect(try await networking.request(Probe(.get("boards"))).decode(using: Board.self).value.title == "Real")
  }

  /// An interceptor that throws fails the request with `requestRejected`, published; the networking then serves a
  /// good request, and with no interceptors left requests go straight to the transport.
  @Test func anInterceptorThatThrowsRejectsTheRequest() async throws {
    let transport = makeTransport()
    let networking = Networking<Probe>(transport: .custom(transport))
    let heard = Box<[NetworkError.Code]>([])
    networking.onFailure = { failure in heard.update { $0.append(failure.networkError?.code ?? .cancelled) } }
    networking.interceptors = [Refusing()]
    let error = try #require(await networkError(networking.request(Probe(.get("secret")))))
    #expect(error.code == .requestRejected)
    #expect(error.underlyingError is Refusing.Refusal)
    #expect(error.message.contains("the interceptor Refusing refused the request"))
    #expect(heard.value == [.requestRejected])
    _ = try await networking.request(Probe(.get("open"))).validate().value
    networking.interceptors = []
    _ = try await networking.request(Probe(.get("secret"))).validate().value
    #expect(transport.recordedRequests.map(\.path) == ["/api/open", "/api/secret"])
  }
}
