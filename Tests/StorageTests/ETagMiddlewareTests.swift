import Foundation
import HTTPTypes
import MalibuCore
import MalibuTransport
import Testing

@testable import MalibuStorage

/// `ETagMiddleware` used without the facade, and with `CacheMiddleware` in front of it.
@Suite struct ETagMiddlewareTests {
  /// A server whose one resource has the ETag `"v1"`: a matching `If-None-Match` gets a `304`.
  static func server() -> FakeTransport {
    FakeTransport { request in
      if request.headerFields[.ifNoneMatch] == "\"v1\"" { return (responseHead(.notModified), Data()) }
      return (responseHead(.ok, [("ETag", "\"v1\""), ("Content-Type", "text/plain")]), Data("boards".utf8))
    }
  }

  static func send(
    _ transport: any Transport,
    _ method: HTTPRequest.Method = .get,
    body: RequestBody? = nil,
    fields: HTTPFields = [:]
  ) async throws -> (HTTPResponse, String) {
    var head = HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1:9", path: "/boards?page=1")
    head.headerFields = fields
    let response = try await transport.send(head, body: body, options: TransferOptions())
    let data = try await response.body.collect(upTo: 1 << 20)
    return (response.head, String(decoding: data, as: UTF8.self))
  }

  @Test func aModuleUserGetsRevalidationAndTheStoredBody() async throws {
    let fake = Self.server()
    let store = ETagStore()
    let transport = fake.with(middleware: [ETagMiddleware(store: store)])
    _ = try await Self.send(transport)
    let (head, body) = try await Self.send(transport)
    #expect(head.status == .ok && body == "boards")
    #expect(head.headerFields[CacheMiddleware.statusHeader] == CacheMiddleware.revalidated)
    #expect(fake.requests.map { $0.headerFields[.ifNoneMatch] } == [nil, "\"v1\""])
    #expect(store.count == 1 && store.totalBytes == 6)

    // The policy field turns it off for one request, and never reaches the server.
    let (off, _) = try await Self.send(transport, fields: [ETagMiddleware.policyHeader: "disabled"])
    #expect(off.status == .ok && off.headerFields[CacheMiddleware.statusHeader] == nil)
    #expect(fake.requests.last?.headerFields[.ifNoneMatch] == nil)
    #expect(fake.requests.allSatisfy { $0.headerFields[ETagMiddleware.policyHeader] == nil })
  }

  /// A streamed body cannot be keyed: such a PUT is sent as it is, every time.
  @Test func aStreamedBodyIsNeverRevalidated() async throws {
    let fake = Self.server()
    let transport = fake.with(middleware: [ETagMiddleware(store: ETagStore())])
    for _ in 0..<2 {
      let stream = RequestBody.stream(
        AsyncStream<Data> {
          $0.yield(Data("x".utf8))
          $0.finish()
        },
        length: 1
      )
      _ = try await Self.send(transport, .put, body: stream)
    }
    let data = RequestBody.data(Data("x".utf8))
    _ = try await Self.send(transport, .put, body: data)
    _ = try await Self.send(transport, .put, body: data)
    #expect(fake.requests.map { $0.headerFields[.ifNoneMatch] } == [nil, nil, nil, "\"v1\""])
  }

  /// Behind the HTTP cache, a GET the cache revalidates is left to the cache (its validator, its 304).
  @Test func behindTheCacheTheCachesValidatorWins() async throws {
    let fake = Self.server()
    let store = ETagStore()
    let cache = HTTPCache()
    let transport = fake.with(middleware: [CacheMiddleware(cache: cache), ETagMiddleware(store: store)])
    _ = try await Self.send(transport)
    let (head, body) = try await Self.send(transport)
    #expect(head.status == .ok && body == "boards")
    #expect(fake.requests.map { $0.headerFields[.ifNoneMatch] } == [nil, "\"v1\""])
    #expect(cache.count == 1)
  }
}
