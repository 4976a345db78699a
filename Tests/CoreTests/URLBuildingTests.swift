import Foundation
import MalibuCore
import Testing

@Suite("Request.buildURL")
struct URLBuildingTests {
  struct Case: Sendable, CustomTestStringConvertible {
    let base: String?
    let resource: String
    let parameters: [String: String]
    let expected: String
    var testDescription: String { "\(base ?? "nil") + \(resource) → \(expected)" }
  }

  static let joins: [Case] = [
    Case(
      base: "http://127.0.0.1:8080/api",
      resource: "boards",
      parameters: [:],
      expected: "http://127.0.0.1:8080/api/boards"
    ),
    Case(
      base: "http://127.0.0.1:8080/api/",
      resource: "boards",
      parameters: [:],
      expected: "http://127.0.0.1:8080/api/boards"
    ),
    Case(
      base: "http://127.0.0.1:8080/api/",
      resource: "/boards",
      parameters: [:],
      expected: "http://127.0.0.1:8080/api/boards"
    ),
    Case(
      base: "http://127.0.0.1:8080/api",
      resource: "/boards",
      parameters: [:],
      expected: "http://127.0.0.1:8080/api/boards"
    ),
    Case(
      base: "http://127.0.0.1:8080/api//",
      resource: "//boards/",
      parameters: [:],
      expected: "http://127.0.0.1:8080/api/boards/"
    ),
    Case(
      base: "http://127.0.0.1:8080",
      resource: "boards/1",
      parameters: [:],
      expected: "http://127.0.0.1:8080/boards/1"
    ),
    Case(base: "http://127.0.0.1:8080/api/", resource: "", parameters: [:], expected: "http://127.0.0.1:8080/api/"),
    Case(base: "http://127.0.0.1:8080/api/", resource: "/", parameters: [:], expected: "http://127.0.0.1:8080/api/"),
    Case(base: "http://127.0.0.1:8080/api", resource: "///", parameters: [:], expected: "http://127.0.0.1:8080/api"),
    Case(
      base: "http://127.0.0.1:8080/api?key=k",
      resource: "boards",
      parameters: [:],
      expected: "http://127.0.0.1:8080/api/boards?key=k"
    ),
    Case(
      base: "http://127.0.0.1:8080/api",
      resource: "boards/1#top",
      parameters: [:],
      expected: "http://127.0.0.1:8080/api/boards/1#top"
    ),
    Case(
      base: "http://127.0.0.1:8080/api/",
      resource: "/boards/%C3%A9t%C3%A9",
      parameters: [:],
      expected: "http://127.0.0.1:8080/api/boards/%C3%A9t%C3%A9"
    ),
    Case(
      base: "http://127.0.0.1:8080/api",
      resource: "boards?page=2",
      parameters: ["type": "1"],
      expected: "http://127.0.0.1:8080/api/boards?page=2&type=1"
    ),
    Case(
      base: "http://127.0.0.1:8080/api?key=k",
      resource: "boards?page=2",
      parameters: ["type": "1"],
      expected: "http://127.0.0.1:8080/api/boards?key=k&page=2&type=1"
    ),
    Case(
      base: "http://127.0.0.1:8080/api",
      resource: "boards?",
      parameters: ["type": "1"],
      expected: "http://127.0.0.1:8080/api/boards?type=1"
    ),
    Case(
      base: "http://127.0.0.1:8080/api",
      resource: "boards#top",
      parameters: ["q": "a b"],
      expected: "http://127.0.0.1:8080/api/boards?q=a%20b#top"
    ),
    Case(
      base: "http://127.0.0.1:8080/api",
      resource: "https://other.example/x?y=1",
      parameters: ["z": "2"],
      expected: "https://other.example/x?y=1&z=2"
    ),
    Case(base: nil, resource: "http://127.0.0.1/get", parameters: ["a": "1"], expected: "http://127.0.0.1/get?a=1"),
    Case(base: nil, resource: "http://127.0.0.1/a?b=1#c", parameters: [:], expected: "http://127.0.0.1/a?b=1#c"),
    Case(
      base: "http://127.0.0.1:8080/api",
      resource: "http://127.0.0.1:9000/x?#",
      parameters: [:],
      expected: "http://127.0.0.1:9000/x?#"
    ),
    Case(
      base: "http://127.0.0.1:8080",
      resource: "boards",
      parameters: ["b": "2", "a": "1"],
      expected: "http://127.0.0.1:8080/boards?a=1&b=2"
    ),
  ]

