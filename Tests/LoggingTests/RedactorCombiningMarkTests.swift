import Foundation
import HTTPTypes
import MalibuLogging
import Testing

/// A combining mark right after `&`, `=`, `?`, `#` or `@` makes one character of the delimiter and the mark; the
/// redactor splits by Unicode scalars, so the delimiter still counts and the secret is still redacted.
@Suite struct RedactorCombiningMarkTests {
  let redactor = Redactor()

  static let queries: [(input: String, expected: String)] = [
    ("password=\u{301}hunter2", "password=<redacted>"),
    ("a=1&\u{301}token=t0ken", "a=1&\u{301}token=<redacted>"),
    ("a=\u{301}1&secret=\u{20DD}s", "a=\u{301}1&secret=<redacted>"),
    // Ordinary text is kept as written, marks and all.
    ("caf\u{E9}=e\u{301}&x", "caf\u{E9}=e\u{301}&x"),
  ]

  @Test(arguments: queries)
  func secretsAfterACombiningMarkAreRedacted(input: String, expected: String) {
    #expect(Array(redactor.redact(query: input).utf8) == Array(expected.utf8))
  }

  @Test func theURLIsRedactedWhateverFollowsItsDelimiters() {
    let request = HTTPRequest(
      method: .get,
      scheme: "https",
      authority: "user:pa55word@\u{301}127.0.0.1",
      path: "/p?\u{301}api_key=k3y&q=1#\u{301}f"
    )
    let url = redactor.redactedURL(of: request)
    #expect(!url.contains("pa55word"))
    #expect(!url.contains("k3y"))
    #expect(url.hasSuffix("&q=1#\u{301}f"))
    // And an ordinary URL is as before.
    let plain = HTTPRequest(method: .get, scheme: "https", authority: "127.0.0.1", path: "/p?token=t&q=1#f")
    #expect(redactor.redactedURL(of: plain) == "https://127.0.0.1/p?token=<redacted>&q=1#f")
  }
}
