import MalibuCore
import MalibuValidation
import Testing

@Suite("StatusCodeValidator")
struct StatusCodeValidatorTests {
  struct Case: Sendable, CustomTestStringConvertible {
    let name: String
    let validator: StatusCodeValidator
    let code: Int
    let accepted: Bool

    init(_ name: String, _ validator: StatusCodeValidator, _ code: Int, _ accepted: Bool) {
      self.name = name
      self.validator = validator
      self.code = code
      self.accepted = accepted
    }

    var testDescription: String { "\(name) ∋ \(code): \(accepted)" }
  }

  static let cases: [Case] = [
    Case("200..<300", StatusCodeValidator(200..<300), 199, false),
    Case("200..<300", StatusCodeValidator(200..<300), 200, true),
    Case("200..<300", StatusCodeValidator(200..<300), 299, true),
    Case("200..<300", StatusCodeValidator(200..<300), 300, false),
    Case("200...299", StatusCodeValidator(200...299), 299, true),
    Case("200...299", StatusCodeValidator(200...299), 300, false),
    Case("200...299", StatusCodeValidator(200...299), 199, false),
    Case("[200]", StatusCodeValidator([200]), 200, true),
    Case("[200]", StatusCodeValidator([200]), 201, false),
    Case("[200, 200, 201]", StatusCodeValidator([200, 200, 201]), 201, true),
    Case("Set [200, 204]", StatusCodeValidator(Set([200, 204])), 204, true),
    Case("Set [200, 204]", StatusCodeValidator(Set([200, 204])), 203, false),
    Case("[404, 200, 302]", StatusCodeValidator([404, 200, 302]), 302, true),
    Case("[404, 200, 302]", StatusCodeValidator([404, 200, 302]), 301, false),
    Case("500...", StatusCodeValidator(500...), 499, false),
    Case("500...", StatusCodeValidator(500...), 999, true),
    Case("stride by 2", StatusCodeValidator(stride(from: 200, to: 300, by: 2)), 298, true),
    Case("stride by 2", StatusCodeValidator(stride(from: 200, to: 300, by: 2)), 299, false),
    Case("[]", StatusCodeValidator([]), 200, false),
    Case("200..<200", StatusCodeValidator(200..<200), 200, false),
    Case("Int.min..<Int.max", StatusCodeValidator(Int.min..<Int.max), 0, true),
    Case("[Int.max, Int.max - 1, 200]", StatusCodeValidator([Int.max, Int.max - 1, 200]), 201, false),
  ]

  @Test("accepts exactly the given codes", arguments: cases)
  func acceptance(_ test: Case) {
    #expect(test.validator.accepts(test.code) == test.accepted)
    let response = makeResponse(status: test.code, body: "{\"error\":\"teapot\"}")
    expect(test.accepted ? .pass : .fail(.unacceptableStatusCode), for: response) { try test.validator.validate($0) }
    expect(test.accepted ? .pass : .fail(.unacceptableStatusCode), for: response) {
      try $0.validate(using: test.validator)
    }
  }

  @Test(
    "describes the accepted codes",
    arguments: [
      (StatusCodeValidator(200..<300), "200..<300"),
      (StatusCodeValidator(200...299), "200..<300"),
      (StatusCodeValidator([200]), "200"),
      (StatusCodeValidator(Set([201, 200])), "200, 201"),
      (StatusCodeValidator([204, 200, 201, 202]), "200..<203, 204"),
      (StatusCodeValidator(500...), "500..."),
      (StatusCodeValidator([]), "(none)"),
      (StatusCodeValidator(Int.min...Int.max), "\(Int.min)..."),
    ]
  )
  func description(_ validator: StatusCodeValidator, _ text: String) {
    #expect(validator.description == text)
  }

  @Test("the message names the status and the accepted codes")
  func message() throws {
    let response = makeResponse(status: 404, contentType: ["text/plain"], body: "no such board")
    let error = try #require(
      expect(.fail(.unacceptableStatusCode), for: response) { try $0.validate(statusCodes: 200..<300) }
    )
    #expect(error.message == "status 404 is not one of 200..<300")
    #expect(String(decoding: try #require(error.response?.data), as: UTF8.self) == "no such board")
    let none = try #require(expect(.fail(.unacceptableStatusCode), for: response) { try $0.validate(statusCodes: []) })
    #expect(none.message == "status 404 is not accepted: no status code is")
  }

  @Test("a passing check returns the same response")
  func returnsResponse() throws {
    let response = makeResponse(status: 201, body: "created")
    let checked = try response.validate(statusCodes: [201])
    #expect(checked.data == response.data)
    #expect(checked.status == response.status)
  }
}
