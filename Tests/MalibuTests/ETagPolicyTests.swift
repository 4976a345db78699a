import Malibu
import MalibuTestSupport
import Testing

/// Early Malibu's ETag policy: `If-None-Match` revalidation of `GET`, `PUT` and `PATCH`, per networking and per
/// request, keyed by method, URL, credentials (and body), bounded, and a usable response on `304`.
@Suite("ETag policy")
struct ETagPolicyTests {
  /// A server whose resources carry the ETag `"v<version>"` of their current version; a request whose
  /// `If-None-Match` names it gets a bodiless `304`, any other a `200` echoing the request's `Authorization`.
  final class Server: Sendable {
    let version = Box(1)
    let transport = makeTransport()

    init() {
      for method in [HTTPRequest.Method.get, .put, .patch, .post, .delete] {
        transport.stub(method, "/api/**") { [version] recorded in
          let etag = "\"v\(version.value)\""
          if recorded.headerFields[.ifNoneMatch] == etag { return MockTransport.Reply(status: .notModified) }
          let user = recorded.headerFields[.authorization] ?? "nobody"
          var fields = jsonHeaders
          fields[.eTag] = etag
          fields[.setCookie] = "session=s"
          return MockTransport.Reply(
            status: .ok,
            headerFields: fields,
            body: Data(#"{"user":"\#(user)","version":\#(version.value)}"#.utf8)
          )
        }
      }
    }

    /// The `If-None-Match` of every request the server got, `-` for none.
    var validators: [String] { transport.recordedRequests.map { $0.headerFields[.ifNoneMatch] ?? "-" } }
  }

  @Test func aSecondGetIsRevalidatedAndA304AnsweredWithTheStoredResponse() async throws {
    let server = Server()
    let networking = Networking<Probe>(transport: .custom(server.transport))
    networking.etagPolicy = .enabled
    let first = try await networking.request(Probe(.get("boards"))).validate().value
    #expect(!first.isFromCache)
    let second = try await networking.request(Probe(.get("boards"))).validate().value
    #expect(server.validators == ["-", "\"v1\""])
    #expect(second.statusCode == 200)
    #expect(second.isFromCache)
    #expect(second.data == first.data)
    #expect(second.headers[.setCookie] == nil)  // never replayed from the store

    // A new version: a full 200, whose ETag replaces the stored one.
    server.version.update { $0 = 2 }
    let third = try await networking.request(Probe(.get("boards"))).validate().value
    #expect(!third.isFromCache && third.data != first.data)
    _ = try await networking.request(Probe(.get("boards"))).value
    #expect(server.validators == ["-", "\"v1\"", "\"v1\"", "\"v2\""])
  }

  /// Off by default; each request may turn it on or off whatever the networking says.
  @Test(arguments: [
    (ETagPolicy.disabled, ETagPolicy?.none, false), (.disabled, .enabled, true), (.enabled, .none, true),
    (.enabled, .disabled, false),
  ])
  func theRequestsPolicyWinsOverTheNetworkings(
    networking policy: ETagPolicy,
    request own: ETagPolicy?,
    revalidates: Bool
  )
    async throws
  {
    let server = Server()
    let networking = Networking<Probe>(transport: .custom(server.transport))
    if policy == .enabled { networking.etagPolicy = policy }
    var request = Request.get("boards")
    request.etagPolicy = own
    _ = try await networking.request(Probe(request)).value
    let second = try await networking.request(Probe(request)).value
    #expect(server.validators == ["-", revalidates ? "\"v1\"" : "-"])
    #expect(second.isFromCache == revalidates)
    // The policy field never reaches the server.
    #expect(server.transport.recordedRequests.allSatisfy { $0.headerFields[ETagMiddleware.policyHeader] == nil })
  }

  @Test func aDefaultNetworkingSendsNoValidator() async throws {
    let server = Server()
    let networking = Networking<Probe>(transport: .custom(server.transport))
    #expect(networking.etagPolicy == .disabled)
    _ = try await networking.request(Probe(.get("boards"))).value
    _ = try await networking.request(Probe(.get("boards"))).value
    #expect(server.validators == ["-", "-"])
    #expect(networking.etagStore.count == 0)
  }

