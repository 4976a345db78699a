import Foundation
import MalibuCore
import Testing

/// A query written with characters a URL may not hold, joined with encoded parameters: Foundation escapes such a
/// query whole, `%` included, which escaped the parameters a second time (found by the url-form fuzz target).
@Suite struct URLQueryEscapingTests {
  static let cases: [(resource: String, expected: String)] = [
    ("search?q=a b", "http://127.0.0.1:8080/search?q=a%20b&x=%3A%20y"),
    ("search?q=\u{12}", "http://127.0.0.1:8080/search?q=%12&x=%3A%20y"),
    ("search?q=caf\u{E9}", "http://127.0.0.1:8080/search?q=caf%C3%A9&x=%3A%20y"),
    // A `%` that starts no escape is escaped; a valid escape is kept.
    ("search?q=100%&r=%2F", "http://127.0.0.1:8080/search?q=100%25&r=%2F&x=%3A%20y"),
    ("search?q=a%20b c", "http://127.0.0.1:8080/search?q=a%20b%20c&x=%3A%20y"),
    // A valid query is left as written.
    ("search?q=a+b&s=/x?y:@", "http://127.0.0.1:8080/search?q=a+b&s=/x?y:@&x=%3A%20y"),
  ]

  @Test(arguments: cases)
  func parametersAreEscapedOnceWhateverTheResourceQueryHolds(resource: String, expected: String) throws {
    let url = try Request.get(resource, parameters: ["x": ": y"]).buildURL(baseUrl: "http://127.0.0.1:8080")
    #expect(url.absoluteString == expected)
    let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
    #expect(items.last?.name == "x")
    #expect(items.last?.value == ": y")
  }

  @Test func anAbsoluteResourceWithAnInvalidQueryKeepsItsParametersToo() throws {
    let url = try Request.get("http://127.0.0.1:8080/p?a=b c", parameters: ["k": "%"]).buildURL(baseUrl: nil)
    #expect(url.absoluteString == "http://127.0.0.1:8080/p?a=b%20c&k=%25")
  }

  @Test func aResourceWithoutParametersIsLeftToFoundation() throws {
    let url = try Request.get("search?q=a b").buildURL(baseUrl: "http://127.0.0.1:8080")
    #expect(url.absoluteString == "http://127.0.0.1:8080/search?q=a%20b")
  }
}
