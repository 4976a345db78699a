import Foundation
import HTTPTypes
import MalibuAuth
import MalibuCore
import MalibuTransport
import Testing

@Suite struct AuthenticationMiddlewareTests {
  private func send(
    _ request: HTTPRequest,
    through auth: AuthenticationMiddleware,
    recordedBy fake: FakeTransport
  ) async throws -> String? {
    let before = fake.requests.count
    _ = try await fake.with(middleware: [auth]).send(request, body: nil, options: TransferOptions())
    #expect(fake.requests.count == before + 1)
    return fake.requests.last?.headerFields[.authorization]
  }

  @Test func addsEachKindOfCredentialsByteExact() async throws {
    let fake = FakeTransport()
    let auth = AuthenticationMiddleware(origin: URL(string: api))
    auth.authenticate(username: "malibu", password: "surfingparadise")
    #expect(
      try await send(.get("\(api)/get"), through: auth, recordedBy: fake) == "Basic bWFsaWJ1OnN1cmZpbmdwYXJhZGlzZQ=="
    )
    auth.authenticate(bearerToken: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9")
    #expect(
      try await send(.get("\(api)/get"), through: auth, recordedBy: fake)
        == "Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    )
    auth.authenticate(authorizationHeader: "Malibu-Header")
    #expect(try await send(.get("\(api)/get"), through: auth, recordedBy: fake) == "Malibu-Header")
    #expect(auth.authorization == .header("Malibu-Header"))
  }

  /// Without credentials the middleware adds nothing; with some it adds them, and after clearing nothing again.
  @Test func addsNothingWithoutCredentials() async throws {
    let fake = FakeTransport()
    let auth = AuthenticationMiddleware(origin: URL(string: api))
    let request = HTTPRequest.get("\(api)/a")
    #expect(try await send(request, through: auth, recordedBy: fake) == nil)
    auth.authenticate(bearerToken: "abc")
    #expect(try await send(request, through: auth, recordedBy: fake) == "Bearer abc")
    auth.clearAuthentication()
    #expect(try await send(request, through: auth, recordedBy: fake) == nil)
  }

  @Test func clearingStopsSendingCredentials() async throws {
    let fake = FakeTransport()
    let auth = AuthenticationMiddleware(authorization: .bearer("abc"), origin: URL(string: api))
    #expect(try await send(.get("\(api)/a"), through: auth, recordedBy: fake) == "Bearer abc")
    auth.clearAuthentication()
    #expect(auth.authorization == .none)
    #expect(try await send(.get("\(api)/b"), through: auth, recordedBy: fake) == nil)
    auth.authorization = .bearer("def")
    #expect(try await send(.get("\(api)/c"), through: auth, recordedBy: fake) == "Bearer def")
  }

  @Test(
    arguments: [
      ("https://api.example.com/x", true),
      ("https://api.example.com:443/x", true),
      ("https://API.Example.COM/x", true),
      ("http://api.example.com/x", false),
      ("https://api.example.com:8443/x", false),
      ("https://example.com/x", false),
      ("https://api.example.com.evil.net/x", false),
      ("https://evil.net/api.example.com", false),
    ]
  )
  func credentialsGoOnlyToTheConfiguredOrigin(url: String, expected: Bool) async throws {
    let fake = FakeTransport()
    let auth = AuthenticationMiddleware(
      authorization: .bearer("abc"),
      origin: URL(string: "https://api.example.com/v1")
    )
    let sent = try await send(.get(url), through: auth, recordedBy: fake)
    #expect(sent == (expected ? "Bearer abc" : nil))
  }

  @Test func withoutAConfiguredOriginTheFirstAuthenticatedRequestPinsIt() async throws {
    let fake = FakeTransport()
    let auth = AuthenticationMiddleware()
    #expect(try await send(.get("https://cdn.example.com/logo"), through: auth, recordedBy: fake) == nil)
    #expect(auth.origin == nil)
    auth.authenticate(bearerToken: "abc")
    #expect(try await send(.get("http://127.0.0.1:8080/get"), through: auth, recordedBy: fake) == "Bearer abc")
    #expect(auth.origin?.absoluteString == "http://127.0.0.1:8080")
    #expect(try await send(.get("https://cdn.example.com/logo"), through: auth, recordedBy: fake) == nil)
    #expect(try await send(.get("http://127.0.0.1:8081/get"), through: auth, recordedBy: fake) == nil)
    auth.authenticate(bearerToken: "new")
    #expect(try await send(.get("https://evil.net/"), through: auth, recordedBy: fake) == nil)
    #expect(try await send(.get("http://127.0.0.1:8080/other"), through: auth, recordedBy: fake) == "Bearer new")
  }

  @Test func aRequestKeepsItsOwnAuthorization() async throws {
    let fake = FakeTransport()
    let auth = AuthenticationMiddleware(authorization: .bearer("abc"), origin: URL(string: api))
    var request = HTTPRequest.get("\(api)/get")
    request.headerFields[.authorization] = "Token mine"
    #expect(try await send(request, through: auth, recordedBy: fake) == "Token mine")
  }

  @Test func invalidCredentialsFailBeforeSending() async throws {
    let fake = FakeTransport()
    let auth = AuthenticationMiddleware(authorization: .bearer("a\r\nX-Evil: 1"), origin: URL(string: api))
    await #expect {
      _ = try await fake.with(middleware: [auth]).send(.get("\(api)/get"), body: nil, options: TransferOptions())
    } throws: { ($0 as? NetworkError)?.code == .invalidHeader }
    #expect(fake.requests.isEmpty)
    auth.authenticate(bearerToken: "fine")
    #expect(try await send(.get("\(api)/get"), through: auth, recordedBy: fake) == "Bearer fine")
  }

  @Test func anOriginWithoutHostIsAClearError() async throws {
    let fake = FakeTransport()
    let auth = AuthenticationMiddleware(authorization: .bearer("abc"), origin: URL(string: "api.example.com"))
    await #expect {
      _ = try await fake.with(middleware: [auth]).send(.get("\(api)/get"), body: nil, options: TransferOptions())
    } throws: { ($0 as? NetworkError)?.code == .invalidURL }
    #expect(fake.requests.isEmpty)
  }

  @Test func credentialsCanChangeWhileRequestsRun() async throws {
    let fake = FakeTransport()
    let auth = AuthenticationMiddleware(origin: URL(string: api))
    let transport = fake.with(middleware: [auth])
    try await withThrowingTaskGroup(of: Void.self) { group in
      for index in 0..<50 {
        group.addTask {
          if index.isMultiple(of: 2) {
            auth.authenticate(bearerToken: "t\(index)")
          } else {
            auth.clearAuthentication()
          }
        }
        group.addTask {
          _ = try await transport.send(.get("\(api)/\(index)"), body: nil, options: TransferOptions())
        }
      }
      try await group.waitForAll()
    }
    #expect(fake.requests.count == 50)
    for value in fake.authorizations {
      #expect(value == nil || value!.hasPrefix("Bearer t"))
    }
  }
}
