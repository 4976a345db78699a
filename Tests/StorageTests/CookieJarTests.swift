import Foundation
import Testing

@testable import MalibuStorage

/// `Set-Cookie` parsing, the storage model and cookie selection after RFC 6265 (and 6265bis where stricter).
@Suite struct CookieJarTests {
  private let clock = TestClock()

  private func makeJar(limits: CookieJar.Limits = CookieJar.Limits()) -> CookieJar {
    let clock = clock
    return CookieJar(limits: limits, now: { clock.now })
  }

  // MARK: Parsing

  /// One `Set-Cookie` line from a URL, and the cookie it must become (or the reason it must be refused).
  struct ParseCase: Sendable, CustomTestStringConvertible {
    let line: String
    let url: String
    var rejected: CookieRejection.Reason?
    var name = "id"
    var value = "1"
    var domain = "example.com"
    var hostOnly = true
    var path = "/"
    /// Seconds from now; `nil` for a session cookie, `.infinity` for the earliest date (a deletion).
    var expiresIn: TimeInterval?
    var secure = false
    var httpOnly = false
    var sameSite: Cookie.SameSite?
    var testDescription: String { "\(line) from \(url)" }
  }

  static let parseCases: [ParseCase] = [
    ParseCase(line: "id=1", url: "http://example.com/"),
    ParseCase(line: " id = 1 ", url: "http://example.com/"),
    ParseCase(line: "id=\"quoted\"", url: "http://example.com/", value: "\"quoted\""),
    ParseCase(line: "id=", url: "http://example.com/", value: ""),
    ParseCase(line: "id=a=b", url: "http://example.com/", value: "a=b"),
    ParseCase(line: "id=1", url: "http://Example.COM./", domain: "example.com"),
    // Domain: a leading dot is ignored; it must domain-match the host; without it (or for an IP host), host-only.
    ParseCase(line: "id=1; Domain=.example.com", url: "http://www.example.com/", hostOnly: false),
    ParseCase(line: "id=1; Domain=EXAMPLE.com", url: "http://www.example.com/", hostOnly: false),
    ParseCase(line: "id=1; Domain=example.com", url: "http://example.com/", hostOnly: false),
    ParseCase(line: "id=1; Domain=", url: "http://example.com/", hostOnly: true),
    ParseCase(line: "id=1; Domain=evil.example", url: "http://example.com/", rejected: .domainMismatch),
    ParseCase(line: "id=1; Domain=evil.example", url: "http://127.0.0.1:8080/", rejected: .domainMismatch),
    ParseCase(line: "id=1; Domain=www.example.com", url: "http://example.com/", rejected: .domainMismatch),
    ParseCase(line: "id=1; Domain=ample.com", url: "http://example.com/", rejected: .domainMismatch),
    ParseCase(line: "id=1; Domain=com", url: "http://example.com/", rejected: .publicSuffix),
    ParseCase(line: "id=1; Domain=0.0.1", url: "http://127.0.0.1/", rejected: .domainMismatch),
    ParseCase(line: "id=1; Domain=127.0.0.1", url: "http://127.0.0.1/", domain: "127.0.0.1", hostOnly: true),
    ParseCase(line: "id=1; Domain=localhost", url: "http://localhost/", domain: "localhost", hostOnly: true),
    ParseCase(line: "id=1", url: "http://[::1]:80/", domain: "::1"),
    // Path: absolute values are kept; otherwise the default path, the request path's directory.
    ParseCase(line: "id=1; Path=/boards", url: "http://example.com/a/b", path: "/boards"),
    ParseCase(line: "id=1", url: "http://example.com/a/b", path: "/a"),
    ParseCase(line: "id=1", url: "http://example.com/a/b/", path: "/a/b"),
    ParseCase(line: "id=1", url: "http://example.com/a", path: "/"),
    ParseCase(line: "id=1", url: "http://example.com", path: "/"),
    ParseCase(line: "id=1; Path=relative", url: "http://example.com/a/b", path: "/a"),
    ParseCase(line: "id=1; Path=", url: "http://example.com/a/b", path: "/a"),
    // Expiry: Max-Age wins over Expires in either order; zero or less deletes; unreadable values are ignored.
    ParseCase(line: "id=1; Max-Age=60", url: "http://example.com/", expiresIn: 60),
    ParseCase(
      line: "id=1; Max-Age=60; Expires=Thu, 01 Jan 1970 00:00:00 GMT",
      url: "http://example.com/",
      expiresIn: 60
    ),
    ParseCase(
      line: "id=1; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=60",
      url: "http://example.com/",
      expiresIn: 60
    ),
    ParseCase(line: "id=1; Max-Age=0", url: "http://example.com/", expiresIn: .infinity),
    ParseCase(line: "id=1; Max-Age=-5", url: "http://example.com/", expiresIn: .infinity),
    ParseCase(line: "id=1; Max-Age=1e3", url: "http://example.com/"),
    ParseCase(line: "id=1; Max-Age=", url: "http://example.com/"),
    ParseCase(line: "id=1; Max-Age=99999999999999999999999", url: "http://example.com/", expiresIn: 400 * 86_400),
    ParseCase(line: "id=1; Expires=Fri, 15 Jan 2027 09:00:00 GMT", url: "http://example.com/", expiresIn: 3_600),
    ParseCase(line: "id=1; expires=Fri, 15-Jan-2027 09:00:00 GMT", url: "http://example.com/", expiresIn: 3_600),
    ParseCase(line: "id=1; Expires=Wed, 15 Jan 2099 08:00:00 GMT", url: "http://example.com/", expiresIn: 400 * 86_400),
    ParseCase(line: "id=1; Expires=tomorrow", url: "http://example.com/"),
    // Flags and SameSite (kept, unknown values dropped).
    ParseCase(line: "id=1; Secure; HttpOnly", url: "https://example.com/", secure: true, httpOnly: true),
    ParseCase(
      line: "id=1; secure; httponly; samesite=strict",
      url: "https://example.com/",
      secure: true,
      httpOnly: true,
      sameSite: .strict
    ),
    ParseCase(line: "id=1; SameSite=Lax", url: "http://example.com/", sameSite: .lax),
    ParseCase(
      line: "id=1; SameSite=None; Secure",
      url: "https://example.com/",
      secure: true,
      sameSite: CookieJarTests.none
    ),
    ParseCase(line: "id=1; SameSite=Sometimes", url: "http://example.com/"),
    ParseCase(line: "id=1; Unknown=x; ; Path=/p", url: "http://example.com/", path: "/p"),
    // Refused lines.
    ParseCase(line: "id=1; Secure", url: "http://example.com/", rejected: .insecureOrigin),
    ParseCase(line: "novalue", url: "http://example.com/", rejected: .malformed, name: ""),
    ParseCase(line: "=1", url: "http://example.com/", rejected: .malformed, name: ""),
    ParseCase(line: "", url: "http://example.com/", rejected: .malformed, name: ""),
    ParseCase(line: "id=a\u{1}b", url: "http://example.com/", rejected: .malformed),
    ParseCase(line: "id=a\u{7F}", url: "http://example.com/", rejected: .malformed),
    ParseCase(line: "id=1; Path=/a\u{0}b", url: "http://example.com/", rejected: .malformed),
    ParseCase(line: "id=1; Domain=example.com\r\nX: y", url: "http://example.com/", rejected: .malformed),
    ParseCase(line: "i\u{1}d=1", url: "http://example.com/", rejected: .malformed, name: ""),
    ParseCase(line: "id=a\tb", url: "http://example.com/", value: "a\tb"),
    ParseCase(line: "id=" + String(repeating: "x", count: 4095), url: "http://example.com/", rejected: .tooLarge),
    ParseCase(line: "id=1", url: "file:///tmp/x", rejected: .noHost),
    ParseCase(line: "__Secure-id=1", url: "https://example.com/", rejected: .invalidPrefix, name: "__Secure-id"),
    ParseCase(
      line: "__Host-id=1; Secure; Path=/; Domain=example.com",
      url: "https://example.com/",
      rejected: .invalidPrefix,
      name: "__Host-id"
    ),
    ParseCase(
      line: "__Host-id=1; Secure; Path=/a",
      url: "https://example.com/",
      rejected: .invalidPrefix,
      name: "__Host-id"
    ),
    ParseCase(line: "__Host-id=1; Secure; Path=/", url: "https://example.com/", name: "__Host-id", secure: true),
    ParseCase(line: "__Secure-id=1; Secure", url: "https://example.com/", name: "__Secure-id", secure: true),
  ]