  /// Two users of one networking never share a validator or a body; nor does a request without credentials.
  @Test func validatorsAreKeptPerCredentials() async throws {
    let server = Server()
    let networking = Networking<Probe>(transport: .custom(server.transport))
    networking.etagPolicy = .enabled
    func fetch(_ user: String?) async throws -> Response {
      let headers = user.map { ["Authorization": "Bearer \($0)"] } ?? [:]
      return try await networking.request(Probe(.get("me", headers: headers))).validate().value
    }
    let alice = try await fetch("alice")
    let bob = try await fetch("bob")
    let nobody = try await fetch(nil)
    #expect(server.validators == ["-", "-", "-"])
    let aliceAgain = try await fetch("alice")
    let bobAgain = try await fetch("bob")
    #expect(server.validators == ["-", "-", "-", "\"v1\"", "\"v1\""])
    #expect(aliceAgain.isFromCache && aliceAgain.data == alice.data)
    #expect(bobAgain.isFromCache && bobAgain.data == bob.data)
    #expect(String(decoding: bobAgain.data, as: UTF8.self).contains("Bearer bob"))
    #expect(!String(decoding: nobody.data, as: UTF8.self).contains("Bearer"))
  }

  /// PUT and PATCH are revalidated per body; POST and DELETE never.
  @Test func putAndPatchAreKeyedByTheirBodyAndOtherMethodsAreLeftAlone() async throws {
    let server = Server()
    let networking = Networking<Probe>(transport: .custom(server.transport))
    networking.etagPolicy = .enabled
    for request in [
      Request.put("boards/1", parameters: ["title": "a"]), .patch("boards/1", parameters: ["title": "a"]),
    ] {
      _ = try await networking.request(Probe(request)).value
      let same = try await networking.request(Probe(request)).value
      #expect(same.isFromCache)
    }
    _ = try await networking.request(Probe(.put("boards/1", parameters: ["title": "b"]))).value
    for request in [Request.post("boards", parameters: ["title": "a"]), .delete("boards/1")] {
      _ = try await networking.request(Probe(request)).value
      _ = try await networking.request(Probe(request)).value
    }
    #expect(server.validators == ["-", "\"v1\"", "-", "\"v1\"", "-", "-", "-", "-", "-"])
  }

  /// A caller's own `If-None-Match` is sent as it is, and the `304` comes back as it is.
  @Test func aCallersOwnValidatorGetsThe304() async throws {
    let server = Server()
    let networking = Networking<Probe>(transport: .custom(server.transport))
    networking.etagPolicy = .enabled
    _ = try await networking.request(Probe(.get("boards"))).value
    let response = try await networking.request(Probe(.get("boards", headers: ["If-None-Match": "\"v1\""]))).value
    #expect(response.statusCode == 304)
    #expect(response.data.isEmpty && !response.isFromCache)
    #expect(
      await networkError(networking.request(Probe(.get("boards", headers: ["If-None-Match": "\"v1\""]))).validate())?
        .code == .unacceptableStatusCode
    )
  }

  /// The store keeps at most its entries and bytes, least recently used out first, and no body over its limit.
  @Test func theStoreIsBounded() async throws {
    let server = Server()
    let networking = Networking<Probe>(transport: .custom(server.transport))
    networking.etagPolicy = .enabled
    networking.etagStore = ETagStore(maxEntries: 2, maxBodyBytes: 1000, maxTotalBytes: 1000)
    for path in ["a", "b", "a", "c"] { _ = try await networking.request(Probe(.get(path))).value }
    #expect(networking.etagStore.count == 2)  // "b" was the least recently used
    server.transport.removeRecordedRequests()
    for path in ["a", "c", "b"] { _ = try await networking.request(Probe(.get(path))).value }
    #expect(server.validators == ["\"v1\"", "\"v1\"", "-"])

    let small = ETagStore(maxEntries: 10, maxBodyBytes: 10, maxTotalBytes: 100)
    networking.etagStore = small
    _ = try await networking.request(Probe(.get("boards"))).value
    #expect(small.count == 0 && small.totalBytes == 0)
  }

  /// A request whose policy field names no policy fails clearly; the networking then serves the next one.
  @Test func anUnknownPolicyValueFailsTheRequest() async throws {
    let server = Server()
    let networking = Networking<Probe>(transport: .custom(server.transport))
    let error = await networkError(
      networking.request(Probe(.get("boards", headers: ["X-Malibu-ETag-Policy": "sometimes"])))
    )
    #expect((error?.underlyingError as? StorageError)?.code == .invalidETagPolicy)
    #expect(server.transport.recordedRequests.isEmpty)
    #expect(try await networking.request(Probe(.get("boards"))).value.statusCode == 200)
  }
}
