import Foundation
import HTTPTypes
import MalibuCore
import MalibuTransport
import Testing

@testable import MalibuStorage

@Suite struct CacheMiddlewareTests {
  private let clock = TestClock()

  private func makeStack(_ handler: @escaping FakeTransport.Handler) -> (HTTPCache, FakeTransport, any Transport) {
    let clock = self.clock
    let cache = HTTPCache(now: { clock.now })
    let fake = FakeTransport(handler: handler)
    return (cache, fake, fake.with(middleware: [CacheMiddleware(cache: cache)]))
  }

  private func get(
    _ transport: any Transport,
    policy: CachePolicy? = nil
  ) async throws -> (HTTPResponse, String) {
    var head = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:9", path: "/boards?page=1")
    if let policy { head.headerFields[CacheMiddleware.policyHeader] = policy.headerValue }
    let response = try await transport.send(head, body: nil, options: TransferOptions())
    let body = try await response.body.collect(upTo: 1 << 20)
    return (response.head, String(decoding: body, as: UTF8.self))
  }

  @Test(arguments: [
    ("ETag", "\"v1\"", HTTPField.Name.ifNoneMatch),
    ("Last-Modified", "Wed, 21 Oct 2026 07:28:00 GMT", HTTPField.Name.ifModifiedSince),
  ])
  func revalidatesAndAnswers304FromTheCache(validator: String, value: String, conditional: HTTPField.Name) async throws
  {
    let (_, fake, transport) = makeStack { request in
      if request.headerFields[conditional] == value { return (responseHead(.notModified, [("Date", "later")]), Data()) }
      return (responseHead(.ok, [(validator, value), ("Content-Type", "text/plain")]), Data("boards".utf8))
    }
    let (first, firstBody) = try await get(transport)
    #expect(first.status == .ok && firstBody == "boards")
    #expect(first.headerFields[CacheMiddleware.statusHeader] == nil)

    let (second, secondBody) = try await get(transport, policy: .useProtocolCachePolicy)
    #expect(second.status == .ok)
    #expect(secondBody == "boards")
    #expect(second.headerFields[CacheMiddleware.statusHeader] == CacheMiddleware.revalidated)
    #expect(second.headerFields[.contentType] == "text/plain")
    #expect(second.headerFields[HTTPField.Name("Date")!] == "later")
    let sent = fake.requests
    #expect(sent.count == 2)
    #expect(sent[0].headerFields[conditional] == nil)
    #expect(sent[1].headerFields[conditional] == value)
    #expect(sent.allSatisfy { $0.headerFields[CacheMiddleware.policyHeader] == nil })
  }

  @Test func freshEntryIsAnsweredWithoutARequestAndStaleOneIsRevalidated() async throws {
    let (_, fake, transport) = makeStack { request in
      if request.headerFields[.ifNoneMatch] != nil { return (responseHead(.notModified), Data()) }
      return (responseHead(.ok, [("ETag", "\"a\""), ("Cache-Control", "public, max-age=60")]), Data("x".utf8))
    }
    _ = try await get(transport)
    clock.advance(by: 30)
    let (fresh, freshBody) = try await get(transport)
    #expect(fresh.headerFields[CacheMiddleware.statusHeader] == CacheMiddleware.hit)
    #expect(freshBody == "x")
    #expect(fake.requests.count == 1)

    clock.advance(by: 60)
    let (stale, staleBody) = try await get(transport)
    #expect(stale.headerFields[CacheMiddleware.statusHeader] == CacheMiddleware.revalidated)
    #expect(staleBody == "x")
    #expect(fake.requests.count == 2)
    #expect(fake.requests[1].headerFields[.ifNoneMatch] == "\"a\"")

    // The 304 renewed the entry: fresh again.
    clock.advance(by: 10)
    let (renewed, _) = try await get(transport)
    #expect(renewed.headerFields[CacheMiddleware.statusHeader] == CacheMiddleware.hit)
    #expect(fake.requests.count == 2)
  }