  /// `SameSite=None`, spelled so that the table does not read as `Optional.none`.
  static let none = Cookie.SameSite.none

  @Test(arguments: parseCases)
  func parsing(_ testCase: ParseCase) throws {
    let url = try #require(URL(string: testCase.url))
    let date = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15 08:00:00 UTC, an hour before the dates above
    #expect(SetCookie.date("Fri, 15 Jan 2027 09:00:00 GMT")?.timeIntervalSince(date) == 3_600)
    switch SetCookie.parse(Substring(testCase.line), from: url, now: date) {
    case .rejected(let rejection):
      #expect(rejection == CookieRejection(name: testCase.name, reason: testCase.rejected ?? .malformed))
      #expect(testCase.rejected != nil, "refused: \(rejection)")
    case .stored(let cookie):
      #expect(testCase.rejected == nil, "stored, expected \(String(describing: testCase.rejected))")
      #expect(cookie.name == testCase.name)
      #expect(cookie.value == testCase.value)
      #expect(cookie.domain == testCase.domain)
      #expect(cookie.isHostOnly == testCase.hostOnly)
      #expect(cookie.path == testCase.path)
      switch testCase.expiresIn {
      case nil: #expect(cookie.expires == nil)
      case .infinity?: #expect(cookie.isExpired(at: date))
      case let seconds?: #expect(cookie.expires == date.addingTimeInterval(seconds))
      }
      #expect(cookie.isSecure == testCase.secure)
      #expect(cookie.isHTTPOnly == testCase.httpOnly)
      #expect(cookie.sameSite == testCase.sameSite)
      #expect(cookie.created == date)
    }
  }

