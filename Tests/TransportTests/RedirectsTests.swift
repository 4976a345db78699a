import Foundation
import HTTPTypes
import MalibuCore
import MalibuTransport
import Testing

@Suite("Redirect rules")
struct RedirectsTests {
  private func request(_ method: HTTPRequest.Method, _ url: String) -> HTTPRequest {
    var request = HTTPRequest(method: method, url: URL(string: url)!)
    request.headerFields[.authorization] = "Bearer secret"
    request.headerFields[.cookie] = "session=1"
    request.headerFields[.contentType] = "application/json"
    request.headerFields[.accept] = "application/json"
    return request
  }

  private func redirect(_ status: Int, to location: String) -> HTTPResponse {
    var response = HTTPResponse(status: .init(code: status))
    response.headerFields[.location] = location
    return response
  }

  struct MethodCase: Sendable, CustomTestStringConvertible {
    let status: Int
    let method: HTTPRequest.Method
    let nextMethod: HTTPRequest.Method
    let keepsBody: Bool
    var testDescription: String { "\(status) \(method) → \(nextMethod)" }
  }

  static let methods: [MethodCase] = [
    MethodCase(status: 301, method: .get, nextMethod: .get, keepsBody: true),
    MethodCase(status: 301, method: .post, nextMethod: .get, keepsBody: false),
    MethodCase(status: 302, method: .post, nextMethod: .get, keepsBody: false),
    MethodCase(status: 302, method: .put, nextMethod: .put, keepsBody: true),
    MethodCase(status: 303, method: .post, nextMethod: .get, keepsBody: false),
    MethodCase(status: 303, method: .delete, nextMethod: .get, keepsBody: false),
    MethodCase(status: 303, method: .head, nextMethod: .head, keepsBody: true),
    MethodCase(status: 307, method: .post, nextMethod: .post, keepsBody: true),
    MethodCase(status: 308, method: .put, nextMethod: .put, keepsBody: true),
  ]

  @Test(arguments: methods)
  func methodAndBodyRules(_ testCase: MethodCase) throws {
    let body = RequestBody.data(Data("{}".utf8))
    let next = try #require(
      try Redirects.next(
        after: redirect(testCase.status, to: "/next"),
        to: request(testCase.method, "http://127.0.0.1:8080/start"),
        body: body,
        policy: .follow(max: 5),
        followedSoFar: 0
      )
    )
    #expect(next.0.method == testCase.nextMethod)
    #expect((next.1 != nil) == testCase.keepsBody)
    #expect((next.0.headerFields[.contentType] != nil) == testCase.keepsBody)
    #expect(next.0.url?.absoluteString == "http://127.0.0.1:8080/next")
    #expect(next.0.headerFields[.authorization] == "Bearer secret")
  }

  @Test(arguments: [
    "http://localhost:8080/x", "https://127.0.0.1:8080/x", "http://127.0.0.1:9090/x", "http://example.invalid/x",
  ])
  func crossOriginDropsCredentials(_ location: String) throws {
    let next = try #require(
      try Redirects.next(
        after: redirect(302, to: location),
        to: request(.get, "http://127.0.0.1:8080/start"),
        body: nil,
        policy: .follow(max: 5),
        followedSoFar: 0
      )
    )
    #expect(next.0.headerFields[.authorization] == nil)
    #expect(next.0.headerFields[.cookie] == nil)
    #expect(next.0.headerFields[.accept] == "application/json")
  }

  @Test func sameOriginWithExplicitDefaultPortKeepsCredentials() throws {
    let next = try #require(
      try Redirects.next(
        after: redirect(302, to: "http://127.0.0.1:80/x"),
        to: request(.get, "http://127.0.0.1/start"),
        body: nil,
        policy: .follow(max: 5),
        followedSoFar: 0
      )
    )
    #expect(next.0.headerFields[.authorization] == "Bearer secret")
  }

  @Test func maximumIsEnforced() throws {
    #expect {
      try Redirects.next(
        after: redirect(302, to: "/loop"),
        to: request(.get, "http://127.0.0.1/loop"),
        body: nil,
        policy: .follow(max: 3),
        followedSoFar: 3
      )
    } throws: { error in
      (error as? TransportError)?.code == .tooManyRedirects
    }
  }

  @Test func exactlyFiveStatusesAreFollowed() throws {
    let followed = (100...599).filter { Redirects.isFollowed($0) }
    #expect(followed == [301, 302, 303, 307, 308])
    // A status outside the followed set is returned as it is, even with a Location and room for more hops.
    let get = request(.get, "http://127.0.0.1/start")
    for status in [300, 304, 305, 306, 309, 399] {
      let next = try Redirects.next(
        after: redirect(status, to: "/x"),
        to: get,
        body: nil,
        policy: .follow(max: 5),
        followedSoFar: 0
      )
      #expect(next == nil, "status \(status)")
    }
  }

  @Test func notFollowedCases() throws {
    let get = request(.get, "http://127.0.0.1/start")
    #expect(
      try Redirects.next(after: redirect(302, to: "/x"), to: get, body: nil, policy: .none, followedSoFar: 0) == nil
    )
    #expect(
      try Redirects.next(after: redirect(304, to: "/x"), to: get, body: nil, policy: .follow(max: 5), followedSoFar: 0)
        == nil
    )
    #expect(
      try Redirects.next(
        after: HTTPResponse(status: .found),
        to: get,
        body: nil,
        policy: .follow(max: 5),
        followedSoFar: 0
      ) == nil
    )
  }

  @Test(arguments: ["file:///etc/passwd", "ftp://127.0.0.1/x", "http://"])
  func unsupportedTargetsAreErrors(_ location: String) {
    #expect(throws: TransportError.self) {
      try Redirects.next(
        after: redirect(302, to: location),
        to: request(.get, "http://127.0.0.1/start"),
        body: nil,
        policy: .follow(max: 5),
        followedSoFar: 0
      )
    }
  }

  @Test func streamedBodyCannotBeRepeated() {
    let stream = AsyncStream<Data> { $0.finish() }
    #expect {
      try Redirects.next(
        after: redirect(307, to: "/x"),
        to: request(.post, "http://127.0.0.1/start"),
        body: .stream(stream, length: nil),
        policy: .follow(max: 5),
        followedSoFar: 0
      )
    } throws: { error in
      (error as? TransportError)?.code == .invalidRequest
    }
  }
}
