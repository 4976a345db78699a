import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuCore
import MalibuTestSupport
import Testing

@testable import Malibu

/// The middleware chain is composed when the settings it is made from change, never per request, and every request —
/// mocked, real, stored offline — travels it.
@Suite("Middleware chain")
struct ChainTests {
  private func chain(_ networking: Networking<Probe>) -> NetworkingChain {
    networking.settings.withLock { $0.chain }
  }

  @Test func theChainIsComposedOnceAndAgainOnlyWhenItsSettingsChange() async throws {
    let networking = Networking<Probe>(transport: .custom(makeTransport()))
    let built = chain(networking)
    for _ in 0..<3 { _ = try await networking.request(Probe(.get("boards"))).value }
    networking.headers = ["X-Other": "1"]
    networking.transferOptions.redirects = .none
    #expect(chain(networking) === built)

    // Kept alive, so that no chain's address is reused by the next.
    var seen = [built]
    networking.authenticate(bearerToken: "t")
    seen.append(chain(networking))
    networking.logger = NetworkLogger(level: .info)
    seen.append(chain(networking))
    networking.authenticate(bearerToken: nil) { "fresh" }
    seen.append(chain(networking))
    networking.clearAuthentication()
    seen.append(chain(networking))
    #expect(Set(seen.map(ObjectIdentifier.init)).count == seen.count)
  }

