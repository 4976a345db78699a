import Foundation
import HTTPTypes
import MalibuCore
import MalibuSerialization
import Testing

/// Decoding failures say what the response was: status, content type, a bounded preview of the body, and on a
/// status outside 2xx, that `validate()` would have failed on the status first.
@Suite("Decoding failure messages")
struct FailureContextTests {
  static let validateHint =
    ". A 404 status is not an error until you call validate(): call it before decoding (`.validate().decode(…)`) "
    + "to fail with unacceptableStatusCode instead"

  @Test func aDecodeFailureOnA404SuggestsValidate() throws {
    let response = makeResponse(text: "<h1>Not Found</h1>", status: 404, contentType: "text/html")
    let error = expectNetworkError(.decodingFailed, response: response) { () throws(NetworkError) in
      try response.decode([Board].self)
    }
    #expect(
      error?.message == "could not decode Array<Board> from the body: corrupted data at $ (the top level): The "
        + "given data was not valid JSON. Unexpected character '<' where a value was expected at byte 0.; the "
        + "response has status 404, Content-Type 'text/html' and a body of 18 "
        + "bytes: \"<h1>Not Found</h1>\"" + Self.validateHint,
      "\(error?.message ?? "")"
    )
    // A 2xx body of the right shape still decodes, and says nothing about validate() when it does not.
    let good = makeResponse(text: #"[{"id":1,"title":"Balsa"}]"#)
    #expect(try good.decode([Board].self) == [Board(id: 1, title: "Balsa")])
    let wrong = makeResponse(text: #"{"id":1}"#)
    let shape = expectNetworkError(.decodingFailed, response: wrong) { () throws(NetworkError) in
      try wrong.decode([Board].self)
    }
    #expect(shape?.message.contains("validate()") == false)
  }

  @Test func anEmptyBodyOnA404SuggestsValidate() {
    let response = makeResponse(text: "", status: 404)
    let error = expectNetworkError(.emptyResponse, response: response) { () throws(NetworkError) in
      try response.decode(Board.self)
    }
    #expect(error?.message == "the body is empty where Board was expected (status 404)" + Self.validateHint)
    let json = expectNetworkError(.emptyResponse, response: response) { () throws(NetworkError) in
      try response.toJsonDictionary()
    }
    #expect(json?.message == "the body is empty where JSON was expected (status 404)" + Self.validateHint)
  }

  @Test func aJSONFailureShowsTheContentTypeAndTheFirst200Bytes() {
    let body = "<html>" + String(repeating: "~", count: 300) + "</html>"
    var response = makeResponse(text: body, status: 200, contentType: "text/html; charset=utf-8")
    // A request header's value never reaches the message.
    var request = response.request
    request.headerFields[.authorization] = "Bearer secret-token-value"
    response = Response(data: response.data, status: response.status, headers: response.headers, request: request)

    let error = expectNetworkError(.jsonSerializationFailed, response: response) { () throws(NetworkError) in
      try response.toJsonDictionary()
    }
    let message = error?.message ?? ""
    let preview = String(body.prefix(200))
    #expect(
      message.hasSuffix(
        "; the response has status 200, Content-Type 'text/html; charset=utf-8' and a body of 313 bytes, the first "
          + "200 of them: \"\(preview)\"…"
      ),
      "\(message)"
    )
    #expect(message.filter { $0 == "~" }.count == 200 - "<html>".count, "only the first 200 bytes are quoted")
    #expect(!message.contains("secret-token-value") && !message.contains("Authorization"))
    #expect(!message.contains("validate()"))
    #expect(error?.description.contains("secret-token-value") == false)
  }

  @Test func anUnexpectedShapeShowsTheBody() {
    let response = makeResponse(text: "[1,\n2]", status: 500, contentType: "application/json")
    let error = expectNetworkError(.unexpectedJSONShape, response: response) { () throws(NetworkError) in
      try response.toJsonDictionary()
    }
    #expect(
      error?.message == "expected the JSON body to be an object, but it is an array; the response has status 500, "
        + "Content-Type 'application/json' and a body of 6 bytes: \"[1,\\n2]\". A 500 status is not an error until you "
        + "call validate(): call it before decoding (`.validate().decode(…)`) to fail with unacceptableStatusCode "
        + "instead"
    )
  }

  @Test func noContentTypeIsSaid() {
    let response = makeResponse(text: "nope", status: 200, contentType: nil)
    let error = expectNetworkError(.jsonSerializationFailed, response: response) { () throws(NetworkError) in
      try response.toJsonArray()
    }
    #expect(
      error?.message.hasSuffix("; the response has status 200, no Content-Type and a body of 4 bytes: \"nope\"")
        == true,
      "\(error?.message ?? "")"
    )
  }
}