  /// Repeated fields joined with `, ` (as URLSession delivers them) are split at `, name=`, not inside a date.
  @Test(arguments: [
    ("a=1", ["a=1"]),
    ("a=1, b=2", ["a=1", " b=2"]),
    (
      "a=1; Expires=Fri, 15 Jan 2027 09:00:00 GMT, b=2; Path=/",
      ["a=1; Expires=Fri, 15 Jan 2027 09:00:00 GMT", " b=2; Path=/"]
    ),
    ("a=x,y", ["a=x,y"]),
    ("a=1,, b=2", ["a=1,", " b=2"]),
    (" , ", [" , "]),
    ("", []),
  ])
  func joinedFieldsAreSplit(_ value: String, _ lines: [String]) {
    #expect(SetCookie.lines(in: value).map(String.init) == lines)
  }

  // MARK: Selection

  /// Cookies stored from responses, a request URL, and the `Cookie` field it must get.
  struct MatchCase: Sendable, CustomTestStringConvertible {
    let label: String
    let stored: [(line: String, from: String)]
    let request: String
    let header: String?
    var testDescription: String { label }
  }

  static let matchCases: [MatchCase] = [
    MatchCase(
      label: "host-only: same host",
      stored: [("a=1", "http://example.com/")],
      request: "http://example.com/x",
      header: "a=1"
    ),
    MatchCase(
      label: "host-only: not a subdomain",
      stored: [("a=1", "http://example.com/")],
      request: "http://www.example.com/",
      header: nil
    ),
    MatchCase(
      label: "host-only: not the parent",
      stored: [("a=1", "http://www.example.com/")],
      request: "http://example.com/",
      header: nil
    ),
    MatchCase(
      label: "domain: subdomain",
      stored: [("a=1; Domain=example.com", "http://example.com/")],
      request: "http://a.b.example.com/",
      header: "a=1"
    ),
    MatchCase(
      label: "domain: not a lookalike",
      stored: [("a=1; Domain=example.com", "http://example.com/")],
      request: "http://badexample.com/",
      header: nil
    ),
    MatchCase(
      label: "IP host: not another host",
      stored: [("a=1", "http://127.0.0.1:8080/")],
      request: "http://localhost:8080/",
      header: nil
    ),
    MatchCase(
      label: "IP host: any port",
      stored: [("a=1", "http://127.0.0.1:8080/")],
      request: "http://127.0.0.1:9090/",
      header: "a=1"
    ),
    MatchCase(
      label: "path: prefix at a slash",
      stored: [("a=1; Path=/docs", "http://example.com/")],
      request: "http://example.com/docs/web",
      header: "a=1"
    ),
    MatchCase(
      label: "path: exact",
      stored: [("a=1; Path=/docs", "http://example.com/")],
      request: "http://example.com/docs",
      header: "a=1"
    ),
    MatchCase(
      label: "path: mismatch",
      stored: [("a=1; Path=/docs", "http://example.com/")],
      request: "http://example.com/",
      header: nil
    ),
    MatchCase(
      label: "path: not a prefix at a slash",
      stored: [("a=1; Path=/docs", "http://example.com/")],
      request: "http://example.com/docsets",
      header: nil
    ),
    MatchCase(
      label: "path: trailing slash",
      stored: [("a=1; Path=/docs/", "http://example.com/")],
      request: "http://example.com/docs/x",
      header: "a=1"
    ),
    MatchCase(
      label: "path: default path",
      stored: [("a=1", "http://example.com/a/b")],
      request: "http://example.com/c",
      header: nil
    ),
    MatchCase(
      label: "secure: over https",
      stored: [("a=1; Secure", "https://example.com/")],
      request: "https://example.com/",
      header: "a=1"
    ),
    MatchCase(
      label: "secure: not over http",
      stored: [("a=1; Secure", "https://example.com/")],
      request: "http://example.com/",
      header: nil
    ),
    MatchCase(
      label: "order: longest path, then earliest",
      stored: [
        ("a=1", "http://example.com/"), ("b=2; Path=/x/y", "http://example.com/"),
        ("c=3; Path=/x", "http://example.com/"), ("d=4", "http://example.com/"),
      ],
      request: "http://example.com/x/y/z",
      header: "b=2; c=3; a=1; d=4"
    ),
    MatchCase(
      label: "same name, two paths",
      stored: [("a=1", "http://example.com/"), ("a=2; Path=/x", "http://example.com/")],
      request: "http://example.com/x",
      header: "a=2; a=1"
    ),
  ]

