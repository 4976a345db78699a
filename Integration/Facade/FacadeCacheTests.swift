import Foundation
import Malibu
import Testing

/// The facade's HTTP cache against httpbin's `/etag/{etag}` and `/cache`: the second fetch is a 304 on the wire and
/// a 200 with the full body for the caller; and against `/cache/{n}` and `/response-headers`: two users of one
/// networking each get their own body, never the other's.
@Suite("Facade: HTTP cache")
struct FacadeCacheTests {
  @Test(arguments: Backend.allCases)
  func etagRevalidationIsA304OnTheWireAndAFullBodyForTheCaller(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let recorder = RecordingTransport(backend.transport)
    let networking = Networking<Httpbin>(transport: .custom(recorder), cache: HTTPCache())
    let first = try await networking.request(.etag("wave-42", .useProtocolCachePolicy)).validate().value
    #expect(first.statusCode == 200)
    #expect(!first.isFromCache)
    #expect(first.headers[.eTag] == "wave-42")

    let second = try await networking.request(.etag("wave-42", .useProtocolCachePolicy)).validate().value
    #expect(recorder.statuses == [200, 304])
    #expect(recorder.all.last?.request.headerFields[.ifNoneMatch] == "wave-42")
    #expect(second.statusCode == 200)
    #expect(second.isFromCache)
    #expect(second.data == first.data)
    #expect(try second.toJsonDictionary()["url"] as? String == (try first.toJsonDictionary()["url"] as? String))

    // reloadIgnoringLocalCacheData bypasses the cache: no validator sent, a full 200 from the server.
    let reloaded = try await networking.request(.etag("wave-42", .reloadIgnoringLocalCacheData)).validate().value
    #expect(recorder.statuses == [200, 304, 200])
    #expect(recorder.all.last?.request.headerFields[.ifNoneMatch] == nil)
    #expect(reloaded.statusCode == 200)
    #expect(!reloaded.isFromCache)
    #expect(reloaded.data == first.data)
  }

  @Test(arguments: Backend.allCases)
  func lastModifiedRevalidationOfCache(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let recorder = RecordingTransport(backend.transport)
    let networking = Networking<Httpbin>(transport: .custom(recorder), cache: HTTPCache())
    let first = try await networking.request(.cache(.useProtocolCachePolicy)).validate().value
    #expect(first.statusCode == 200)
    #expect(!first.isFromCache)
    #expect(first.headers[.lastModified] != nil)

    let second = try await networking.request(.cache(.useProtocolCachePolicy)).validate().value
    #expect(recorder.statuses == [200, 304])
    let revalidation = try #require(recorder.all.last?.request.headerFields)
    #expect(revalidation[.ifModifiedSince] != nil || revalidation[.ifNoneMatch] != nil)
    #expect(second.statusCode == 200)
    #expect(second.isFromCache)
    #expect(second.data == first.data)
    #expect(try second.toJsonDictionary()["url"] is String)

    let reloaded = try await networking.request(.cache(.reloadIgnoringLocalCacheData)).validate().value
    #expect(recorder.statuses == [200, 304, 200])
    #expect(recorder.all.last?.request.headerFields[.ifModifiedSince] == nil)
    #expect(!reloaded.isFromCache)
    #expect(reloaded.statusCode == 200)
  }

  /// httpbin's `/cache/600` says `public, max-age=600` and echoes the request's headers: two users of one networking
  /// each get the body that carries their own `Authorization`, from the network first and then from the cache, and a
  /// request without credentials gets neither.
  @Test(arguments: Backend.allCases)
  func twoCredentialsGetTwoBodies(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let recorder = RecordingTransport(backend.transport)
    let networking = Networking<HttpbinProbe>(transport: .custom(recorder), cache: HTTPCache())
    func fetch() async throws -> (Response, String?) {
      let response = try await networking.request(HttpbinProbe(.get("cache/600"))).validate().value
      let headers = try response.toJsonDictionary()["headers"] as? [String: Any]
      return (response, headers?["Authorization"] as? String)
    }
    let aliceCredential = "Basic " + Data("alice:a-pass".utf8).base64EncodedString()
    let bobCredential = "Basic " + Data("bob:b-pass".utf8).base64EncodedString()

    networking.authenticate(username: "alice", password: "a-pass")
    let (alice, aliceSeen) = try await fetch()
    networking.authenticate(username: "bob", password: "b-pass")
    let (bob, bobSeen) = try await fetch()
    #expect(aliceSeen == aliceCredential)
    #expect(bobSeen == bobCredential)
    #expect(!alice.isFromCache && !bob.isFromCache)
    #expect(recorder.statuses == [200, 200])
    #expect(alice.data != bob.data)

    networking.authenticate(username: "alice", password: "a-pass")
    let (aliceAgain, aliceAgainSeen) = try await fetch()
    networking.authenticate(username: "bob", password: "b-pass")
    let (bobAgain, bobAgainSeen) = try await fetch()
    #expect(aliceAgain.isFromCache && bobAgain.isFromCache)
    #expect(aliceAgainSeen == aliceCredential)
    #expect(bobAgainSeen == bobCredential)
    #expect(aliceAgain.data == alice.data)
    #expect(bobAgain.data == bob.data)
    #expect(recorder.statuses == [200, 200])

    networking.clearAuthentication()
    let (anonymous, anonymousSeen) = try await fetch()
    #expect(!anonymous.isFromCache)
    #expect(anonymousSeen == nil)
    #expect(recorder.statuses == [200, 200, 200])
  }

  /// `Cache-Control: private, max-age=600` (set through httpbin's `/response-headers`) is stored, but for the user it
  /// was fetched for only: the second user's request goes to the server.
  @Test(arguments: Backend.allCases)
  func privateResponseIsKeptForItsOwnUserOnly(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let recorder = RecordingTransport(backend.transport)
    let networking = Networking<HttpbinProbe>(transport: .custom(recorder), cache: HTTPCache())
    let request = HttpbinProbe(.get("response-headers", parameters: ["Cache-Control": "private, max-age=600"]))

    networking.authenticate(bearerToken: "alice-token")
    let alice = try await networking.request(request).validate().value
    #expect(alice.headers[.cacheControl] == "private, max-age=600")
    networking.authenticate(bearerToken: "bob-token")
    let bob = try await networking.request(request).validate().value
    #expect(!alice.isFromCache && !bob.isFromCache)
    #expect(recorder.statuses == [200, 200])
    #expect(recorder.all.map { $0.request.headerFields[.authorization] } == ["Bearer alice-token", "Bearer bob-token"])

    networking.authenticate(bearerToken: "alice-token")
    let aliceAgain = try await networking.request(request).validate().value
    #expect(aliceAgain.isFromCache)
    #expect(recorder.statuses == [200, 200])
  }
}
