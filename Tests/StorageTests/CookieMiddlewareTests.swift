import Foundation
import HTTPTypes
import MalibuTransport
import Testing

@testable import MalibuStorage

/// `CookieMiddleware` over a fake transport: the `Cookie` field out, `Set-Cookie` in, redirects hop by hop.
@Suite struct CookieMiddlewareTests {
  private func request(_ url: String, cookie: String? = nil) -> HTTPRequest {
    var request = HTTPRequest(method: .get, url: URL(string: url)!)
    if let cookie { request.headerFields[.cookie] = cookie }
    return request
  }

  private func send(
    _ transport: some Transport,
    _ request: HTTPRequest,
    options: TransferOptions = TransferOptions()
  )
    async throws -> HTTPResponse
  {
    try await transport.data(for: request, body: nil, options: options, upTo: 1 << 20).0
  }

  @Test func cookiesGoOutAndComeIn() async throws {
    let jar = CookieJar()
    let fake = FakeTransport { request in
      request.path == "/login"
        ? (
          responseHead(
            .ok,
            [("Set-Cookie", "id=1; Path=/"), ("Set-Cookie", "broken"), ("Set-Cookie", "lang=en, theme=dark")]
          ), Data()
        )
        : (responseHead(.ok), Data())
    }
    let transport = fake.with(middleware: [CookieMiddleware(jar: jar)])
    _ = try await send(transport, request("http://127.0.0.1:8080/login"))
    #expect(fake.requests[0].headerFields[.cookie] == nil)
    _ = try await send(transport, request("http://127.0.0.1:8080/boards"))
    #expect(fake.requests[1].headerFields[values: .cookie] == ["id=1; lang=en; theme=dark"])
    // Another host, even the same machine under another name, gets nothing.
    _ = try await send(transport, request("http://localhost:8080/boards"))
    #expect(fake.requests[2].headerFields[.cookie] == nil)
  }

  /// The caller's `Cookie` value, the jar's cookies, and the field that must reach the transport.
  @Test(arguments: [
    (nil as String?, "a=jar; b=jar"),
    ("c=mine", "c=mine; a=jar; b=jar"),
    ("a=mine", "a=mine; b=jar"),
    (" a = mine ;b=mine", "a = mine ;b=mine"),
  ])
  func theCallersCookieFieldWins(_ caller: String?, _ sent: String) async throws {
    let jar = CookieJar()
    jar.store(setCookie: ["a=jar", "b=jar"], from: URL(string: "http://example.com/")!)
    let fake = FakeTransport { _ in (responseHead(.ok), Data()) }
    _ = try await send(
      fake.with(middleware: [CookieMiddleware(jar: jar)]),
      request("http://example.com/x", cookie: caller)
    )
    #expect(fake.requests[0].headerFields[values: .cookie] == [sent])
  }

  @Test func severalCallerFieldsBecomeOne() async throws {
    let fake = FakeTransport { _ in (responseHead(.ok), Data()) }
    var head = request("http://example.com/")
    head.headerFields.append(HTTPField(name: .cookie, value: "a=1"))
    head.headerFields.append(HTTPField(name: .cookie, value: "b=2"))
    _ = try await send(fake.with(middleware: [CookieMiddleware(jar: CookieJar())]), head)
    #expect(fake.requests[0].headerFields[values: .cookie] == ["a=1; b=2"])
  }

  @Test func eachRedirectHopStoresAndSendsItsCookies() async throws {
    let jar = CookieJar()
    let fake = FakeTransport { request in
      switch request.path {
      case "/login":
        (responseHead(.found, [("Location", "/home"), ("Set-Cookie", "session=s1; Path=/")]), Data("moved".utf8))
      case "/home": (responseHead(.seeOther, [("Location", "http://other.example/landing")]), Data())
      default: (responseHead(.ok, [("Set-Cookie", "other=o1")]), Data("done".utf8))
      }
    }
    let transport = fake.with(middleware: [CookieMiddleware(jar: jar)])
    let (head, data, _) = try await transport.data(
      for: request("http://app.example/login", cookie: "mine=1"),
      body: nil,
      options: TransferOptions(),
      upTo: 1 << 20
    )
    #expect(head.status == .ok)
    #expect(String(decoding: data, as: UTF8.self) == "done")
    #expect(fake.requests.map(\.path) == ["/login", "/home", "/landing"])
    #expect(fake.requests.map { $0.headerFields[.cookie] } == ["mine=1", "mine=1; session=s1", nil])
    #expect(jar.cookieHeader(for: URL(string: "http://app.example/")!) == "session=s1")
    #expect(jar.cookieHeader(for: URL(string: "http://other.example/")!) == "other=o1")
  }

  @Test func redirectsFollowTheTransportsRules() async throws {
    let fake = FakeTransport { request in
      request.path == "/loop"
        ? (responseHead(.found, [("Location", "/loop"), ("Set-Cookie", "n=1")]), Data())
        : (responseHead(.ok), Data())
    }
    let jar = CookieJar()
    let transport = fake.with(middleware: [CookieMiddleware(jar: jar)])
    var options = TransferOptions()
    options.redirects = .follow(max: 2)
    do {
      _ = try await send(transport, request("http://example.com/loop"), options: options)
      Issue.record("expected too many redirects")
    } catch let error as TransportError {
      #expect(error.code == .tooManyRedirects)
    }
    #expect(fake.requests.count == 3)
    #expect(jar.cookieHeader(for: URL(string: "http://example.com/")!) == "n=1")
    #expect(try await send(transport, request("http://example.com/fine"), options: options).status == .ok)

    // Not following: the 3xx itself comes back, with its cookie stored.
    options.redirects = .none
    let count = fake.requests.count
    #expect(try await send(transport, request("http://example.com/loop"), options: options).status == .found)
    #expect(fake.requests.count == count + 1)
  }

  @Test func noHopIsSentOnceTheTotalTimeoutHasRunOut() async throws {
    let fake = FakeTransport { _ in (responseHead(.found, [("Location", "/again")]), Data()) }
    var options = TransferOptions()
    options.timeouts.total = .zero
    do {
      _ = try await send(
        fake.with(middleware: [CookieMiddleware(jar: CookieJar())]),
        request("http://example.com/"),
        options: options
      )
      Issue.record("expected a total timeout")
    } catch let error as TransportError {
      #expect(error.code == .totalTimeout)
    }
    #expect(fake.requests.isEmpty)
  }
}
