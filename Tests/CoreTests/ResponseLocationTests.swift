import Foundation
import HTTPTypes
import MalibuCore
import Testing

@Suite("A response's URL, kept as text until read")
struct ResponseLocationTests {
  @Test func textIsParsedWhenRead() {
    let location = ResponseLocation(text: "https://example.com/a?b=1")
    #expect(location.url == URL(string: "https://example.com/a?b=1"))
    #expect(location.url?.host == "example.com")
  }

  @Test func textThatIsNoURLReadsAsNil() {
    #expect(ResponseLocation(text: "http://[not a host/").url == nil)
    #expect(ResponseLocation(nil).url == nil)
  }

  @Test func aResponseReadsItsLocationAndASetURLReplacesIt() {
    var response = Response(
      data: Data(),
      status: .ok,
      headers: HTTPFields(),
      request: HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: "/a"),
      location: ResponseLocation(text: "https://example.com/final"),
      failureReporter: nil
    )
    #expect(response.url == URL(string: "https://example.com/final"))
    let copy = response
    response.url = URL(string: "https://example.com/other")
    #expect(response.url == URL(string: "https://example.com/other"))
    #expect(copy.url == URL(string: "https://example.com/final"))
    response.url = nil
    #expect(response.url == nil)
  }
}
