import Foundation
import HTTPTypes
import MalibuStorage
import MalibuTransport
import Testing

/// `CookieMiddleware` against httpbin on both transports: cookies set (on a redirect, several in one response),
/// sent back, deleted, and never sent to another host; both transports end with the same cookies.
@Suite("Cookies", .serialized)
struct CookieScenarioTests {
  /// httpbin's `/cookies` answer (`{"cookies": {...}}`) as a dictionary.
  private func cookies(_ exchange: Exchange) throws -> [String: String] {
    try #require(try exchange.json()["cookies"] as? [String: String], "\(exchange.text.prefix(200))")
  }

  /// Sends a GET through the middleware and collects the body.
  private func get(
    _ transport: some Transport,
    _ url: URL,
    cookie: String? = nil,
    options: TransferOptions = TransferOptions()
  ) async throws -> Exchange {
    var request = HTTPRequest(method: .get, url: url)
    if let cookie { request.headerFields[.cookie] = cookie }
    let (head, data, finalURL) = try await transport.data(for: request, body: nil, options: options, upTo: 1 << 20)
    return Exchange(head: head, data: data, url: finalURL)
  }

  /// What one backend saw along the scenario, compared across backends.
  struct Outcome: Equatable {
    var afterSet: [String: String]
    var afterReload: [String: String]
    var withCallerCookie: [String: String]
    var afterDelete: [String: String]
    var jar: [String]
  }

  private func scenario(_ backend: Backend) async throws -> Outcome {
    let jar = CookieJar()
    let transport = backend.transport.with(middleware: [CookieMiddleware(jar: jar)])
    // `/cookies/set` answers 302 with two Set-Cookie fields (URLSession joins them into one) and redirects to
    // `/cookies`: the middleware stores them from the redirect and sends them on the hop.
    let set = try await get(transport, Servers.httpbin("/cookies/set?name=value&lang=en"))
    #expect(set.status == 200)
    #expect(set.url?.path == "/cookies")
    let reload = try await get(transport, Servers.httpbin("/cookies"))
    let withCaller = try await get(transport, Servers.httpbin("/cookies"), cookie: "mine=1; lang=fr")
    // Two deletions in one response: `Expires=Thu, 01 Jan 1970 …` holds a comma inside each joined field.
    let delete = try await get(transport, Servers.httpbin("/cookies/delete?lang&name"))
    return try Outcome(
      afterSet: cookies(set),
      afterReload: cookies(reload),
      withCallerCookie: cookies(withCaller),
      afterDelete: cookies(delete),
      jar: jar.all.map(\.name)
    )
  }

  @Test func bothTransportsKeepTheSameCookies() async throws {
    let curl = try await scenario(.curl)
    let urlSession = try await scenario(.urlSession)
    #expect(curl.afterSet == ["name": "value", "lang": "en"])
    #expect(curl.afterReload == ["name": "value", "lang": "en"])
    #expect(curl.withCallerCookie == ["mine": "1", "name": "value", "lang": "fr"])
    #expect(curl.afterDelete == [:])
    #expect(curl.jar.isEmpty)
    #expect(urlSession == curl)
  }

  /// Neither transport keeps cookies of its own (URLSession's cookie storage is off in the transport's session), so
  /// the jar is the only one and both transports behave alike.
  @Test(arguments: Backend.allCases)
  func withoutAJarNoCookieIsKept(_ backend: Backend) async throws {
    let set = try await get(backend.transport, Servers.httpbin("/cookies/set?hidden=1"))
    #expect(try cookies(set).isEmpty)
    #expect(try cookies(try await get(backend.transport, Servers.httpbin("/cookies"))).isEmpty)
  }

  @Test(arguments: Backend.allCases)
  func aRedirectNotFollowedStillSetsItsCookies(_ backend: Backend) async throws {
    let jar = CookieJar()
    let transport = backend.transport.with(middleware: [CookieMiddleware(jar: jar)])
    var options = TransferOptions()
    options.redirects = .none
    let set = try await get(transport, Servers.httpbin("/cookies/set?board=7"), options: options)
    #expect(set.status == 302)
    #expect(try cookies(try await get(transport, Servers.httpbin("/cookies"))) == ["board": "7"])
  }

  @Test(arguments: Backend.allCases)
  func aCookieForOneHostIsNotSentToAnother(_ backend: Backend) async throws {
    let jar = CookieJar()
    let transport = backend.transport.with(middleware: [CookieMiddleware(jar: jar)])
    _ = try await get(transport, Servers.httpbin("/cookies/set?session=s1"))
    #expect(jar.all.map(\.domain) == ["127.0.0.1"])

    // The same server under another name is another host.
    let base = try await LocalServers.shared.httpbin()
    let port = try #require(base.port)
    let other = try #require(URL(string: "http://localhost:\(port)/headers"))
    let headers = try #require(try await get(transport, other).json()["headers"] as? [String: String])
    #expect(headers["Cookie"] == nil)

    // A domain cookie for another site, set by this one, is refused, and nothing reaches the server for it.
    let refused = jar.store(setCookie: ["evil=1; Domain=evil.example"], from: base)
    #expect(refused == [CookieRejection(name: "evil", reason: .domainMismatch)])
    #expect(try cookies(try await get(transport, Servers.httpbin("/cookies"))) == ["session": "s1"])
  }

  @Test(arguments: Backend.allCases)
  func aSecureCookieIsNotSentOverHTTP(_ backend: Backend) async throws {
    let jar = CookieJar()
    let base = try await LocalServers.shared.httpbin()
    let host = try #require(base.host)
    #expect(jar.add(Cookie(name: "secret", value: "1", domain: host, isSecure: true)))
    #expect(jar.add(Cookie(name: "plain", value: "2", domain: host)))
    let transport = backend.transport.with(middleware: [CookieMiddleware(jar: jar)])
    #expect(try cookies(try await get(transport, Servers.httpbin("/cookies"))) == ["plain": "2"])
  }
}
