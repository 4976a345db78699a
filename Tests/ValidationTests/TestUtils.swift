import Foundation
import HTTPTypes
import MalibuCore
import MalibuValidation
import Testing

/// What a validation should end with.
enum Outcome: Sendable, CustomStringConvertible {
  case pass
  case fail(NetworkError.Code)

  var description: String {
    switch self {
    case .pass: return "pass"
    case .fail(let code): return "fail(\(code))"
    }
  }
}

/// A response as a transport would hand it over.
/// - Parameters:
///   - status: The status code.
///   - contentType: The `Content-Type` values, none for no field.
///   - body: The body text.
///   - accept: The request's `Accept` values, none for no field.
///   - method: The request method.
func makeResponse(
  status: Int = 200,
  contentType: [String] = [],
  body: String = "",
  accept: [String] = [],
  method: HTTPRequest.Method = .get
) -> Response {
  var requestFields = HTTPFields()
  for value in accept { requestFields.append(HTTPField(name: .accept, value: value)) }
  var responseFields = HTTPFields()
  for value in contentType { responseFields.append(HTTPField(name: .contentType, value: value)) }
  let request = HTTPRequest(
    method: method,
    scheme: "http",
    authority: "127.0.0.1:8080",
    path: "/boards",
    headerFields: requestFields
  )
  return Response(
    data: Data(body.utf8),
    status: HTTPResponse.Status(code: status),
    headers: responseFields,
    request: request
  )
}

/// Runs a validation and checks it ends as expected; a failure must be a `NetworkError` of the expected code that
/// carries the original response with its body readable.
/// - Returns: The error, when one was expected and thrown.
@discardableResult
func expect(
  _ outcome: Outcome,
  for response: Response,
  sourceLocation: SourceLocation = #_sourceLocation,
  _ validate: (Response) throws -> Void
) -> NetworkError? {
  switch outcome {
  case .pass:
    #expect(throws: Never.self, sourceLocation: sourceLocation) { try validate(response) }
    return nil
  case .fail(let code):
    let error = #expect(throws: NetworkError.self, sourceLocation: sourceLocation) { try validate(response) }
    guard let error else { return nil }
    #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    #expect(error.response?.data == response.data, sourceLocation: sourceLocation)
    #expect(error.response?.statusCode == response.statusCode, sourceLocation: sourceLocation)
    #expect(error.response?.headers == response.headers, sourceLocation: sourceLocation)
    #expect(!error.message.isEmpty, sourceLocation: sourceLocation)
    return error
  }
}
