import HTTPTypes
import MalibuCore
import MalibuValidation
import Testing

@Suite("ContentTypeValidator")
struct ContentTypeValidatorTests {
  struct Case: Sendable, CustomTestStringConvertible {
    let expected: [String]
    let contentType: [String]
    let body: String
    let outcome: Outcome

    init(_ expected: [String], _ contentType: [String], _ outcome: Outcome, body: String = "{\"id\":1}") {
      self.expected = expected
      self.contentType = contentType
      self.outcome = outcome
      self.body = body
    }

    var testDescription: String { "\(expected) vs \(contentType) body \(body.count)B → \(outcome)" }
  }

  static let matchingCases: [Case] = [
    // Exact.
    Case(["application/json"], ["application/json"], .pass),
    Case(["application/json"], ["text/html"], .fail(.unacceptableContentType)),
    Case(["application/json"], ["application/jsonx"], .fail(.unacceptableContentType)),
    Case(["application/json"], ["application/vnd.api+json"], .fail(.unacceptableContentType)),
    // Wildcard subtype and type.
    Case(["text/*"], ["text/plain"], .pass),
    Case(["text/*"], ["application/json"], .fail(.unacceptableContentType)),
    Case(["*/*"], ["image/png"], .pass),
    Case(["*/*"], ["application/octet-stream"], .pass),
    // Parameters are ignored.
    Case(["application/json; charset=utf-8"], ["application/json"], .pass),
    Case(["application/json"], ["application/json; charset=utf-8"], .pass),
    Case(["application/json; charset=utf-8"], ["application/json; charset=iso-8859-1"], .pass),
    Case(["text/plain; format=flowed"], ["text/html; format=flowed"], .fail(.unacceptableContentType)),
    // Case-insensitive.
    Case(["application/json; charset=utf-8"], ["Application/JSON; Charset=UTF-8"], .pass),
    Case(["TEXT/*"], ["text/HTML"], .pass),
    Case(["Application/Json"], ["APPLICATION/XML"], .fail(.unacceptableContentType)),
    // q=0 excludes; the most specific range decides.
    Case(["application/json, text/*;q=0"], ["text/html"], .fail(.unacceptableContentType)),
    Case(["application/json, text/*;q=0"], ["application/json"], .pass),
    Case(["application/json, text/*;q=0"], ["image/png"], .fail(.unacceptableContentType)),
    Case(["application/json", "text/*;q=0"], ["text/plain"], .fail(.unacceptableContentType)),
    Case(["*/*", "text/html;q=0"], ["text/plain"], .pass),
    Case(["*/*", "text/html;q=0"], ["text/html; charset=utf-8"], .fail(.unacceptableContentType)),
    Case(["text/*;q=0", "text/plain"], ["text/plain"], .pass),
    Case(["text/*;q=0", "text/plain"], ["text/csv"], .fail(.unacceptableContentType)),
    Case(["*/*;q=0"], ["text/plain"], .fail(.unacceptableContentType)),
    Case(["application/json;q=0.000"], ["application/json"], .fail(.unacceptableContentType)),
    Case(["application/json;Q=0"], ["application/json"], .fail(.unacceptableContentType)),
    Case(["application/json;q=0.001"], ["application/json"], .pass),
    Case(["text/html;q=0", "text/html;level=1"], ["text/html"], .pass),
    // Several entries, in one string or many.
    Case(["application/xml", "application/json"], ["application/json"], .pass),
    Case(["application/xml, application/json;q=0.9"], ["application/json"], .pass),
    Case(["application/xml", "text/csv"], ["application/json"], .fail(.unacceptableContentType)),
    Case([], ["application/json"], .fail(.unacceptableContentType)),
    // Identical repeated fields are one type.
    Case(["application/json"], ["application/json", "application/json"], .pass),
  ]

  @Test("matches media ranges", arguments: matchingCases)
  func matching(_ test: Case) {
    let response = makeResponse(contentType: test.contentType, body: test.body)
    expect(test.outcome, for: response) { try ContentTypeValidator(test.expected).validate($0) }
    expect(test.outcome, for: response) { try $0.validate(contentTypes: test.expected) }
  }

