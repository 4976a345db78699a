import Foundation
import HTTPTypes
import MalibuCore
import MalibuSerialization
import Testing

/// Each serializer, run on a response and reduced to what the empty-body rule is about.
enum Serializer: String, CaseIterable, Sendable {
  case data
  case string
  case jsonArray
  case jsonDictionary
  case decodeModel
  case decodeEmptyResponse
  case decodeOptional

  enum Outcome: Equatable {
    case emptyValue
    case nonEmptyValue
    case error(NetworkError.Code)
  }

  func run(on response: Response) -> Outcome {
    do throws(NetworkError) {
      switch self {
      case .data: return response.toData().isEmpty ? .emptyValue : .nonEmptyValue
      case .string: return try response.toString().isEmpty ? .emptyValue : .nonEmptyValue
      case .jsonArray: return try response.toJsonArray().isEmpty ? .emptyValue : .nonEmptyValue
      case .jsonDictionary: return try response.toJsonDictionary().isEmpty ? .emptyValue : .nonEmptyValue
      case .decodeModel:
        _ = try response.decode(Board.self)
        return .nonEmptyValue
      case .decodeEmptyResponse:
        return try response.decode(EmptyResponse.self) == EmptyResponse() ? .emptyValue : .nonEmptyValue
      case .decodeOptional: return try response.decode(Board?.self) == nil ? .emptyValue : .nonEmptyValue
      }
    } catch {
      return .error(error.code)
    }
  }
}

/// A response that has no body by definition: status and method, and what the body holds anyway.
struct BodylessCase: Sendable, CustomTestStringConvertible {
  var status: Int
  var method: HTTPRequest.Method
  var body: String

  var testDescription: String { "\(method) → \(status) with \(body.isEmpty ? "no body" : "body \(body)")" }
}

struct EmptyBodyTests {
  static let bodyless: [BodylessCase] = [
    BodylessCase(status: 204, method: .get, body: ""),
    BodylessCase(status: 205, method: .post, body: ""),
    BodylessCase(status: 200, method: .head, body: ""),
    BodylessCase(status: 404, method: .head, body: ""),
    BodylessCase(status: 204, method: .delete, body: #"{"stray": "bytes"}"#),
    BodylessCase(status: 200, method: .head, body: "[1]"),
  ]

  @Test("204, 205 and HEAD give an empty value from every serializer", arguments: bodyless, Serializer.allCases)
  func bodylessResponses(testCase: BodylessCase, serializer: Serializer) {
    let response = makeResponse(text: testCase.body, status: testCase.status, method: testCase.method)
    #expect(response.hasEmptyBodyByDefinition)
    let expected: Serializer.Outcome = serializer == .decodeModel ? .error(.emptyResponse) : .emptyValue
    #expect(serializer.run(on: response) == expected)
  }

  @Test(
    "Any other status with an empty body: empty Data and String, emptyResponse for JSON and Decodable",
    arguments: [200, 201, 304, 404, 500],
    Serializer.allCases
  )
  func emptyBodies(status: Int, serializer: Serializer) {
    let response = makeResponse([], status: status, contentType: "application/json")
    #expect(!response.hasEmptyBodyByDefinition)
    let expected: Serializer.Outcome =
      serializer == .data || serializer == .string ? .emptyValue : .error(.emptyResponse)
    #expect(serializer.run(on: response) == expected)
  }

  @Test("The same serializers read a non-empty body at 200", arguments: Serializer.allCases)
  func nonEmptyBody(serializer: Serializer) {
    let response = makeResponse(text: #"{"id": 1, "title": "a"}"#)
    let expected: Serializer.Outcome
    switch serializer {
    case .jsonArray: expected = .error(.unexpectedJSONShape)
    case .decodeEmptyResponse: expected = .emptyValue
    default: expected = .nonEmptyValue
    }
    #expect(serializer.run(on: response) == expected)
  }

  @Test("The emptyResponse error for a bodyless response carries it")
  func errorCarriesResponse() {
    let response = makeResponse(text: "", status: 204)
    let error = expectNetworkError(.emptyResponse, response: response) { () throws(NetworkError) in
      try response.decode(Board.self)
    }
    #expect(error?.message.contains("EmptyResponse") == true)
    #expect(error?.response?.request.method == .get)
  }

  @Test(
    "hasEmptyBodyByDefinition: 204, 205 and HEAD only",
    arguments: [
      (200, HTTPRequest.Method.get, false), (204, .get, true), (205, .put, true), (206, .get, false),
      (304, .get, false), (200, .head, true), (500, .head, true), (200, .options, false),
    ]
  )
  func rule(status: Int, method: HTTPRequest.Method, expected: Bool) {
    #expect(makeResponse([], status: status, method: method).hasEmptyBodyByDefinition == expected)
  }
}
