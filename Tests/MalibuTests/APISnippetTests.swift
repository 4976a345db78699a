import Malibu
import MalibuTestSupport
import Testing

/// The Networking, Responses and Mocks blocks of API.md, as written (host 127.0.0.1, transport swapped for a
/// MockTransport so nothing leaves the process).
@Suite("API.md snippets")
struct APISnippetTests {
  @Test func networkingBlock() async throws {
    let mockTransport = makeTransport()
    mockTransport.stub(.get, "/api/boards", headerFields: jsonHeaders, body: boardsJSON)
    // Slow enough that the delete below is surely in flight when it is cancelled.
    mockTransport.stub(.delete, "/api/boards/*", status: .noContent, delay: .seconds(30))
    let networking = Networking<SharkywatersEndpoint>(
      mode: .async,  // NetworkingMode: .sync | .async | .limited(Int)
      mockProvider: nil,  // MockProvider<SharkywatersEndpoint>?
      sessionConfiguration: .default,  // .default | .ephemeral | .background | .custom(URLSessionConfiguration)
      transport: .custom(mockTransport)
    )

    networking.beforeEach = { request in request.adding(parameters: ["userId": "12345"], headers: ["token": "t"]) }
    networking.preProcessRequest = { request in  // HTTPRequest (swift-http-types) → HTTPRequest
      var request = request
      request.headerFields[HTTPField.Name("token")!] = "t"
      return request
    }
    networking.middleware = { promise in promise.resolve(()) }  // reject to stop the request with that error
    networking.authenticate(username: "malibu", password: "surfingparadise")
    networking.authenticate(bearerToken: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9")
    networking.authenticate(authorizationHeader: "Malibu-Header")

    let done = Box(false)
    let dictionaryPromise = networking.request(.fetchBoards)
      .validate()
      .toJsonDictionary()
      .done { dictionary in print(dictionary) }
      .fail { error in print(error) }
      .always { _ in done.update { $0 = true } }
    _ = await outcome(dictionaryPromise)
    #expect(done.value)
    // The body is an array, so toJsonDictionary rejects with unexpectedJSONShape.
    #expect((await networkError(dictionaryPromise))?.code == .unexpectedJSONShape)

    let boards: [Board] = try await networking.request(.fetchBoards).validate().decode(using: [Board].self).value
    #expect(boards == [Board(id: 1, title: "Balsa Fish"), Board(id: 2, title: "Wave Rider")])
    let promise: NetworkPromise = networking.request(.deleteBoard(id: 11))  // NetworkPromise = Promise<Response>
    promise.cancel()  // cancels the transfer too
    #expect(isCancellationError(await outcome(promise).failureValue!))
    Malibu.register("base", networking: networking)
    let same: Networking<SharkywatersEndpoint>? = Malibu.networking("base")
    Malibu.unregister("base")
    #expect(same === networking)
    #expect((Malibu.networking("base") as Networking<SharkywatersEndpoint>?) == nil)

    let sent = try #require(mockTransport.recordedRequests.first)
    #expect(sent.url?.absoluteString == "http://127.0.0.1:8080/api/boards?userId=12345")
    #expect(sent.headerFields[.authorization] == "Malibu-Header")
    #expect(sent.headerFields[HTTPField.Name("token")!] == "t")
  }

  /// Mutates process-wide state, so it is compiled, not run (other suites share the registry and the logger).
  func globalSettingsCompile() {
    Malibu.request(Request.get("http://127.0.0.1:8080/get")).validate(statusCodes: [200]).toString()
    Malibu.logger.level = .verbose  // .none | .error | .info | .verbose
    Malibu.parameterEncoders[.json] = CustomJsonEncoder()  // any ParameterEncoding
    Malibu.parameterEncoders[.custom("application/xml")] = CustomXMLEncoder()
    let networking = Networking<SharkywatersEndpoint>()
    _ = networking  // transport .curl, every argument defaulted
  }

  @Test func responsesBlock() async throws {
    let mockTransport = makeTransport()
    mockTransport.stub(
      .get,
      "/api/boards",
      headerFields: [.contentType: "application/json; charset=utf-8", HTTPField.Name("X-Checked")!: "yes"],
      body: boardsJSON
    )
    let networking = Networking<SharkywatersEndpoint>(transport: .custom(mockTransport))
    let response: Response = try await networking.request(.fetchBoards).value
    _ = (response.data, response.statusCode, response.headers)  // Data, Int, HTTPFields
    #expect(response.statusCode == 200 && response.data == boardsJSON)

    let promise = networking.request(.fetchBoards)
    #expect(try await promise.validate(statusCodes: 200..<300).value.statusCode == 200)
    #expect(try await promise.validate(contentTypes: ["application/json; charset=utf-8"]).value.statusCode == 200)
    #expect(try await promise.validate(using: CustomValidator()).value.statusCode == 200)  // any Validating
    let decoder = JSONDecoder()
    #expect(try await promise.toData().value == boardsJSON)
    #expect(try await promise.toString().value.hasPrefix("[{"))
    #expect(try await promise.toJsonArray().value.count == 2)
    #expect(try await promise.decode(using: [Board].self, decoder: decoder).value.count == 2)
  }

  @Test func responsesFailuresAreNetworkErrorsWithTheResponse() async throws {
    let mockTransport = makeTransport()
    mockTransport.stub(.get, "/api/boards", status: .notFound, headerFields: jsonHeaders, body: Data("nope".utf8))
    let networking = Networking<SharkywatersEndpoint>(transport: .custom(mockTransport))
    let failure = await outcome(networking.request(.fetchBoards).validate()).failureValue
    let error = try #require(failure)
    // Failures are NetworkError values: (error as? NetworkError)?.code == .unacceptableStatusCode, error.response?.data
    #expect((error as? NetworkError)?.code == .unacceptableStatusCode)
    #expect((error as? NetworkError)?.response?.data == Data("nope".utf8))
  }

  @Test func mocksBlock() async throws {
    let mockProvider = MockProvider<SharkywatersEndpoint>(delay: 0.1) { endpoint in
      switch endpoint {
      case .fetchBoards: return Mock(fileName: "boards.json", bundle: .module)  // or directory:
      case .showBoard: return Mock(json: ["id": 1, "title": "Balsa Fish"])
      default: return nil  // nil → the real network
      }
    }
    let mockTransport = MockTransport()  // a Transport: stubs by method + path, records what it was sent
    mockTransport.stub(.delete, "/api/boards/*", status: .noContent)
    let networking = Networking<SharkywatersEndpoint>(mockProvider: mockProvider, transport: .custom(mockTransport))
    let boards = try await networking.request(.fetchBoards).validate().decode(using: [Board].self).value
    #expect(boards.map(\.id) == [1, 2])
    let board = try await networking.request(.showBoard(id: 1)).validate().toJsonDictionary().value
    #expect(board["title"] as? String == "Balsa Fish")
    #expect(try await networking.request(.deleteBoard(id: 3)).value.statusCode == 204)
    #expect(mockTransport.recordedPaths == ["/api/boards/3"])
  }
}

extension Result {
  var failureValue: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }
}