  static let missingCases: [Case] = [
    Case(["application/json"], [], .fail(.missingContentType)),
    Case(["application/json"], [], .pass, body: ""),
    Case(["*/*"], [], .pass),
    Case(["*/*;q=0.1"], [], .pass),
    Case(["*/*", "text/html;q=0"], [], .fail(.missingContentType)),
    Case(["*/*;q=0"], [], .fail(.missingContentType)),
    Case(["application/*"], [], .fail(.missingContentType)),
    Case([], [], .fail(.missingContentType)),
    Case([], [], .pass, body: ""),
  ]

  @Test(
    "a missing Content-Type fails only when there is content and not every type is accepted",
    arguments: missingCases
  )
  func missingContentType(_ test: Case) {
    let response = makeResponse(contentType: test.contentType, body: test.body)
    expect(test.outcome, for: response) { try ContentTypeValidator(test.expected).validate($0) }
  }

  static let invalidContentTypes = [
    ["json"], ["/"], ["text/"], ["/json"], [""], ["   "], ["text/html garbage"], ["text/html; charset"],
    ["text/html; charset=\"utf-8"], ["application/json, text/html"], ["*/*"], ["text/*"], ["*/json"],
    ["application/json", "text/html"],
  ]

  @Test(
    "an unparseable, wildcard or conflicting Content-Type is invalid",
    arguments: invalidContentTypes,
    [["*/*"], ["application/json"]]
  )
  func invalidContentType(_ contentType: [String], _ expected: [String]) throws {
    let response = makeResponse(contentType: contentType, body: "<html>oops</html>")
    let error = expect(.fail(.invalidContentType), for: response) { try ContentTypeValidator(expected).validate($0) }
    #expect(String(decoding: try #require(error?.response?.data), as: UTF8.self) == "<html>oops</html>")
  }

  @Test func conflictingFieldsAreNamedAndRepeatedOnesAgree() {
    let conflicting = makeResponse(contentType: ["application/json", "text/html"], body: "{}")
    let error = expect(.fail(.invalidContentType), for: conflicting) {
      try ContentTypeValidator(["application/json"]).validate($0)
    }
    #expect(error?.message.contains("conflicting Content-Type fields: application/json | text/html") == true)
    let repeated = makeResponse(contentType: ["application/json", "application/json"], body: "{}")
    expect(.pass, for: repeated) { try ContentTypeValidator(["application/json"]).validate($0) }
  }

  @Test("an invalid Content-Type on an empty body is not looked at", arguments: invalidContentTypes)
  func invalidContentTypeWithoutContent(_ contentType: [String]) {
    let response = makeResponse(contentType: contentType, body: "")
    expect(.pass, for: response) { try ContentTypeValidator(["application/json"]).validate($0) }
  }

  @Test(
    "an invalid expected type fails every response, even one without content",
    arguments: [["json"], [""], ["text/"], ["*/json"], ["application/json", "/"], ["application/json;q"]],
    ["", "{}"]
  )
  func invalidExpectedType(_ expected: [String], _ body: String) {
    let response = makeResponse(contentType: ["application/json"], body: body)
    expect(.fail(.invalidContentType), for: response) { try ContentTypeValidator(expected).validate($0) }
  }

  @Test("parsed media ranges work like strings; a wildcard type needs a wildcard subtype")
  func mediaTypes() throws {
    let response = makeResponse(contentType: ["text/plain"], body: "hi")
    let text = MediaType(type: "text", subtype: "*")
    let excluded = MediaType(type: "text", subtype: "plain", parameters: ["q": "0"])
    expect(.pass, for: response) { try ContentTypeValidator(mediaTypes: [text]).validate($0) }
    expect(.fail(.unacceptableContentType), for: response) {
      try ContentTypeValidator(mediaTypes: [text, excluded]).validate($0)
    }
    expect(.fail(.invalidContentType), for: response) {
      try ContentTypeValidator(mediaTypes: [MediaType(type: "*", subtype: "plain")]).validate($0)
    }
  }