  @Test(arguments: matchCases)
  func selection(_ testCase: MatchCase) throws {
    let jar = makeJar()
    for (line, from) in testCase.stored {
      #expect(jar.store(setCookie: [line], from: try #require(URL(string: from))).isEmpty)
      clock.advance(by: 1)
    }
    #expect(jar.cookieHeader(for: try #require(URL(string: testCase.request))) == testCase.header)
  }

  // MARK: Storage model

  @Test func aRefusedLineLeavesTheOthersOfTheResponse() throws {
    let jar = makeJar()
    let url = try #require(URL(string: "http://127.0.0.1:8080/login"))
    let refused = jar.store(
      setCookie: ["a=1; Path=/", "garbage", "b=2; Domain=evil.example; Path=/", "c=3; Path=/; Secure", "d=4; Path=/"],
      from: url
    )
    #expect(refused.map(\.reason) == [.malformed, .domainMismatch, .insecureOrigin])
    #expect(refused.map(\.name) == ["", "b", "c"])
    #expect(jar.cookieHeader(for: url) == "a=1; d=4")
    #expect(jar.cookieHeader(for: try #require(URL(string: "http://evil.example/"))) == nil)
  }

  @Test(arguments: ["id=x; Max-Age=0", "id=x; Max-Age=-1", "id=x; Expires=Thu, 01 Jan 1970 00:00:00 GMT"])
  func anExpiredCookieDeletesItsNamesake(_ deletion: String) throws {
    let jar = makeJar()
    let url = try #require(URL(string: "http://example.com/"))
    jar.store(setCookie: ["id=1; Max-Age=3600", "other=2"], from: url)
    #expect(jar.cookieHeader(for: url) == "id=1; other=2")
    #expect(jar.store(setCookie: [deletion], from: url).isEmpty)
    #expect(jar.cookieHeader(for: url) == "other=2")
    #expect(jar.all.map(\.name) == ["other"])
  }

  @Test func deletionNeedsTheSameDomainAndPath() throws {
    let jar = makeJar()
    let url = try #require(URL(string: "http://www.example.com/a/b"))
    jar.store(setCookie: ["id=1; Path=/a; Domain=example.com"], from: url)
    jar.store(setCookie: ["id=x; Max-Age=0; Path=/a"], from: url)  // host-only www.example.com: another slot
    jar.store(setCookie: ["id=x; Max-Age=0; Domain=example.com"], from: url)  // default path /a: the same slot
    #expect(jar.all.isEmpty)
    jar.store(setCookie: ["id=1; Path=/a; Domain=example.com"], from: url)
    jar.store(setCookie: ["id=x; Max-Age=0; Path=/; Domain=example.com"], from: url)
    #expect(jar.all.count == 1)
  }