  @Test(arguments: [
    [("ETag", "\"a\""), ("Cache-Control", "no-store")],
    [("ETag", "\"a\""), ("Vary", "*")],
    [("ETag", "\"a\""), ("Vary", "Accept, *")],
    [("Cache-Control", "no-cache, max-age=60")],
    [("Cache-Control", "private")],
    [("Expires", "0")],
  ])
  func unstorableResponsesAreNeverStored(fields: [(String, String)]) async throws {
    let (cache, fake, transport) = makeStack { _ in (responseHead(.ok, fields), Data("x".utf8)) }
    _ = try await get(transport)
    let (second, _) = try await get(transport)
    #expect(cache.count == 0)
    #expect(second.headerFields[CacheMiddleware.statusHeader] == nil)
    #expect(fake.requests.count == 2)
    #expect(fake.requests[1].headerFields[.ifNoneMatch] == nil)
  }

  @Test func reloadIgnoringLocalCacheDataBypassesTheCache() async throws {
    let (cache, fake, transport) = makeStack { _ in
      (responseHead(.ok, [("ETag", "\"a\""), ("Cache-Control", "max-age=600")]), Data("x".utf8))
    }
    _ = try await get(transport)
    #expect(cache.count == 1)
    let (reloaded, body) = try await get(transport, policy: .reloadIgnoringLocalCacheData)
    #expect(reloaded.headerFields[CacheMiddleware.statusHeader] == nil)
    #expect(body == "x")
    #expect(fake.requests.count == 2)
    #expect(fake.requests[1].headerFields[.ifNoneMatch] == nil)
    #expect(fake.requests[1].headerFields[CacheMiddleware.policyHeader] == nil)
  }

  @Test func returnCacheDataDontLoadWithoutAnEntryFailsWithoutARequest() async throws {
    let (_, fake, transport) = makeStack { _ in (responseHead(.ok, [("ETag", "\"a\"")]), Data("x".utf8)) }
    await #expect {
      _ = try await get(transport, policy: .returnCacheDataDontLoad)
    } throws: { error in
      (error as? StorageError)?.code == .cacheMiss
    }
    #expect(fake.requests.isEmpty)

