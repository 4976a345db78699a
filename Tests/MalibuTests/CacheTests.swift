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
    let networking = Networking<Probe>(
      transport: .custom(transport),
      cache: HTTPCache(),
      offlineStore: makeOfflineStore()
    )
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
    let networking = Networking<Probe>(
      transport: .custom(transport),
      cache: HTTPCache(),
      offlineStore: makeOfflineStore()
    )
    _ = try await networking.request(Probe(.get("boards"))).value
    let reload = Request.get("boards", cachePolicy: .reloadIgnoringLocalCacheData)
    let response = try await networking.request(Probe(reload)).value
    #expect(!response.isFromCache)
    #expect(response.data == boardsJSON)
    #expect(transport.recordedRequests.last?.headerFields[.ifNoneMatch] == nil)
  }

  @Test func returnCacheDataDontLoadWithoutAnEntryFails() async throws {
    let transport = makeETagTransport()
    let networking = Networking<Probe>(
      transport: .custom(transport),
      cache: HTTPCache(),
      offlineStore: makeOfflineStore()
    )
    let request = Request.get("boards", cachePolicy: .returnCacheDataDontLoad)
    let error = await networkError(networking.request(Probe(request)))
    #expect(error?.code == .transportFailed)
    #expect((error?.underlyingError as? StorageError)?.code == .cacheMiss)
    #expect(transport.recordedRequests.isEmpty)
  }

  @Test func preProcessRequestAndTheLoggerNeverSeeThePolicyHeader() async throws {
    let transport = makeETagTransport()
    let networking = Networking<Probe>(
      transport: .custom(transport),
      cache: HTTPCache(),
      offlineStore: makeOfflineStore()
    )
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

  /// The facade caches nothing unless given a cache: no validators are sent, nothing is answered from memory, and
  /// `returnCacheDataDontLoad` fails at once with `cacheMiss` while the networking goes on serving requests.
  @Test func withoutACacheNothingIsCachedAndDontLoadFailsClearly() async throws {
    let transport = makeETagTransport()
    let networking = Networking<Probe>(transport: .custom(transport), offlineStore: makeOfflineStore())
    #expect(networking.cache == nil)
    _ = try await networking.request(Probe(.get("boards"))).value
    let second = try await networking.request(Probe(.get("boards"))).value
    #expect(!second.isFromCache)
    #expect(second.data == boardsJSON)
    #expect(transport.recordedRequests.allSatisfy { $0.headerFields[.ifNoneMatch] == nil })

    let error = await networkError(networking.request(Probe(.get("boards", cachePolicy: .returnCacheDataDontLoad))))
    #expect(error?.code == .transportFailed)
    let storageError = error?.underlyingError as? StorageError
    #expect(storageError?.code == .cacheMiss)
    #expect(storageError?.message.contains("no HTTP cache") == true)
    #expect(transport.recordedRequests.count == 2)

    let elseLoad = try await networking.request(Probe(.get("boards", cachePolicy: .returnCacheDataElseLoad))).value
    #expect(!elseLoad.isFromCache)
    #expect(transport.recordedRequests.count == 3)
  }

  /// Two users of one networking, told apart by the networking's authentication: each gets their own body, even
  /// with `Cache-Control: private` and a long `max-age`, and a request without credentials gets neither.
  @Test func twoUsersOfOneNetworkingGetTheirOwnBodies() async throws {
    let transport = makeTransport()
    transport.stub(.get, "/api/me") { request in
      let who = request.headerFields[.authorization] ?? "nobody"
      var fields = jsonHeaders
      fields[.cacheControl] = "private, max-age=600"
      fields[.eTag] = "\"\(who)\""
      return MockTransport.Reply(status: .ok, headerFields: fields, body: Data(#"{"user":"\#(who)"}"#.utf8))
    }
    let networking = Networking<Probe>(
      transport: .custom(transport),
      cache: HTTPCache(),
      offlineStore: makeOfflineStore()
    )
    func me() async throws -> Response { try await networking.request(Probe(.get("me"))).value }

    networking.authenticate(bearerToken: "alice")
    let alice = try await me()
    networking.authenticate(bearerToken: "bob")
    let bob = try await me()
    networking.clearAuthentication()
    let nobody = try await me()
    #expect(String(decoding: alice.data, as: UTF8.self) == #"{"user":"Bearer alice"}"#)
    #expect(String(decoding: bob.data, as: UTF8.self) == #"{"user":"Bearer bob"}"#)
    #expect(String(decoding: nobody.data, as: UTF8.self) == #"{"user":"nobody"}"#)
    #expect(![alice, bob, nobody].contains { $0.isFromCache })
    #expect(transport.recordedRequests.count == 3)

    networking.authenticate(bearerToken: "alice")
    let aliceAgain = try await me()
    #expect(aliceAgain.isFromCache)
    #expect(aliceAgain.data == alice.data)
    #expect(transport.recordedRequests.count == 3)
  }
}