  /// Credentials set, replaced and cleared after requests were sent reach the next request.
  @Test func credentialsChangedBetweenRequestsReachTheNextOne() async throws {
    let transport = makeTransport()
    let networking = Networking<Probe>(transport: .custom(transport))
    _ = try await networking.request(Probe(.get("a"))).value
    networking.authenticate(bearerToken: "one")
    _ = try await networking.request(Probe(.get("b"))).value
    networking.authenticate(username: "u", password: "p")
    _ = try await networking.request(Probe(.get("c"))).value
    networking.clearAuthentication()
    _ = try await networking.request(Probe(.get("d"))).value
    #expect(
      transport.recordedRequests.map { $0.head.headerFields[.authorization] } == [
        nil, "Bearer one", "Basic dTpw", nil,
      ]
    )
  }

  /// The logger's level is read per request: one raised after the networking was made logs the next request, one
  /// lowered to `none` stops it.
  @Test func aLoggerLevelChangedOutsideTheNetworkingTakesEffect() async throws {
    let recorder = RecordingRequestLogger()
    let logger = NetworkLogger(level: .none)
    logger.requestLogger = recorder
    let networking = Networking<Probe>(transport: .custom(makeTransport()))
    networking.logger = logger
    _ = try await networking.request(Probe(.get("quiet"))).value
    logger.level = .info
    _ = try await networking.request(Probe(.get("loud"))).value
    logger.level = .none
    _ = try await networking.request(Probe(.get("quiet-again"))).value
    #expect(recorder.requests.value.map(\.url) == ["http://127.0.0.1:8080/api/loud"])
  }

  /// A mocked endpoint sits under the same chain: the token-refresh step sees its 401 and refreshes, and the
  /// offline-store step keeps an `.offline` mocked request whose host could not be reached.
  @Test func aMockedEndpointTravelsTheSameChain() async throws {
    let refused = TransportError(code: .connectionRefused, message: "refused")
    let provider = MockProvider<Probe> { probe in
      switch probe.request.resource.urlString {
      case "private": return Mock(httpResponse: HTTPResponse(status: .unauthorized))
      case "unreachable": return Mock(httpResponse: HTTPResponse(status: .ok), error: refused)
      default: return nil
      }
    }
    let store = makeOfflineStore()
    let transport = makeTransport()
    let networking = Networking<Probe>(mockProvider: provider, transport: .custom(transport), offlineStore: store)
    let refreshes = Box(0)
    networking.authenticate(bearerToken: "old") {
      refreshes.update { $0 += 1 }
      return "new"
    }
    let response = try await networking.request(Probe(.get("private"))).value
    #expect(response.statusCode == 401)
    #expect(refreshes.value == 1)

    let error = await networkError(networking.request(Probe(.delete("unreachable", storePolicy: .offline))))
    #expect((error?.underlyingError as? TransportError)?.code == .connectionRefused)
    #expect(try store.all().map(\.url?.absoluteString) == ["http://127.0.0.1:8080/api/unreachable"])

    #expect(try await networking.request(Probe(.get("real"))).value.statusCode == 200)
    #expect(transport.recordedPaths == ["/api/real"])
    #expect(transport.recordedRequests.first?.head.headerFields[.authorization] == "Bearer new")
  }

  /// The seam under every way of receiving a response: `open` runs the gate, encoding, `preProcessRequest` and the
  /// chain, and hands back the head with the body still to read.
  @Test func openReturnsTheHeadWithTheBodyStillToRead() async throws {
    let transport = makeTransport()
    transport.stub(.get, "/api/file", reply: .init(status: .ok, headerFields: [:], body: Data("streamed".utf8)))
    let networking = Networking<Probe>(transport: .custom(transport))
    networking.authenticate(bearerToken: "t")
    networking.preProcessRequest = { head in
      var head = head
      head.headerFields[HTTPField.Name("X-Pre")!] = "1"
      return head
    }
    let endpoint = Probe(.get("file"))
    let (request, base) = try networking.resolve(endpoint)
    let opened = try await networking.open(request, of: endpoint, through: base)
    #expect(opened.response.head.status == .ok)
    #expect(opened.request.headerFields[HTTPField.Name("X-Pre")!] == "1")
    var bytes = Data()
    for try await chunk in opened.response.body { bytes.append(chunk) }
    #expect(String(decoding: bytes, as: UTF8.self) == "streamed")
    #expect(transport.recordedRequests.first?.head.headerFields[.authorization] == "Bearer t")
  }

  /// One fixed chain, whose steps each decide whether they act on a request: a request none acts on is sent by its
  /// transport alone; each policy brings its own step, and only it.
  @Test func eachStepDecidesWhetherItActsOnARequest() throws {
    let networking = Networking<Probe>(transport: .custom(makeTransport()), cache: nil)
    networking.logger = NetworkLogger(level: .none)
    let built = chain(networking)
    let head = HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: "/boards")
    func acting(
      _ request: Request,
      head: HTTPRequest = head,
      options: TransferOptions = TransferOptions(),
      logger: NetworkLogger = NetworkLogger(level: .none)
    ) -> [String] {
      built.steps(for: request, head: head, options: options, logger: logger, ownLogger: nil).map {
        String(describing: type(of: $0))
      }
    }

    #expect(acting(.get("boards")).isEmpty)
    #expect(acting(.get("boards"), logger: NetworkLogger(level: .error)) == ["LoggingMiddleware"])
    #expect(acting(.get("boards", storePolicy: .offline)) == ["OfflineStoreMiddleware"])
    #expect(acting(.get("boards", cachePolicy: .returnCacheDataDontLoad)) == ["Uncached"])
    var etag = Request.get("boards")
    etag.etagPolicy = .enabled
    #expect(acting(etag) == ["ETagMiddleware"])
    var retrying = TransferOptions()
    retrying.retry = .default
    #expect(acting(.get("boards"), options: retrying) == ["RetryMiddleware"])
    var named = head
    named.headerFields[ETagMiddleware.policyHeader] = "enabled"
    #expect(acting(.get("boards"), head: named) == ["ETagMiddleware"])

    // Set on the networking, the ETag policy is the chain's, rebuilt with it: every request then takes the step.
    networking.etagPolicy = .enabled
    let steps = chain(networking).steps(
      for: .get("boards"),
      head: head,
      options: TransferOptions(),
      logger: NetworkLogger(level: .none),
      ownLogger: nil
    )
    #expect(steps.map { "\(type(of: $0))" } == ["ETagMiddleware"])
  }
}