    _ = try await get(transport, policy: .returnCacheDataElseLoad)
    clock.advance(by: 1_000_000)
    let (stale, body) = try await get(transport, policy: .returnCacheDataDontLoad)
    #expect(stale.headerFields[CacheMiddleware.statusHeader] == CacheMiddleware.hit)
    #expect(body == "x")
    let (elseLoad, _) = try await get(transport, policy: .returnCacheDataElseLoad)
    #expect(elseLoad.headerFields[CacheMiddleware.statusHeader] == CacheMiddleware.hit)
    #expect(fake.requests.count == 1)
  }

  @Test func unknownPolicyIsAClearError() async throws {
    let (_, fake, transport) = makeStack { _ in (responseHead(.ok), Data()) }
    var head = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:9", path: "/")
    head.headerFields[CacheMiddleware.policyHeader] = "sometimes"
    await #expect {
      _ = try await transport.send(head, body: nil, options: TransferOptions())
    } throws: { error in
      (error as? StorageError)?.code == .invalidCachePolicy
    }
    #expect(fake.requests.isEmpty)
  }

  @Test func successfulUnsafeMethodForgetsTheEntry() async throws {
    let (cache, _, transport) = makeStack { _ in (responseHead(.ok, [("ETag", "\"a\"")]), Data("x".utf8)) }
    _ = try await get(transport)
    #expect(cache.count == 1)
    let delete = HTTPRequest(method: .delete, scheme: "http", authority: "127.0.0.1:9", path: "/boards?page=1")
    _ = try await transport.send(delete, body: nil, options: TransferOptions())
    #expect(cache.count == 0)
  }

  @Test func bodyLargerThanTheLimitIsPassedThroughUnstored() async throws {
    let clock = self.clock
    let cache = HTTPCache(maxBodyBytes: 4, now: { clock.now })
    let fake = FakeTransport { _ in (responseHead(.ok, [("ETag", "\"a\"")]), Data("too large".utf8)) }
    let transport = fake.with(middleware: [CacheMiddleware(cache: cache)])
    let (_, body) = try await get(transport)
    #expect(body == "too large")
    #expect(cache.count == 0)
  }

  /// A chain built once serves every policy: the transfer's `SourceRequest` names it, over any `policyHeader` field
  /// (which is removed all the same).
  @Test(arguments: [
    (CachePolicy.useProtocolCachePolicy, CachePolicy.reloadIgnoringLocalCacheData, true),
    (.reloadIgnoringLocalCacheData, .useProtocolCachePolicy, false),
    (.returnCacheDataElseLoad, .reloadIgnoringLocalCacheData, true),
  ])
  func sourceRequestPolicyWinsOverTheField(
    source: CachePolicy,
    field: CachePolicy,
    answeredFromCache: Bool
  )
    async throws
  {
    let (_, fake, transport) = makeStack { _ in
      (responseHead(.ok, [("ETag", "\"a\""), ("Cache-Control", "max-age=600")]), Data("x".utf8))
    }
    _ = try await get(transport)
    let request = Request.get("http://127.0.0.1:9/boards?page=1", cachePolicy: source)
    let (second, body) = try await SourceRequest.$current.withValue(SourceRequest(request)) {
      try await get(transport, policy: field)
    }
    #expect(body == "x")
    #expect((second.headerFields[CacheMiddleware.statusHeader] == CacheMiddleware.hit) == answeredFromCache)
    #expect(fake.requests.count == (answeredFromCache ? 1 : 2))
    #expect(fake.requests.allSatisfy { $0.headerFields[CacheMiddleware.policyHeader] == nil })
  }

  /// Without a cache, the facade's cache step refuses a GET under `returnCacheDataDontLoad` (from the source request
  /// or the field), strips the field, and then serves the next request.
  @Test func uncachedStepRefusesDontLoadAndServesTheNextRequest() async throws {
    let fake = FakeTransport { _ in (responseHead(.ok), Data("x".utf8)) }
    let transport = fake.with(middleware: [CacheMiddleware.Uncached()])
    let dontLoad = Request.get("http://127.0.0.1:9/boards", cachePolicy: .returnCacheDataDontLoad)
    await #expect {
      _ = try await SourceRequest.$current.withValue(SourceRequest(dontLoad)) { try await get(transport) }
    } throws: { error in
      (error as? StorageError)?.code == .cacheMiss
    }
    await #expect {
      _ = try await get(transport, policy: .returnCacheDataDontLoad)
    } throws: { error in
      (error as? StorageError)?.code == .cacheMiss
    }
    #expect(fake.requests.isEmpty)
    let (head, body) = try await get(transport, policy: .useProtocolCachePolicy)
    #expect(head.status == .ok && body == "x")
    #expect(fake.requests.count == 1)
    #expect(fake.requests[0].headerFields[CacheMiddleware.policyHeader] == nil)
  }
}

@Suite struct HTTPCacheDiskTests {
  @Test func entriesSurviveARestartAndBadRecordsAreDropped() async throws {
    let directory = makeTemporaryDirectory()
    let fake = FakeTransport { request in
      if request.headerFields[.ifNoneMatch] == "\"v\"" { return (responseHead(.notModified), Data()) }
      return (responseHead(.ok, [("ETag", "\"v\""), ("X-Board", "balsa")]), Data("boards".utf8))
    }
    let head = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:9", path: "/boards")
    do {
      let transport = fake.with(middleware: [CacheMiddleware(cache: HTTPCache(directory: directory))])
      let response = try await transport.send(head, body: nil, options: TransferOptions())
      _ = try await response.body.collect(upTo: 1 << 20)
    }
    try Data("not json".utf8).write(to: directory.appendingPathComponent("broken.json"))

    let reopened = HTTPCache(directory: directory)
    #expect(reopened.count == 1)
    let transport = fake.with(middleware: [CacheMiddleware(cache: reopened)])
    let response = try await transport.send(head, body: nil, options: TransferOptions())
    let body = try await response.body.collect(upTo: 1 << 20)
    #expect(String(decoding: body, as: UTF8.self) == "boards")
    #expect(response.head.headerFields[CacheMiddleware.statusHeader] == CacheMiddleware.revalidated)
    #expect(response.head.headerFields[HTTPField.Name("X-Board")!] == "balsa")
    #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("broken.json").path))

    reopened.removeAll()
    #expect(HTTPCache(directory: directory).count == 0)
  }
}