  @Test func cookiesExpireWithTime() throws {
    let jar = makeJar()
    let url = try #require(URL(string: "http://example.com/"))
    jar.store(setCookie: ["short=1; Max-Age=10", "session=2"], from: url)
    clock.advance(by: 9)
    #expect(jar.cookieHeader(for: url) == "short=1; session=2")
    clock.advance(by: 1)
    #expect(jar.cookieHeader(for: url) == "session=2")
    #expect(jar.all.map(\.name) == ["session"])
  }

  @Test func aReplacementKeepsTheCreationTime() throws {
    let jar = makeJar()
    let url = try #require(URL(string: "http://example.com/"))
    jar.store(setCookie: ["a=1", "b=2"], from: url)
    clock.advance(by: 5)
    jar.store(setCookie: ["a=3; HttpOnly"], from: url)
    #expect(jar.cookieHeader(for: url) == "a=3; b=2")
    let replaced = try #require(jar.all.first { $0.name == "a" })
    #expect(replaced.isHTTPOnly)
    #expect(replaced.created == Date(timeIntervalSince1970: 1_800_000_000))
    #expect(jar.all.count == 2)
  }

  @Test func anInsecureOriginCannotShadowASecureCookie() throws {
    let jar = makeJar()
    jar.store(
      setCookie: ["id=secret; Secure; Domain=example.com"],
      from: try #require(URL(string: "https://example.com/"))
    )
    let refused = jar.store(
      setCookie: ["id=forged", "other=1"],
      from: try #require(URL(string: "http://www.example.com/"))
    )
    #expect(refused == [CookieRejection(name: "id", reason: .insecureOrigin)])
    #expect(jar.cookieHeader(for: try #require(URL(string: "https://www.example.com/"))) == "id=secret; other=1")
    #expect(jar.cookieHeader(for: try #require(URL(string: "http://www.example.com/"))) == "other=1")
  }

  @Test func theOldestGoFirstPastTheLimits() throws {
    let jar = makeJar(limits: CookieJar.Limits(perDomain: 2, total: 3))
    let a = try #require(URL(string: "http://a.example/"))
    let b = try #require(URL(string: "http://b.example/"))
    for line in ["1=1", "2=2", "3=3"] {
      jar.store(setCookie: [line], from: a)
      clock.advance(by: 1)
    }
    #expect(jar.cookieHeader(for: a) == "2=2; 3=3")
    jar.store(setCookie: ["4=4"], from: b)
    clock.advance(by: 1)
    jar.store(setCookie: ["5=5"], from: b)
    #expect(jar.all.map(\.name) == ["3", "4", "5"])
  }

  @Test func theAPIListsAddsAndRemoves() throws {
    let jar = makeJar()
    let url = try #require(URL(string: "https://www.example.com/boards"))
    #expect(jar.add(Cookie(name: "lang", value: "en", domain: ".Example.com", isHostOnly: false)))
    #expect(jar.add(Cookie(name: "id", value: "7", domain: "www.example.com", path: "/boards", isSecure: true)))
    #expect(!jar.add(Cookie(name: "bad", value: "a\r\nSet-Cookie: x=y", domain: "example.com")))
    #expect(!jar.add(Cookie(name: "", value: "1", domain: "example.com")))
    #expect(!jar.add(Cookie(name: "a;b", value: "1", domain: "example.com")))
    #expect(!jar.add(Cookie(name: "a", value: "1", domain: "example.com", path: "relative")))
    #expect(jar.cookieHeader(for: url) == "id=7; lang=en")
    #expect(jar.all.map(\.domain) == ["example.com", "www.example.com"])
    #expect(jar.remove(name: "lang", domain: ".example.com"))
    #expect(!jar.remove(name: "lang", domain: "example.com"))
    #expect(jar.cookieHeader(for: url) == "id=7")
    jar.removeAll()
    #expect(jar.all.isEmpty)
    #expect(jar.cookieHeader(for: url) == nil)
  }
}
