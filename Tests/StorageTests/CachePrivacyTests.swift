import Foundation
import HTTPTypes
import MalibuCore
import MalibuTransport
import Testing

@testable import MalibuStorage

/// A server for one URL whose body and ETag depend on the credentials: `body for <credential>`, `"<credential>"`. A
/// request carrying the ETag of its own credential gets a `304`.
private func perUserServer(_ credential: HTTPField.Name, extra: [(String, String)]) -> FakeTransport {
  FakeTransport { request in
    let who = request.headerFields[credential] ?? "nobody"
    let etag = "\"\(who)\""
    if request.headerFields[.ifNoneMatch] == etag { return (responseHead(.notModified), Data()) }
    return (responseHead(.ok, [("ETag", etag)] + extra), Data("body for \(who)".utf8))
  }
}

/// A `GET /account` through `transport`, with `fields` added; the head and the body as text.
private func fetch(
  _ transport: any Transport,
  _ fields: [(HTTPField.Name, String)] = [],
  path: String = "/account"
) async throws -> (HTTPResponse, String) {
  var head = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:9", path: path)
  for (name, value) in fields { head.headerFields.append(HTTPField(name: name, value: value)) }
  let response = try await transport.send(head, body: nil, options: TransferOptions())
  let body = try await response.body.collect(upTo: 1 << 20)
  return (response.head, String(decoding: body, as: UTF8.self))
}

@Suite struct CachePrivacyTests {
  /// Two users of one cache, with each kind of credential field and each way a response can describe itself: each
  /// gets their own body, is never sent the other's validator, and is answered from the cache only with their own.
  @Test(arguments: [
    (HTTPField.Name.authorization, "Bearer alice-token", "Bearer bob-token", [(String, String)]()),
    (.authorization, "Basic YWxpY2U6MQ==", "Basic Ym9iOjI=", [("Cache-Control", "private")]),
    (.authorization, "Bearer alice-token", "Bearer bob-token", [("Cache-Control", "private, max-age=600")]),
    (.authorization, "Bearer alice-token", "Bearer bob-token", [("Cache-Control", "public, max-age=600")]),
    (.cookie, "session=alice", "session=bob", [("Cache-Control", "private, max-age=600")]),
    (.proxyAuthorization, "Basic YWxpY2U6MQ==", "Basic Ym9iOjI=", [("Cache-Control", "max-age=600")]),
    (HTTPField.Name("X-Api-Key")!, "alice-key", "bob-key", [("Cache-Control", "private, max-age=600")]),
  ])
  func twoUsersGetTheirOwnBodies(
    field: HTTPField.Name,
    alice: String,
    bob: String,
    fields: [(String, String)]
  ) async throws {
    let server = perUserServer(field, extra: fields)
    let cache = HTTPCache(credentialFields: [HTTPField.Name("X-Api-Key")!])
    let transport = server.with(middleware: [CacheMiddleware(cache: cache)])

    let (_, aliceFirst) = try await fetch(transport, [(field, alice)])
    let (bobFirst, bobBody) = try await fetch(transport, [(field, bob)])
    #expect(aliceFirst == "body for \(alice)")
    #expect(bobBody == "body for \(bob)")
    #expect(bobFirst.headerFields[CacheMiddleware.statusHeader] == nil)
    #expect(server.requests[1].headerFields[.ifNoneMatch] == nil)
    #expect(cache.count == 2)

    let (aliceAgain, aliceBody) = try await fetch(transport, [(field, alice)])
    let (_, bobAgain) = try await fetch(transport, [(field, bob)])
    #expect(aliceAgain.headerFields[CacheMiddleware.statusHeader] != nil)
    #expect(aliceBody == "body for \(alice)")
    #expect(bobAgain == "body for \(bob)")
    // Whatever was sent again carried the sender's own validator only.
    for request in server.requests.dropFirst(2) {
      let who = request.headerFields[field]!
      #expect(request.headerFields[.ifNoneMatch] == "\"\(who)\"")
    }
  }

  /// A request without credentials never gets a response stored for one with credentials, nor the other way round,
  /// even when that response is fresh and says `public`.
  @Test(arguments: [HTTPField.Name.authorization, .cookie, .proxyAuthorization])
  func credentialsAndNoCredentialsNeverShare(field: HTTPField.Name) async throws {
    let server = perUserServer(field, extra: [("Cache-Control", "public, max-age=600")])
    let cache = HTTPCache()
    let transport = server.with(middleware: [CacheMiddleware(cache: cache)])

    _ = try await fetch(transport, [(field, "secret-1")])
    let (anonymous, anonymousBody) = try await fetch(transport)
    #expect(anonymousBody == "body for nobody")
    #expect(anonymous.headerFields[CacheMiddleware.statusHeader] == nil)
    #expect(server.requests.count == 2)
    #expect(server.requests[1].headerFields[.ifNoneMatch] == nil)

    // And the anonymous entry does not answer a credentialed request either.
    let (_, otherBody) = try await fetch(transport, [(field, "secret-2")])
    #expect(otherBody == "body for secret-2")
    #expect(server.requests.count == 3)
    let (again, againBody) = try await fetch(transport)
    #expect(again.headerFields[CacheMiddleware.statusHeader] == CacheMiddleware.hit)
    #expect(againBody == "body for nobody")
    #expect(server.requests.count == 3)
  }

