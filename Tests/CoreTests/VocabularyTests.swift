import Foundation
import HTTPTypes
import MalibuCore
import Testing

@Suite("Vocabulary")
struct VocabularyTests {
  @Test(
    arguments: [
      (ContentType.query, nil),
      (.formURLEncoded, "application/x-www-form-urlencoded"),
      (.json, "application/json"),
      (.multipartFormData, "multipart/form-data"),
      (.custom("application/xml"), "application/xml"),
    ] as [(ContentType, String?)]
  )
  func contentTypeHeaders(_ contentType: ContentType, _ header: String?) {
    #expect(contentType.headerValue == header)
    #expect(contentType.encodesInURL == (contentType == .query))
  }

  @Test func customContentTypesCompareByValue() {
    #expect(ContentType.custom("application/xml") == .custom("application/xml"))
    #expect(ContentType.custom("application/xml") != .custom("text/xml"))
    #expect(ContentType.custom("application/json") != .json)
    #expect(ContentType.custom("a/b").isCustom)
    #expect(!ContentType.json.isCustom)
  }

  @Test func networkErrorDescribesItself() {
    struct Cause: Error {}
    let response = Response(
      data: Data("nope".utf8),
      status: .notFound,
      headers: [:],
      request: HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1", path: "/")
    )
    let error = NetworkError(
      code: .unacceptableStatusCode,
      message: "status 404 is not accepted",
      response: response,
      underlyingError: Cause()
    )
    #expect(error.description.contains("unacceptableStatusCode"))
    #expect(error.description.contains("404"))
    #expect(error.response?.statusCode == 404)
    #expect(error.underlyingError is Cause)
    #expect(NetworkError.Code.cancelled != .transportFailed)
  }

  @Test func responseExposesItsHead() {
    var headers = HTTPFields()
    headers[.contentType] = "text/plain"
    let response = Response(
      data: Data(),
      status: .created,
      headers: headers,
      request: HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1", path: "/boards"),
      url: URL(string: "http://127.0.0.1/boards")
    )
    #expect(response.statusCode == 201)
    #expect(response.httpResponse.headerFields[.contentType] == "text/plain")
    #expect(response.httpResponse.status == .created)
  }
}
