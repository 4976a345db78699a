import Malibu
import MalibuTestSupport
import Testing

/// Early Malibu's mock controls: the networking's mock mode and mocks registered on it.
@Suite("Mock modes and registered mocks")
struct MockModeTests {
  static let provider = MockProvider<Probe> { endpoint in
    endpoint.request.resource.urlString == "provided" ? Mock(json: ["from": "provider"]) : nil
  }

  static func from(_ response: Response) -> String? {
    (try? JSONSerialization.jsonObject(with: response.data) as? [String: String])?["from"]
  }

  /// Which source answers each endpoint in each mode (`network` is the transport's fallback, `[]`).
  @Test(arguments: [
    (MockMode.mixed, "provided", "provider"), (.mixed, "registered", "registry"), (.mixed, "both", "registry"),
    (.mixed, "plain", "network"),
    (.mocksOnly, "provided", "provider"), (.mocksOnly, "registered", "registry"), (.mocksOnly, "both", "registry"),
    (.realOnly, "provided", "network"), (.realOnly, "registered", "network"), (.realOnly, "both", "network"),
  ])
  func eachModeChoosesTheSource(mode: MockMode, path: String, expected: String) async throws {
    let transport = makeTransport()
    let provider = MockProvider<Probe> { endpoint in
      ["provided", "both"].contains(endpoint.request.resource.urlString) ? Mock(json: ["from": "provider"]) : nil
    }
    let networking = Networking<Probe>(mockProvider: provider, transport: .custom(transport))
    networking.register(mock: Mock(json: ["from": "registry"]), for: Probe(.get("registered")))
    networking.register(mock: Mock(json: ["from": "registry"]), for: Probe(.get("both")))
    networking.mockMode = mode
    let response = try await networking.request(Probe(.get(path))).validate().value
    #expect((Self.from(response) ?? "network") == expected)
    #expect(transport.recordedRequests.count == (expected == "network" ? 1 : 0))
  }

  /// An unmocked request in `mocksOnly` fails with `missingMock` naming the endpoint, after passing the hooks, and
  /// never reaches the network; the networking then serves a mocked request.
  @Test func anUnmockedRequestFailsInMocksOnlyWithoutTouchingTheNetwork() async throws {
    let transport = makeTransport()
    let networking = Networking<Probe>(mockProvider: Self.provider, transport: .custom(transport))
    networking.mockMode = .mocksOnly
    let before = Box(0)
    networking.beforeEach = { request in
      before.update { $0 += 1 }
      return request
    }
    let failures = networking.failures
    let error = await networkError(networking.request(Probe(.get("unmocked", parameters: ["token": "s3cret"]))))
    #expect(error?.code == .missingMock)
    #expect(
      error?.message.contains("no mock answers Probe (GET /api/unmocked)") == true,
      "\(String(describing: error))"
    )
    #expect(error?.message.contains("mocksOnly") == true)
    #expect(error?.message.contains("s3cret") == false)  // neither the query nor the endpoint's values
    #expect(transport.recordedRequests.isEmpty)
    #expect(before.value == 1)
    var iterator = failures.makeAsyncIterator()
    #expect(await iterator.next()?.networkError?.code == .missingMock)

    #expect(Self.from(try await networking.request(Probe(.get("provided"))).value) == "provider")
    networking.register(
      mock: Mock(json: ["from": "registry"]),
      for: Probe(.get("unmocked", parameters: ["token": "s3cret"]))
    )
    #expect(
      Self.from(try await networking.request(Probe(.get("unmocked", parameters: ["token": "s3cret"]))).value)
        == "registry"
    )
    #expect(transport.recordedRequests.isEmpty)
  }

  /// Registered mocks pass every hook like any request, answer only their own request, and can be removed.
  @Test func registeredMocksPassTheHooksAndCanBeRemoved() async throws {
    let transport = makeTransport()
    let networking = Networking<Probe>(transport: .custom(transport))
    networking.headers = ["X-Networking": "yes"]
    networking.register(
      mock: Mock(httpResponse: HTTPResponse(status: .notFound), data: Data("gone".utf8)),
      for: Probe(.get("boards"))
    )
    let response = try await networking.request(Probe(.get("boards"))).value
    #expect(response.statusCode == 404)
    #expect(response.request.headerFields[HTTPField.Name("X-Networking")!] == "yes")
    // Another request to the same path with other parameters is not the registered one.
    #expect(try await networking.request(Probe(.get("boards", parameters: ["page": 2]))).value.statusCode == 200)

    networking.unregisterMock(for: Probe(.get("boards")))
    #expect(try await networking.request(Probe(.get("boards"))).value.statusCode == 200)
    networking.register(mock: Mock(json: [:]), for: Probe(.get("a")))
    networking.unregisterAllMocks()
    #expect(try await networking.request(Probe(.get("a"))).value.data == Data("[]".utf8))
    #expect(transport.recordedPaths == ["/api/boards?page=2", "/api/boards", "/api/a"])
  }

  /// `replay()` in `mocksOnly` sends nothing and keeps the stored requests; back in `mixed` it sends them.
  @Test func replayInMocksOnlyKeepsTheStoreAndTouchesNoNetwork() async throws {
    let transport = makeTransport()
    transport.stub(.delete, "/api/boards/1", error: refused)
    let networking = makeOfflineNetworking(transport)
    _ = await outcome(networking.request(Probe(.delete("boards/1", storePolicy: .offline))))
    #expect(try networking.offlineStore.all().count == 1)
    transport.reset()
    transport.stub(.delete, "/api/boards/1", status: .noContent)

    networking.mockMode = .mocksOnly
    let refusal = await networkError(networking.replay())
    #expect(refusal?.code == .missingMock)
    #expect(transport.recordedRequests.isEmpty)
    #expect(try networking.offlineStore.all().count == 1)

    networking.mockMode = .mixed
    let outcomes = try await networking.replay().value
    #expect(outcomes.count == 1 && (try? outcomes[0].get().statusCode) == 204)
    #expect(try networking.offlineStore.all().isEmpty)
  }
}