  struct ContentlessCase: Sendable, CustomTestStringConvertible {
    let status: Int
    let method: HTTPRequest.Method
    let outcome: Outcome
    var testDescription: String { "\(method) → \(status): \(outcome)" }
  }

  @Test(
    "responses without content by definition skip the check",
    arguments: [
      ContentlessCase(status: 204, method: .get, outcome: .pass),
      ContentlessCase(status: 205, method: .post, outcome: .pass),
      ContentlessCase(status: 304, method: .get, outcome: .pass),
      ContentlessCase(status: 101, method: .get, outcome: .pass),
      ContentlessCase(status: 200, method: .head, outcome: .pass),
      ContentlessCase(status: 404, method: .head, outcome: .pass),
      ContentlessCase(status: 200, method: .get, outcome: .fail(.unacceptableContentType)),
      ContentlessCase(status: 206, method: .get, outcome: .fail(.unacceptableContentType)),
      ContentlessCase(status: 404, method: .delete, outcome: .fail(.unacceptableContentType)),
    ]
  )
  func contentless(_ test: ContentlessCase) {
    let response = makeResponse(status: test.status, contentType: ["text/html"], body: "<p>", method: test.method)
    expect(test.outcome, for: response) { try $0.validate(contentTypes: ["application/json"]) }
  }

  @Test(
    "messages name the type and what was expected",
    arguments: [
      (["application/json"], ["text/html; charset=utf-8"], "content type text/html is not one of application/json"),
      (["application/json", "text/*;q=0"], ["Text/HTML"], "content type text/html is excluded by text/*; q=0"),
      ([], ["text/html"], "content type text/html is not one of (none)"),
      (["application/json"], [], "the response has content but no Content-Type; expected application/json"),
      ([], [], "the response has content but no Content-Type; expected (none)"),
    ]
  )
  func messages(_ expected: [String], _ contentType: [String], _ message: String) {
    let response = makeResponse(contentType: contentType, body: "<p>")
    let error = expect(
      contentType.isEmpty ? .fail(.missingContentType) : .fail(.unacceptableContentType),
      for: response
    ) {
      try $0.validate(contentTypes: expected)
    }
    #expect(error?.message == message)
  }

  @Test("a parse failure keeps Core's error as the cause")
  func underlyingError() throws {
    let response = makeResponse(contentType: ["json"], body: "{}")
    let error = try #require(
      expect(.fail(.invalidContentType), for: response) { try $0.validate(contentTypes: ["*/*"]) }
    )
    let cause = try #require(error.underlyingError as? NetworkError)
    #expect(cause.code == .invalidContentType)
    #expect(error.message.contains("'json'"))
  }

  @Test("describes the expected types as given")
  func describes() {
    #expect(ContentTypeValidator(["application/json", "text/*;q=0"]).description == "application/json, text/*;q=0")
    #expect(ContentTypeValidator(mediaTypes: [MediaType(type: "Text", subtype: "Plain")]).description == "text/plain")
  }

  @Test("a Content-Type seen before is matched by its text: the remembered parse never answers for another value")
  func repeatedContentTypes() {
    let sequence: [(contentType: String, expected: [String], outcome: Outcome)] = [
      ("application/json", ["application/json"], .pass),
      ("application/json", ["application/json"], .pass),
      ("application/json", ["text/html"], .fail(.unacceptableContentType)),
      ("application/json ", ["application/json"], .pass),
      ("application/json garbage", ["application/json"], .fail(.invalidContentType)),
      ("application/json", ["application/json"], .pass),
      ("*/*", ["*/*"], .fail(.invalidContentType)),
      ("*/*", ["*/*"], .fail(.invalidContentType)),
      ("text/html; charset=utf-8", ["text/html"], .pass),
      ("application/json", ["text/*"], .fail(.unacceptableContentType)),
      ("application/json", ["application/*"], .pass),
    ]
    for step in sequence {
      let response = makeResponse(contentType: [step.contentType], body: "{}")
      expect(step.outcome, for: response) { try ContentTypeValidator(step.expected).validate($0) }
    }
  }
}
