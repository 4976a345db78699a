import Malibu
import Testing

@Suite("HTTP cache")
struct CacheTests {
  /// A transport answering `/api/boards` with an ETag, and `304` when the request carries it.
  func makeETagTransport() -> MockTransport {
    let transport = makeTransport()
    transport.stub(.get, "/api/boards") { request in
      if request.headerFields[.ifNoneMatch] == "\"v1\"" {
        return MockTransport.Reply(status: .notModified)
      }
      var fields = jsonHeaders
      fields[.eTag] = "\"v1\""
      return MockTransport.Reply(status: .ok, headerFields: fields, body: boardsJSON)
    }
    return transport
  }

  @Test func aStaleEntryIsRevalidatedWithItsETag() async throws {
    let transport = makeETagTransport()
    let networking = Networking<Probe>(transport: .custom(transport), offlineStore: makeOfflineStore())
    let first = try await networking.request(Probe(.get("boards"))).value
    #expect(!first.isFromCache)
    #expect(first.data == boardsJSON)
    let second = try await networking.request(Probe(.get("boards"))).value
    #expect(second.isFromCache)
    #expect(second.statusCode == 200)
    #expect(second.data == boardsJSON)
    let sent = transport.recordedRequests
    try #require(sent.count == 2)
    #expect(sent[0].headerFields[.ifNoneMatch] == nil)
    #expect(sent[1].headerFields[.ifNoneMatch] == "\"v1\"")
    #expect(sent.allSatisfy { $0.headerFields[CacheMiddleware.policyHeader] == nil })
  }

  @Test func reloadIgnoringLocalCacheDataSendsNoValidator() async throws {
    let transport = makeETagTransport()
    let networking = Networking<Probe>(transport: .custom(transport), offlineStore: makeOfflineStore())
    _ = try await networking.request(Probe(.get("boards"))).value
    let reload = Request.get("boards", cachePolicy: .reloadIgnoringLocalCacheData)
    let response = try await networking.request(Probe(reload)).value
    #expect(!response.isFromCache)
    #expect(response.data == boardsJSON)
    #expect(transport.recordedRequests.last?.headerFields[.ifNoneMatch] == nil)
  }

  @Test func returnCacheDataDontLoadWithoutAnEntryFails() async throws {
    let transport = makeETagTransport()
    let networking = Networking<Probe>(transport: .custom(transport), offlineStore: makeOfflineStore())
    let request = Request.get("boards", cachePolicy: .returnCacheDataDontLoad)
    let error = await networkError(networking.request(Probe(request)))
    #expect(error?.code == .transportFailed)
    #expect((error?.underlyingError as? StorageError)?.code == .cacheMiss)
    #expect(transport.recordedRequests.isEmpty)
  }

  @Test func preProcessRequestAndTheLoggerNeverSeeThePolicyHeader() async throws {
    let transport = makeETagTransport()
    let networking = Networking<Probe>(transport: .custom(transport), offlineStore: makeOfflineStore())
    let seen = Box<[HTTPFields]>([])
    networking.preProcessRequest = { request in
      seen.update { $0.append(request.headerFields) }
      return request
    }
    let requests = RecordingRequestLogger()
    let logger = NetworkLogger(level: .verbose)
    logger.requestLogger = requests
    networking.logger = logger
    _ = try await networking.request(Probe(.get("boards", cachePolicy: .returnCacheDataElseLoad))).value
    #expect(seen.value.count == 1)
    #expect(seen.value.allSatisfy { $0[CacheMiddleware.policyHeader] == nil })
    #expect(requests.requests.value.count == 1)
    #expect(requests.requests.value.allSatisfy { $0.headerFields[CacheMiddleware.policyHeader] == nil })
  }
}
