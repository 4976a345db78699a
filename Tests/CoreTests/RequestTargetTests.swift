import Foundation
import MalibuCore
import Testing

/// `RequestTarget(plain:)` splits common URLs without Foundation; these tests hold it to Foundation's answer
/// (`URL(string:)` then `HTTPRequest(method:url:)`, as `buildURL` feeds a transport) on chosen and generated URLs.
@Suite("RequestTarget")
struct RequestTargetTests {
  static let plain: [String] = [
    "http://127.0.0.1:8080/api/boards",
    "http://127.0.0.1",
    "http://127.0.0.1/",
    "https://Example.COM/Boards/1",
    "http://bench.invalid/boards/1",
    "http://localhost:65535/x",
    "http://h/a?b=1&c=2",
    "http://h/a?",
    "http://h?x=1",
    "http://h#top",
    "http://h/p#frag?x/y",
    "http://h/p?q=a%20b#top",
    "http://h/%7Euser/a%2Fb",
    "http://h/a:b@c!$&'()*+,;=-._~",
    "http://h/a?x=/y?z=:@",
    "http://h/.well-known/x",
    "http://h/a.b/..c/...",
    "ws://h/socket",
    "custom+x.y-z://h/p",
  ]

  @Test(arguments: plain)
  func plainURLsSplitAsFoundationDoes(_ string: String) throws {
    let target = try #require(RequestTarget(plain: string))
    let url = try #require(URL(string: string))
    #expect(target == RequestTarget(url: url))
  }

  static let unusual: [String] = [
    "http://user:pw@h/x",
    "http://[::1]:8080/x",
    "http://h:/x",
    "http://h:99999/x",
    "http://h:1:2/x",
    "http://h/a b",
    "http://h/a\"b",
    "http://h/a<b>",
    "http://h/a%2",
    "http://h/a%zz",
    "http://h/ä",
    "http://h/a/../b",
    "http://h/a/./b",
    "http://h/..",
    "http://h/a/.?x",
    "http://h/a#b#c",
    "http://h/a{b}",
    "http://h/a|b",
    "http://h/a\\b",
    "http://h%41/x",
    "http://",
    "http:///x",
    "http:/h/x",
    "h",
    "1http://h/",
    "",
  ]

  @Test(arguments: unusual)
  func unusualURLsAreLeftToFoundation(_ string: String) {
    #expect(RequestTarget(plain: string) == nil)
  }

  @Test func generatedURLsNeverDisagreeWithFoundation() throws {
    // Strings over an alphabet rich in the characters the split decides on; every one it accepts must be one that
    // Foundation parses to the same target.
    let alphabet = Array("ab09-._~%2F:@/?#!$&'()*+,;= \"<>[]{}|\\^`ä.")
    var generator = SplitMix(seed: 0x6D61_6C69_6275)
    var accepted = 0
    for _ in 0..<3_000 {
      let length = Int(generator.next() % 14)
      var tail = ""
      for _ in 0..<length { tail.append(alphabet[Int(generator.next() % UInt64(alphabet.count))]) }
      let host = generator.next().isMultiple(of: 4) ? "127.0.0.1:8080" : "host.example"
      let string = "http://" + host + (generator.next().isMultiple(of: 3) ? "" : "/") + tail
      guard let target = RequestTarget(plain: string) else { continue }
      accepted += 1
      let url = try #require(URL(string: string), "split \(string) but Foundation rejects it")
      #expect(target == RequestTarget(url: url), "\(string)")
    }
    #expect(accepted > 300)
  }

  @Test(arguments: URLBuildingTests.joins)
  func buildTargetMatchesBuildURL(_ testCase: URLBuildingTests.Case) throws {
    let request = Request.get(testCase.resource, parameters: testCase.parameters)
    let url = try request.buildURL(baseUrl: testCase.base)
    #expect(try request.buildTarget(baseUrl: testCase.base) == RequestTarget(url: url))
  }

  @Test func buildTargetFallsBackToFoundationForUnusualURLs() throws {
    let request = Request.get("a b/ä", parameters: ["q": "1"])
    let target = try request.buildTarget(baseUrl: "http://user@127.0.0.1:8080/api")
    let url = try request.buildURL(baseUrl: "http://user@127.0.0.1:8080/api")
    #expect(target == RequestTarget(url: url))
    #expect(target.authority == "127.0.0.1:8080")
  }

  @Test func buildTargetThrowsWhatBuildURLThrows() {
    for (base, resource) in [(nil, "boards"), ("http://exa mple.com", "boards"), (nil as String?, "http://")] {
      let request = Request.get(resource)
      let urlError = #expect(throws: NetworkError.self) { try request.buildURL(baseUrl: base) }
      let targetError = #expect(throws: NetworkError.self) { try request.buildTarget(baseUrl: base) }
      #expect(urlError?.code == .invalidURL)
      #expect(targetError?.code == urlError?.code)
      #expect(targetError?.message == urlError?.message)
    }
  }
}

/// A small deterministic generator (SplitMix64), so a failing generated case repeats.
struct SplitMix {
  private var state: UInt64

  init(seed: UInt64) {
    state = seed
  }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var value = state
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }
}
