import Foundation
import Testing

@testable import MalibuStorage

/// Cookies whose `Domain` is a public suffix are refused (RFC 6265 §5.3 step 5), by the system's Public Suffix List.
@Suite struct PublicSuffixTests {
  /// A domain and whether the list makes it a public suffix.
  struct SuffixCase: Sendable, CustomTestStringConvertible {
    var domain: String
    var isSuffix: Bool
    var testDescription: String { "\(domain) → \(isSuffix ? "suffix" : "registrable")" }
  }

  static let systemCases: [SuffixCase] = [
    SuffixCase(domain: "co.uk", isSuffix: true),
    SuffixCase(domain: "github.io", isSuffix: true),
    SuffixCase(domain: "herokuapp.com", isSuffix: true),
    SuffixCase(domain: "com", isSuffix: true),
    SuffixCase(domain: "uk", isSuffix: true),
    SuffixCase(domain: "localhost", isSuffix: true),  // the implicit `*` rule
    SuffixCase(domain: "anything.ck", isSuffix: true),  // `*.ck`
    SuffixCase(domain: "www.ck", isSuffix: false),  // `!www.ck`
    SuffixCase(domain: "a.www.ck", isSuffix: false),
    SuffixCase(domain: "anything.kawasaki.jp", isSuffix: true),  // `*.kawasaki.jp`
    SuffixCase(domain: "city.kawasaki.jp", isSuffix: false),  // `!city.kawasaki.jp`
    SuffixCase(domain: "example.co.uk", isSuffix: false),
    SuffixCase(domain: "victim.github.io", isSuffix: false),
    SuffixCase(domain: "example.com", isSuffix: false),
  ]

  @Test(arguments: systemCases)
  func theSystemList(_ item: SuffixCase) throws {
    let list = try #require(
      PublicSuffixList.system,
      "no list at \(PublicSuffixList.systemPath): `make setup` installs it"
    )
    #expect(list.count > 5_000, "the whole list was read")
    #expect(CookieRules.isPublicSuffix(item.domain, list: list) == item.isSuffix)
  }

  @Test func theAlgorithmOnAListOfItsOwn() {
    let list = PublicSuffixList(
      text: """
        // ===BEGIN ICANN DOMAINS===
        uk
        co.uk
        *.ck
        !www.ck   trailing words are ignored
          // an indented comment

        GitHub.IO
        """
    )
    #expect(list.count == 5)
    let expected: [(String, Bool)] = [
      ("co.uk", true), ("uk", true), ("example.co.uk", false), ("x.ck", true), ("www.ck", false),
      ("a.b.ck", false), ("github.io", true), ("io", true), ("example.org", false),
    ]
    for (domain, isSuffix) in expected {
      #expect(CookieRules.isPublicSuffix(domain, list: list) == isSuffix, "\(domain)")
    }
    // Without a list (Apple platforms), only dot-less names.
    #expect(CookieRules.isPublicSuffix("com", list: nil))
    #expect(!CookieRules.isPublicSuffix("co.uk", list: nil))
  }

  @Test func aMissingOrUnusableListFileIsNoList() throws {
    #expect(PublicSuffixList.load(path: "/nonexistent/public_suffix_list.dat") == nil)
    let directory = makeTemporaryDirectory()
    let empty = directory.appendingPathComponent("empty.dat")
    try Data("// only a comment\n".utf8).write(to: empty)
    #expect(PublicSuffixList.load(path: empty.path) == nil)
    #expect(PublicSuffixList.load(path: directory.path) == nil, "a directory is not a list")
  }

  /// A `Set-Cookie` line from a URL: refused with this reason, or stored for this domain.
  struct CookieCase: Sendable, CustomTestStringConvertible {
    var line: String
    var url: String
    var rejected: CookieRejection.Reason?
    var domain: String?
    var hostOnly = false
    var testDescription: String { "\(line) from \(url)" }
  }

  static let cookieCases: [CookieCase] = [
    CookieCase(line: "id=1; Domain=co.uk", url: "https://evil.co.uk/", rejected: .publicSuffix),
    CookieCase(line: "id=1; Domain=.CO.UK", url: "https://evil.co.uk/", rejected: .publicSuffix),
    CookieCase(line: "id=1; Domain=github.io", url: "https://evil.github.io/", rejected: .publicSuffix),
    CookieCase(line: "id=1; Domain=herokuapp.com", url: "https://evil.herokuapp.com/", rejected: .publicSuffix),
    CookieCase(line: "id=1; Domain=com", url: "https://example.com/", rejected: .publicSuffix),
    CookieCase(line: "id=1; Domain=uk", url: "https://example.uk/", rejected: .publicSuffix),
    CookieCase(line: "id=1; Domain=evil.ck", url: "https://www.evil.ck/", rejected: .publicSuffix),
    CookieCase(line: "id=1; Domain=co.uk", url: "https://example.com/", rejected: .domainMismatch),
    CookieCase(line: "id=1; Domain=www.ck", url: "https://shop.www.ck/", domain: "www.ck"),
    CookieCase(line: "id=1; Domain=example.co.uk", url: "https://www.example.co.uk/", domain: "example.co.uk"),
    CookieCase(line: "id=1; Domain=victim.github.io", url: "https://victim.github.io/", domain: "victim.github.io"),
    // A host that is itself a suffix may name it: the cookie is host-only.
    CookieCase(line: "id=1; Domain=github.io", url: "https://github.io/", domain: "github.io", hostOnly: true),
    CookieCase(line: "id=1; Domain=co.uk", url: "https://co.uk/", domain: "co.uk", hostOnly: true),
  ]

  @Test(arguments: cookieCases)
  func aDomainThatIsAPublicSuffixIsRefused(_ item: CookieCase) throws {
    let url = try #require(URL(string: item.url))
    switch SetCookie.parse(Substring(item.line), from: url, now: Date()) {
    case .rejected(let rejection):
      #expect(rejection.reason == item.rejected, "refused: \(rejection)")
      #expect(rejection.name == "id")
    case .stored(let cookie):
      #expect(item.rejected == nil, "stored \(cookie.domain), expected \(String(describing: item.rejected))")
      #expect(cookie.domain == item.domain)
      #expect(cookie.isHostOnly == item.hostOnly)
    }
  }

  @Test
  func theJarKeepsACoUKCookieFromVictimsAndStillServesOthers() throws {
    let jar = CookieJar()
    let evil = try #require(URL(string: "https://evil.co.uk/login"))
    let victim = try #require(URL(string: "https://victim.co.uk/account"))
    let refused = jar.store(setCookie: ["session=planted; Domain=co.uk; Path=/"], from: evil)
    #expect(refused.map(\.reason) == [.publicSuffix])
    #expect(refused.map(\.name) == ["session"])
    #expect(refused.description.contains("planted") == false, "the value is never in the rejection")
    #expect(jar.cookieHeader(for: victim) == nil)
    #expect(jar.cookieHeader(for: evil) == nil)

    // A normal cookie still works, for its site and its subdomains only.
    let site = try #require(URL(string: "https://example.co.uk/login"))
    #expect(jar.store(setCookie: ["session=fine; Domain=example.co.uk; Path=/"], from: site).isEmpty)
    #expect(jar.cookieHeader(for: try #require(URL(string: "https://www.example.co.uk/boards"))) == "session=fine")
    #expect(jar.cookieHeader(for: victim) == nil)
  }
}
