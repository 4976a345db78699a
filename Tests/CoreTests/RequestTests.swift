import Foundation
import HTTPTypes
import MalibuCore
import MalibuTestSupport
import Testing

@Suite("Request")
struct RequestTests {
  enum Bare: RequestConvertible {
    case ping
    static let baseUrl: (any URLStringConvertible)? = nil
    var request: Request { .get("http://127.0.0.1/ping") }
  }

  @Test func endpointEnum() throws {
    #expect(SharkywatersEndpoint.createBoard(type: 1, title: "Balsa").request.method == .post)
    #expect(SharkywatersEndpoint.createBoard(type: 1, title: "Balsa").request.contentType == .json)
    let url = try SharkywatersEndpoint.showBoard(id: 7).request.buildURL(baseUrl: SharkywatersEndpoint.baseUrl)
    #expect(url.absoluteString == "http://127.0.0.1:8080/api/boards/7")
    #expect(SharkywatersEndpoint.headers["Accept"] == "application/json")
    #expect(Bare.baseUrl == nil)
    #expect(Bare.headers.isEmpty)
  }

  struct FactoryCase: Sendable, CustomTestStringConvertible {
    let name: String
    let request: Request
    let method: HTTPRequest.Method
    let contentType: ContentType
    var testDescription: String { name }
  }

  static let factories: [FactoryCase] = [
    FactoryCase(name: "get", request: .get("a"), method: .get, contentType: .query),
    FactoryCase(name: "post", request: .post("a"), method: .post, contentType: .json),
    FactoryCase(name: "put", request: .put("a"), method: .put, contentType: .json),
    FactoryCase(name: "patch", request: .patch("a"), method: .patch, contentType: .json),
    FactoryCase(name: "delete", request: .delete("a"), method: .delete, contentType: .query),
    FactoryCase(name: "head", request: .head("a"), method: .head, contentType: .query),
    FactoryCase(
      name: "post form",
      request: .post("a", contentType: .formURLEncoded),
      method: .post,
      contentType: .formURLEncoded
    ),
    FactoryCase(
      name: "upload data",
      request: .upload(data: Data("raw".utf8), to: "a"),
      method: .post,
      contentType: .custom("application/octet-stream")
    ),
    FactoryCase(
      name: "upload multipart",
      request: .upload(multipartParameters: ["key": "value"], to: "a"),
      method: .post,
      contentType: .multipartFormData
    ),
  ]

  @Test(arguments: factories)
  func factoryDefaults(_ testCase: FactoryCase) {
    #expect(testCase.request.method == testCase.method)
    #expect(testCase.request.contentType == testCase.contentType)
    #expect(testCase.request.storePolicy == .unspecified)
  }

  @Test func uploadTasks() {
    #expect(Request.upload(data: Data("raw".utf8), to: "a").task == .uploadData(Data("raw".utf8)))
    #expect(Request.upload(multipartParameters: ["k": "v"], to: "a").task == .uploadMultipart)
    let file = URL(fileURLWithPath: "/tmp/x.bin")
    #expect(Request.upload(fileAt: file, to: "a").task == .uploadFile(file))
    #expect(Request.get("a").task == .data)
  }

  @Test func fullInitializer() {
    let request = Request(
      method: .get,
      resource: "boards",
      contentType: .query,
      parameters: ["type": 1, "text": "classic"],
      headers: ["custom": "header"],
      storePolicy: .unspecified,
      cachePolicy: .useProtocolCachePolicy
    )
    #expect(request.resource.urlString == "boards")
    #expect(request.headers == ["custom": "header"])
    #expect(request.cachePolicy == .useProtocolCachePolicy)
  }

  @Test func addingMergesWithAddedValuesWinning() {
    let request = Request.get("a", parameters: ["userId": "1", "keep": 2], headers: ["token": "old", "x": "y"])
      .adding(parameters: ["userId": "12345"], headers: ["token": "abc"])
    #expect(
      request == Request.get("a", parameters: ["userId": "12345", "keep": 2], headers: ["token": "abc", "x": "y"])
    )
  }

  static let differingPairs: [(Request, Request)] = [
    (.get("a"), .get("b")),
    (.get("a"), .delete("a")),
    (.post("a"), .post("a", contentType: .formURLEncoded)),
    (.get("a", parameters: ["x": 1]), .get("a", parameters: ["x": 2])),
    (.get("a", parameters: ["x": 1]), .get("a", parameters: ["x": "1"])),
    (.get("a", headers: ["h": "1"]), .get("a", headers: ["h": "2"])),
    (.get("a", storePolicy: .offline), .get("a")),
    (.get("a", cachePolicy: .reloadIgnoringLocalCacheData), .get("a")),
    (.upload(data: Data([1]), to: "a"), .upload(data: Data([2]), to: "a")),
  ]

  @Test(arguments: differingPairs)
  func equalityCoversEveryField(_ lhs: Request, _ rhs: Request) {
    #expect(lhs != rhs)
    #expect(lhs == lhs)
  }

  @Test func equalRequestsHashAlike() {
    let lhs = Request.post("a", parameters: ["n": [1, 2], "d": ["k": true]])
    let rhs = Request.post("a", parameters: ["d": ["k": true], "n": [1, 2]])
    #expect(lhs == rhs)
    #expect(Set([lhs, rhs]).count == 1)
    #expect(Request.get("a") == Request.get(URL(string: "a")!))
  }
}
