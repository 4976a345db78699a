import HTTPTypes
import MalibuCore
import MalibuValidation
import Testing

@Suite("DefaultValidator")
struct DefaultValidatorTests {
  @Test("only 2xx passes, for every status from 100 to 599", arguments: 100...599)
  func statusClasses(_ status: Int) {
    let response = makeResponse(status: status, contentType: ["application/json"], body: "{\"status\":\(status)}")
    let outcome: Outcome = (200..<300).contains(status) ? .pass : .fail(.unacceptableStatusCode)
    expect(outcome, for: response) { try DefaultValidator().validate($0) }
    expect(outcome, for: response) { try $0.validate() }
  }

  struct Case: Sendable, CustomTestStringConvertible {
    let accept: [String]
    let contentType: [String]
    let outcome: Outcome
    let status: Int
    let body: String
    let method: HTTPRequest.Method

    init(
      _ accept: [String],
      _ contentType: [String],
      _ outcome: Outcome,
      status: Int = 200,
      body: String = "{\"id\":1}",
      method: HTTPRequest.Method = .get
    ) {
      self.accept = accept
      self.contentType = contentType
      self.outcome = outcome
      self.status = status
      self.body = body
      self.method = method
    }

    var testDescription: String {
      "\(method) Accept \(accept) → \(status) \(contentType) body \(body.count)B: \(outcome)"
    }
  }

  static let cases: [Case] = [
    // No Accept means */*.
    Case([], ["image/png"], .pass),
    Case([], ["application/json; charset=utf-8"], .pass),
    Case([], [], .pass),
    Case([""], ["image/png"], .pass),
    Case([" , "], [], .pass),
    Case([], ["json"], .fail(.invalidContentType)),
    // The Accept header decides, q-values included.
    Case(["application/json"], ["application/json"], .pass),
    Case(["application/json"], ["Application/JSON; Charset=UTF-8"], .pass),
    Case(["application/json"], ["text/html"], .fail(.unacceptableContentType)),
    Case(["application/json"], [], .fail(.missingContentType)),
    Case(["application/json"], [], .pass, body: ""),
    Case(["application/json, text/*;q=0"], ["text/html"], .fail(.unacceptableContentType)),
    Case(["application/json, text/*;q=0"], ["application/json"], .pass),
    Case(["text/html, application/xhtml+xml, */*;q=0.8"], ["image/webp"], .pass),
    Case(["application/json", "text/plain"], ["text/plain"], .pass),
    Case(["application/json", "text/plain"], ["text/csv"], .fail(.unacceptableContentType)),
    // 204, 205 and HEAD skip the content-type check.
    Case(["application/json"], ["text/html"], .pass, status: 204, body: "<p>"),
    Case(["application/json"], ["text/html"], .pass, status: 205, body: "<p>"),
    Case(["application/json"], [], .pass, status: 204, body: ""),
    Case(["application/json"], ["text/html"], .pass, body: "<p>", method: .head),
    Case(["application/json"], ["text/html"], .fail(.unacceptableContentType), status: 201, body: "<p>"),
    // The status is checked first.
    Case(["application/json"], ["text/html"], .fail(.unacceptableStatusCode), status: 500, body: "<h1>boom</h1>"),
    Case(["json"], ["text/html"], .fail(.unacceptableStatusCode), status: 404),
    // An unparseable Accept fails every successful response.
    Case(["json"], ["application/json"], .fail(.invalidContentType)),
    Case(["application/json;"], ["application/json"], .pass),
    Case(["application/json; q"], ["application/json"], .fail(.invalidContentType)),
    Case(["*/json"], ["application/json"], .fail(.invalidContentType)),
    Case(["text/"], [], .fail(.invalidContentType), status: 204, body: ""),
  ]

  @Test("expects what the request's Accept header asks for", arguments: cases)
  func accept(_ test: Case) {
    let response = makeResponse(
      status: test.status,
      contentType: test.contentType,
      body: test.body,
      accept: test.accept,
      method: test.method
    )
    expect(test.outcome, for: response) { try DefaultValidator().validate($0) }
    expect(test.outcome, for: response) { try $0.validate() }
    expect(test.outcome, for: response) { try $0.validate(using: .default) }
  }

  @Test(
    "the Accept-based validator describes what it expects",
    arguments: [
      ([String](), "*/*"), ([""], "*/*"), (["application/json", "text/*;q=0"], "application/json, text/*;q=0"),
    ]
  )
  func acceptDescription(_ accept: [String], _ text: String) {
    let request = makeResponse(accept: accept).request
    #expect(ContentTypeValidator(acceptHeaderOf: request).description == text)
  }

  @Test("the error body stays readable")
  func errorBody() throws {
    let body = "{\"error\":\"board not found\"}"
    let response = makeResponse(
      status: 404,
      contentType: ["application/json"],
      body: body,
      accept: ["application/json"]
    )
    let error = try #require(expect(.fail(.unacceptableStatusCode), for: response) { try $0.validate() })
    #expect(String(decoding: try #require(error.response?.data), as: UTF8.self) == body)
    #expect(error.response?.request.path == "/boards")
    #expect(error.description.contains("[status 404]"))
  }
}
