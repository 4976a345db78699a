import Malibu
import MalibuTestSupport
import Testing

struct Refusal: Error, Equatable {}

/// beforeEach, preProcessRequest, the middleware gate and authentication.
@Suite("Hooks")
struct HookTests {
  @Test func beforeEachAndPreProcessRequestAreApplied() async throws {
    let transport = makeTransport()
    let networking = Networking<Probe>(transport: .custom(transport))
    networking.beforeEach = { request in request.adding(parameters: ["userId": "12345"], headers: ["token": "abc"]) }
    networking.preProcessRequest = { request in
      var request = request
      request.headerFields[HTTPField.Name("X-Last")!] = request.headerFields[HTTPField.Name("token")!]
      request.method = .head
      return request
    }
    let response = try await networking.request(Probe(.get("boards"))).value
    let sent = try #require(transport.recordedRequests.first)
    #expect(sent.method == .head)
    #expect(sent.url?.absoluteString == "http://127.0.0.1:8080/api/boards?userId=12345")
    #expect(sent.headerFields[HTTPField.Name("X-Last")!] == "abc")
    #expect(response.request.method == .head)
  }

  @Test func middlewareRejectionFailsThatRequestAndTheNextWorks() async throws {
    let transport = makeTransport()
    let networking = Networking<Probe>(mode: .sync, transport: .custom(transport))
    let calls = Box(0)
    networking.middleware = { promise in
      let call = calls.update { count in
        count += 1
        return count
      }
      if call == 1 { promise.reject(Refusal()) } else { promise.resolve() }
    }
    let first = await networkError(networking.request(Probe(.get("first"))))
    #expect(first?.code == .requestRejected)
    #expect(first?.underlyingError is Refusal)
    #expect(try await networking.request(Probe(.get("second"))).value.statusCode == 200)
    #expect(transport.recordedPaths == ["/api/second"])
  }

  @Test func middlewareNetworkErrorPassesThrough() async throws {
    let networking = Networking<Probe>(transport: .custom(makeTransport()))
    networking.middleware = { promise in
      DispatchQueue.global().async { promise.reject(NetworkError(code: .invalidURL, message: "custom")) }
    }
    let error = await networkError(networking.request(Probe(.get("boards"))))
    #expect(error?.code == .invalidURL && error?.message == "custom")
  }

  @Test func middlewareRunsBeforeEncodingAndCanAuthenticate() async throws {
    let transport = makeTransport()
    let networking = Networking<Probe>(transport: .custom(transport))
    networking.middleware = { [networking] promise in
      networking.authenticate(bearerToken: "fresh")
      promise.resolve()
    }
    _ = try await networking.request(Probe(.get("boards"))).value
    #expect(transport.recordedRequests.first?.headerFields[.authorization] == "Bearer fresh")
  }

  @Test func authenticationFormsReachTheHeader() async throws {
    let transport = makeTransport()
    let networking = Networking<Probe>(transport: .custom(transport))
    networking.authenticate(username: "malibu", password: "surfingparadise")
    _ = try await networking.request(Probe(.get("a"))).value
    networking.authenticate(bearerToken: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9")
    _ = try await networking.request(Probe(.get("b"))).value
    networking.authenticate(authorizationHeader: "Malibu-Header")
    _ = try await networking.request(Probe(.get("c"))).value
    networking.clearAuthentication()
    _ = try await networking.request(Probe(.get("d"))).value
    #expect(
      transport.recordedRequests.map { $0.headerFields[.authorization] } == [
        "Basic bWFsaWJ1OnN1cmZpbmdwYXJhZGlzZQ==", "Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9", "Malibu-Header", nil,
      ]
    )
  }

  @Test func credentialsStayWithTheBaseURLsOrigin() async throws {
    let transport = makeTransport()
    let networking = Networking<Probe>(transport: .custom(transport))
    networking.authenticate(bearerToken: "secret")
    _ = try await networking.request(Probe(.get("http://127.0.0.2:8080/elsewhere"))).value
    #expect(transport.recordedRequests.first?.headerFields[.authorization] == nil)
  }

  @Test func transportErrorsAreWrapped() async throws {
    let transport = makeTransport()
    let reset = TransportError(code: .connectionReset, message: "reset by peer")
    transport.stub(.get, "/api/boards", error: reset)
    let networking = Networking<Probe>(transport: .custom(transport))
    let error = await networkError(networking.request(Probe(.get("boards"))))
    #expect(error?.code == .transportFailed)
    #expect((error?.underlyingError as? TransportError)?.code == .connectionReset)
  }

  @Test func mocksAndRealRequestsShareTheHooks() async throws {
    let provider = MockProvider<SharkywatersEndpoint> { endpoint in
      if case .showBoard = endpoint { return Mock(json: ["id": 1, "title": "Balsa Fish"]) }
      return nil
    }
    let transport = makeTransport()
    let networking = Networking<SharkywatersEndpoint>(mockProvider: provider, transport: .custom(transport))
    let recorder = RecordingRequestLogger()
    let logger = NetworkLogger(level: .info)
    logger.requestLogger = recorder
    networking.logger = logger
    networking.beforeEach = { $0.adding(headers: ["token": "before"]) }
    networking.preProcessRequest = { request in
      var request = request
      request.headerFields[HTTPField.Name("X-Pre")!] = "pre"
      return request
    }
    let gated = Box(0)
    networking.middleware = { promise in
      gated.update { $0 += 1 }
      promise.resolve()
    }
    let mocked = try await networking.request(.showBoard(id: 1)).value
    let real = try await networking.request(.fetchBoards).value
    #expect(try mocked.toJsonDictionary()["title"] as? String == "Balsa Fish")
    #expect(real.statusCode == 200)
    #expect(transport.recordedPaths == ["/api/boards"])  // the mock never reached the transport
    for response in [mocked, real] {
      #expect(response.request.headerFields[HTTPField.Name("token")!] == "before")
      #expect(response.request.headerFields[HTTPField.Name("X-Pre")!] == "pre")
    }
    #expect(gated.value == 2)
    #expect(
      recorder.requests.value.map(\.url) == [
        "http://127.0.0.1:8080/api/boards/1", "http://127.0.0.1:8080/api/boards",
      ]
    )
  }

  @Test func missingMockFileFailsClearly() async throws {
    let provider = MockProvider<SharkywatersEndpoint> { endpoint in
      if case .fetchBoards = endpoint { return Mock(fileName: "nope.json", bundle: .module) }
      return nil
    }
    let networking = Networking<SharkywatersEndpoint>(mockProvider: provider, transport: .custom(makeTransport()))
    let error = await networkError(networking.request(.fetchBoards))
    #expect(error?.code == .transportFailed)
    #expect(error?.message.contains("nope.json") == true)
    #expect(try await networking.request(.showBoard(id: 1)).value.statusCode == 200)
  }
}