  /// The same credential in a second field, or one more credential field, is another identity.
  @Test func everyCredentialFieldTakesPartInTheKey() {
    let cache = HTTPCache()
    func key(_ fields: [(HTTPField.Name, String)]) -> String {
      var head = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:9", path: "/account")
      for (name, value) in fields { head.headerFields.append(HTTPField(name: name, value: value)) }
      return cache.key(for: head)
    }
    let keys = [
      key([]),
      key([(.authorization, "Bearer a")]),
      key([(.authorization, "Bearer b")]),
      key([(.cookie, "Bearer a")]),
      key([(.authorization, "Bearer a"), (.cookie, "c=1")]),
      key([(.cookie, "c=1"), (.cookie, "d=2")]),
      key([(.cookie, "c=1; d=2")]),
    ]
    #expect(Set(keys).count == keys.count)
    #expect(key([]) == "GET http://127.0.0.1:9/account")
    #expect(key([(.authorization, "Bearer a")]) == key([(.authorization, "Bearer a")]))
  }

  /// The key, and every file of a disk cache, hold credentials only as a salted digest; two caches salt differently.
  @Test func secretsAreNeverKeptInClear() async throws {
    let directory = makeTemporaryDirectory()
    let secret = "Bearer s3cr3t-token-value"
    let server = FakeTransport { _ in
      (responseHead(.ok, [("ETag", "\"e\""), ("Set-Cookie", "session=cookie-secret")]), Data("mine".utf8))
    }
    let cache = HTTPCache(directory: directory)
    let transport = server.with(middleware: [CacheMiddleware(cache: cache)])
    let (first, _) = try await fetch(transport, [(.authorization, secret), (.cookie, "jar=cookie-jar-secret")])
    #expect(first.headerFields[.setCookie] == "session=cookie-secret")  // the network response is untouched

    var head = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:9", path: "/account")
    head.headerFields[.authorization] = secret
    head.headerFields[.cookie] = "jar=cookie-jar-secret"
    #expect(!cache.key(for: head).contains("s3cr3t"))
    #expect(!cache.key(for: head).contains("cookie-jar-secret"))
    #expect(cache.key(for: head) != HTTPCache().key(for: head))
    let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
    #expect(files.contains { $0.hasSuffix(".json") })
    for file in files {
      let text = String(decoding: try Data(contentsOf: directory.appendingPathComponent(file)), as: UTF8.self)
      #expect(!text.contains("s3cr3t"))
      #expect(!text.contains("cookie-jar-secret"))
      #expect(!text.contains("cookie-secret"))
    }
    // The stored head has no Set-Cookie, so a cached answer never replays one.
    let entry = try #require(cache.response(forKey: cache.key(for: head)))
    #expect(entry.head.headerFields[.setCookie] == nil)
    #expect(entry.body == Data("mine".utf8))
  }

  /// An unsafe request that succeeds forgets the URL's entries of every user.
  @Test func unsafeRequestForgetsTheEntriesOfEveryUser() async throws {
    let server = perUserServer(.authorization, extra: [("Cache-Control", "max-age=600")])
    let cache = HTTPCache()
    let transport = server.with(middleware: [CacheMiddleware(cache: cache)])
    _ = try await fetch(transport, [(.authorization, "Bearer a")])
    _ = try await fetch(transport, [(.authorization, "Bearer b")])
    _ = try await fetch(transport)
    _ = try await fetch(transport, path: "/other")
    #expect(cache.count == 4)
    var post = HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1:9", path: "/account")
    post.headerFields[.authorization] = "Bearer a"
    _ = try await transport.send(post, body: nil, options: TransferOptions())
    #expect(cache.count == 1)
  }

  /// A `cacheMiss` names the URL without its query and never a credential; the same chain then serves a request.
  @Test func cacheMissNamesNoSecret() async throws {
    let server = perUserServer(.authorization, extra: [("Cache-Control", "max-age=600")])
    let transport = server.with(middleware: [CacheMiddleware(cache: HTTPCache())])
    var head = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:9", path: "/account?token=q-s3cr3t")
    head.headerFields[.authorization] = "Bearer h-s3cr3t"
    head.headerFields[CacheMiddleware.policyHeader] = CachePolicy.returnCacheDataDontLoad.headerValue
    let request = head
    await #expect {
      _ = try await transport.send(request, body: nil, options: TransferOptions())
    } throws: { error in
      guard let error = error as? StorageError, error.code == .cacheMiss else { return false }
      return error.message.contains("http://127.0.0.1:9/account") && !error.description.contains("s3cr3t")
    }
    #expect(server.requests.isEmpty)
    let (_, body) = try await fetch(transport, [(.authorization, "Bearer h-s3cr3t")])
    #expect(body == "body for Bearer h-s3cr3t")
  }
}
