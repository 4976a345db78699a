import Foundation
import HTTPTypes
import MalibuTransport
import Testing

/// Redirects, followed by the shared rules on every transport.
@Suite("Redirects", .serialized)
struct RedirectScenarioTests {
  @Test(arguments: Backend.allCases, ["/redirect/3", "/relative-redirect/3", "/absolute-redirect/3"])
  func chainsEndAtTheTarget(_ backend: Backend, _ path: String) async throws {
    let exchange = try await backend.exchange(Servers.httpbin(path))
    #expect(exchange.status == 200)
    #expect(exchange.url?.path == "/get")
  }

  struct StatusCase: Sendable, CustomTestStringConvertible {
    let status: Int
    let method: HTTPRequest.Method
    let expectedMethod: String
    let keepsBody: Bool
    var testDescription: String { "\(status) \(method)" }
  }

  static let statuses: [StatusCase] = [
    StatusCase(status: 301, method: .post, expectedMethod: "GET", keepsBody: false),
    StatusCase(status: 302, method: .post, expectedMethod: "GET", keepsBody: false),
    StatusCase(status: 303, method: .put, expectedMethod: "GET", keepsBody: false),
    StatusCase(status: 307, method: .post, expectedMethod: "POST", keepsBody: true),
    StatusCase(status: 308, method: .put, expectedMethod: "PUT", keepsBody: true),
  ]

  @Test(arguments: Backend.allCases, statuses)
  func methodAndBodyFollowTheStatus(_ backend: Backend, _ testCase: StatusCase) async throws {
    let url = try await Servers.httpbin("/redirect-to?url=/anything&status_code=\(testCase.status)")
    let exchange = try await backend.exchange(
      testCase.method,
      url,
      headers: ["Content-Type": "text/plain"],
      body: .data(Data("board".utf8))
    )
    let json = try exchange.json()
    #expect(json["method"] as? String == testCase.expectedMethod)
    #expect(json["data"] as? String == (testCase.keepsBody ? "board" : ""))
  }

  @Test(arguments: Backend.allCases)
  func maximumRedirectsIsAnError(_ backend: Backend) async throws {
    var options = TransferOptions()
    options.redirects = .follow(max: 3)
    await expectTransportError(.tooManyRedirects) {
      try await backend.exchange(Servers.httpbin("/redirect/5"), options: options)
    }
    #expect(try await backend.exchange(Servers.httpbin("/redirect/3"), options: options).status == 200)
  }

  @Test(arguments: Backend.allCases)
  func loopIsAnError(_ backend: Backend) async throws {
    await expectTransportError(.tooManyRedirects) { try await backend.exchange(Servers.nginx("/loop")) }
    #expect(try await backend.exchange(Servers.nginx("/health")).status == 200)
  }

  @Test(arguments: Backend.allCases)
  func notFollowingReturnsTheRedirect(_ backend: Backend) async throws {
    var options = TransferOptions()
    options.redirects = .none
    let exchange = try await backend.exchange(Servers.httpbin("/redirect/1"), options: options)
    #expect(exchange.status == 302)
    #expect(exchange.head.headerFields[.location] != nil)
  }

  @Test(arguments: Backend.allCases)
  func crossOriginRedirectDropsCredentials(_ backend: Backend) async throws {
    let base = try await LocalServers.shared.httpbin()
    let port = try #require(base.port)
    let target = "http://localhost:\(port)/headers".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    let exchange = try await backend.exchange(
      Servers.httpbin("/redirect-to?url=\(target)"),
      headers: ["Authorization": "Bearer secret", "Cookie": "session=1", "X-Kept": "yes"]
    )
    let headers = try #require(try exchange.json()["headers"] as? [String: String])
    #expect(exchange.url?.host == "localhost")
    #expect(headers["Authorization"] == nil)
    #expect(headers["Cookie"] == nil)
    #expect(headers["X-Kept"] == "yes")
  }

  @Test(arguments: Backend.allCases)
  func sameOriginRedirectKeepsCredentials(_ backend: Backend) async throws {
    let exchange = try await backend.exchange(
      Servers.httpbin("/redirect-to?url=/headers"),
      headers: ["Authorization": "Bearer secret"]
    )
    let headers = try #require(try exchange.json()["headers"] as? [String: String])
    #expect(headers["Authorization"] == "Bearer secret")
  }
}