  @Test(arguments: joins)
  func joinsBaseAndResource(_ testCase: Case) throws {
    let request = Request.get(testCase.resource, parameters: testCase.parameters)
    let url = try request.buildURL(baseUrl: testCase.base)
    #expect(url.absoluteString == testCase.expected)
  }

  @Test func apiExample() throws {
    let url: URL = try Request.get("boards?page=2", parameters: ["type": 1])
      .buildURL(baseUrl: "http://127.0.0.1:8080/api")
    #expect(url.absoluteString == "http://127.0.0.1:8080/api/boards?page=2&type=1")
  }

  @Test func urlResourceIsUsedAsIs() throws {
    let resource = URL(string: "http://127.0.0.1:9000/x/y?z=1")!
    let url = try Request.get(resource).buildURL(baseUrl: "http://127.0.0.1:8080/api")
    #expect(url == resource)
  }

  @Test func baseAsURL() throws {
    let base = URL(string: "http://127.0.0.1:8080/api/")!
    #expect(try Request.get("boards").buildURL(baseUrl: base).absoluteString == "http://127.0.0.1:8080/api/boards")
  }

  @Test(arguments: [ContentType.json, .formURLEncoded, .multipartFormData, .custom("application/xml")])
  func bodyParametersStayOutOfTheQuery(_ contentType: ContentType) throws {
    let request = Request.post("boards", contentType: contentType, parameters: ["a": 1])
    #expect(try request.buildURL(baseUrl: "http://127.0.0.1").absoluteString == "http://127.0.0.1/boards")
  }

  @Test func deleteParametersGoToTheQuery() throws {
    let url = try Request.delete("boards/1", parameters: ["force": true]).buildURL(baseUrl: "http://127.0.0.1")
    #expect(url.absoluteString == "http://127.0.0.1/boards/1?force=1")
  }

  static let invalid: [(base: String?, resource: String)] = [
    (nil, "boards"),
    ("", "boards"),
    ("127.0.0.1:8080/api", "boards"),
    ("http://exa mple.com", "boards"),
    ("ht tp://127.0.0.1", "boards"),
    ("http://", "boards"),
    ("http:///path", "boards"),
    (nil, "http://"),
    (nil, "http://bad host/x"),
    ("not a url", ""),
  ]

  @Test(arguments: invalid)
  func invalidURLsAreClearErrors(_ base: String?, _ resource: String) {
    #expect {
      try Request.get(resource).buildURL(baseUrl: base)
    } throws: { error in
      guard let error = error as? NetworkError else { return false }
      return error.code == .invalidURL && !error.message.isEmpty
    }
  }

  @Test func aRememberedValidBaseDoesNotHideAnInvalidOne() throws {
    // The last base URL found valid is remembered; alternating bases must still be checked each time.
    for _ in 0..<2 {
      #expect(
        try Request.get("boards").buildURL(baseUrl: "http://127.0.0.1/api").absoluteString
          == "http://127.0.0.1/api/boards"
      )
      #expect(throws: NetworkError.self) { try Request.get("boards").buildURL(baseUrl: "http://exa mple.com") }
      #expect(throws: NetworkError.self) { try Request.get("boards").buildURL(baseUrl: "http://") }
    }
  }

  static let absoluteResources: [(resource: String, absolute: Bool)] = [
    ("https://example.com/x", true),
    ("svn+ssh://example.com/x", true),
    ("a1.b-c://example.com/x", true),
    ("boards?next=http://example.com", false),
    ("1http://example.com", false),
    ("://example.com", false),
    ("é://example.com", false),
    ("http:/example.com", false),
  ]

  @Test(arguments: absoluteResources)
  func aResourceWithASchemeIgnoresTheBase(_ resource: String, _ absolute: Bool) throws {
    let url = try Request.get(resource).buildURL(baseUrl: "http://127.0.0.1/base")
    #expect(url.absoluteString.hasPrefix("http://127.0.0.1/base/") == !absolute)
  }

  @Test func unsupportedQueryParameterIsAnError() {
    let request = Request.get("boards", parameters: ["ids": Set([1, 2])])
    #expect {
      try request.buildURL(baseUrl: "http://127.0.0.1")
    } throws: { error in
      (error as? NetworkError)?.code == .unsupportedParameter
    }
  }
}
