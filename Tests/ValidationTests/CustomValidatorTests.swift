import HTTPTypes
import MalibuCore
import MalibuValidation
import Testing

/// A custom rule: the response must carry an `X-Request-ID` field.
struct RequestIDValidator: Validating {
  struct Missing: Error, Equatable {}

  func validate(_ response: Response) throws {
    guard response.headers[HTTPField.Name("X-Request-ID")!] != nil else { throw Missing() }
  }
}

/// Passes, or throws a `NetworkError` of the given code.
struct MarkingValidator: Validating {
  let code: NetworkError.Code?

  func validate(_ response: Response) throws {
    guard let code else { return }
    throw NetworkError(code: code, message: "marked \(code)", response: response)
  }
}

@Suite("Custom and combined validators")
struct CustomValidatorTests {
  @Test("a custom Validating runs, and its own error passes through unchanged", arguments: [true, false])
  func custom(_ hasID: Bool) throws {
    var response = makeResponse(body: "x")
    if hasID { response.headers[HTTPField.Name("X-Request-ID")!] = "42" }
    if hasID {
      let checked = try response.validate(using: RequestIDValidator())
      #expect(checked.headers == response.headers)
    } else {
      #expect(throws: RequestIDValidator.Missing()) { try response.validate(using: RequestIDValidator()) }
    }
    let existential: any Validating = RequestIDValidator()
    #expect(((try? response.validate(using: existential)) != nil) == hasID)
  }

  @Test(
    "a combined validator runs in order and the first failure wins",
    arguments: [
      ([nil, nil], nil),
      ([nil, .unacceptableContentType], .unacceptableContentType),
      ([.missingContentType, .unacceptableContentType], .missingContentType),
      ([], nil),
    ] as [([NetworkError.Code?], NetworkError.Code?)]
  )
  func combined(_ codes: [NetworkError.Code?], _ expected: NetworkError.Code?) {
    let response = makeResponse(status: 418, body: "teapot")
    let validator = CombinedValidator(codes.map { MarkingValidator(code: $0) })
    #expect(validator.validators.count == codes.count)
    expect(expected.map { .fail($0) } ?? .pass, for: response) { try $0.validate(using: validator) }
  }

  @Test(
    "the variadic form combines built-in validators",
    arguments: [
      (200, "application/json", Outcome.pass),
      (201, "application/json", .fail(.unacceptableStatusCode)),
      (200, "text/html", .fail(.unacceptableContentType)),
    ]
  )
  func variadic(_ status: Int, _ contentType: String, _ outcome: Outcome) {
    let strict = CombinedValidator(StatusCodeValidator([200]), ContentTypeValidator(["application/json"]))
    let response = makeResponse(status: status, contentType: [contentType], body: "{}")
    expect(outcome, for: response) { try $0.validate(using: strict) }
  }

  @Test("static factories build the built-in validators")
  func factories() {
    let response = makeResponse(status: 201, contentType: ["text/csv"], body: "a,b", accept: ["text/*"])
    expect(.pass, for: response) { try $0.validate(using: .statusCodes([201])) }
    expect(.fail(.unacceptableStatusCode), for: response) { try $0.validate(using: .statusCodes(200...200)) }
    expect(.pass, for: response) { try $0.validate(using: .contentTypes(["text/csv"])) }
    expect(.fail(.unacceptableContentType), for: response) { try $0.validate(using: .contentTypes(["text/plain"])) }
    expect(.pass, for: response) { try $0.validate(using: .default) }
    #expect(StatusCodeValidator.successful.description == "200..<300")
  }

  @Test("checks chain, each returning the response")
  func chaining() throws {
    let response = makeResponse(
      status: 200,
      contentType: ["application/json"],
      body: "[]",
      accept: ["application/json"]
    )
    let checked = try response.validate().validate(statusCodes: [200]).validate(contentTypes: ["application/*"])
      .validate(using: .statusCodes(200..<300))
    #expect(checked.data == response.data)
  }
}
