import Foundation
import HTTPTypes
import MalibuTestSupport
import MalibuTransport
import Testing

@testable import MalibuURLSession

extension URLSessionTransportTests {
  @Suite struct Redirects {
    struct Case: Sendable, CustomStringConvertible {
      var status: Int
      var method: HTTPRequest.Method
      var expectedMethod: HTTPRequest.Method
      var keepsBody: Bool
      var description: String { "\(status) \(method.rawValue) → \(expectedMethod.rawValue)" }
    }

    /// The rules of MalibuTransport's `Redirects`, shared with the curl backend.
    @Test(arguments: [
      Case(status: 301, method: .post, expectedMethod: .get, keepsBody: false),
      Case(status: 302, method: .post, expectedMethod: .get, keepsBody: false),
      Case(status: 301, method: .put, expectedMethod: .put, keepsBody: true),
      Case(status: 302, method: .delete, expectedMethod: .delete, keepsBody: true),
      Case(status: 303, method: .post, expectedMethod: .get, keepsBody: false),
      Case(status: 303, method: .put, expectedMethod: .get, keepsBody: false),
      Case(status: 307, method: .post, expectedMethod: .post, keepsBody: true),
      Case(status: 308, method: .put, expectedMethod: .put, keepsBody: true),
      Case(status: 307, method: .patch, expectedMethod: .patch, keepsBody: true),
    ])
    func methodAndBodyFollowTheSharedRules(_ rule: Case) async throws {
      let fixture = try Fixture()
      let body = Data("the body".utf8)
      let request = fixture.request(
        rule.method,
        "/redirect?status=\(rule.status)&to=/echo",
        headers: [("Content-Type", "text/plain")]
      )
      let response = try await fixture.fetch(request, body: .data(body))
      #expect(response.head.status == .ok)
      #expect(response.url == fixture.server.url("/echo"))
      let final = try #require(fixture.last)
      #expect(final.method == rule.expectedMethod.rawValue)
      #expect(final.body == (rule.keepsBody ? body : Data()))
      #expect(final.value("Content-Type") == (rule.keepsBody ? "text/plain" : nil))
      #expect(fixture.server.requests.count == 2)
      // Exactly what Redirects.next decides.
      let head = HTTPResponse(
        status: .init(code: rule.status),
        headerFields: [.location: "/echo"]
      )
      let decided = try #require(
        try MalibuTransport.Redirects.next(
          after: head,
          to: request,
          body: .data(body),
          policy: .follow(max: 10),
          followedSoFar: 0
        )
      )
      #expect(decided.0.method == rule.expectedMethod)
      #expect((decided.1 != nil) == rule.keepsBody)
    }

    @Test func seeOtherKeepsHead() async throws {
      let fixture = try Fixture()
      let response = try await fixture.fetch(fixture.request(.head, "/redirect?status=303&to=/bytes"))
      #expect(response.head.status == .ok)
      #expect(fixture.last?.method == "HEAD")
    }

    @Test func crossOriginRedirectDropsCredentials() async throws {
      let fixture = try Fixture()
      let target = fixture.server.url("/echo", host: "localhost").absoluteString
      let request = fixture.request(
        .get,
        "/redirect?status=302&to=\(target)",
        headers: [
          ("Authorization", "Bearer secret"), ("Cookie", "session=1"), ("Proxy-Authorization", "Basic eA=="),
          ("X-Other", "kept"),
        ]
      )
      let response = try await fixture.fetch(request)
      #expect(response.url?.host == "localhost")
      let final = try #require(fixture.last)
      #expect(final.value("Host") == "localhost:\(fixture.server.port)")
      #expect(final.value("Authorization") == nil)
      #expect(final.value("Cookie") == nil)
      #expect(final.value("Proxy-Authorization") == nil)
      #expect(final.value("X-Other") == "kept")
      #expect(fixture.server.requests.first?.value("Authorization") == "Bearer secret")
    }

    @Test func sameOriginRedirectKeepsCredentials() async throws {
      let fixture = try Fixture()
      let request = fixture.request(
        .get,
        "/redirect?status=301&to=/echo",
        headers: [("Authorization", "Bearer secret"), ("Cookie", "a=b")]
      )
      _ = try await fixture.fetch(request)
      #expect(fixture.last?.value("Authorization") == "Bearer secret")
      #expect(fixture.last?.value("Cookie") == "a=b")
    }

    /// A field named in `sensitiveFields` is dropped on a redirect to another origin (another server's port) and kept
    /// on one within the origin; names match without case.
    @Test func namedSensitiveFieldsDoNotFollowToAnotherOrigin() async throws {
      let fixture = try Fixture()
      let other = try TestServer()
      defer { other.stop() }
      var options = TransferOptions()
      options.redirects.sensitiveFields = [HTTPField.Name("x-api-key")!]
      let headers = [("X-Api-Key", "key-123"), ("X-Other", "kept")]
      let target = other.url("/echo").absoluteString
      _ = try await fixture.fetch(fixture.request(.get, "/redirect?to=\(target)", headers: headers), options: options)
      #expect(fixture.last?.value("X-Api-Key") == "key-123")
      let crossOrigin = try #require(other.lastRequest)
      #expect(crossOrigin.value("X-Api-Key") == nil)
      #expect(crossOrigin.value("X-Other") == "kept")

      _ = try await fixture.fetch(fixture.request(.get, "/redirect?to=/echo", headers: headers), options: options)
      let sameOrigin = try #require(fixture.last)
      #expect(sameOrigin.path == "/echo")
      #expect(sameOrigin.value("X-Api-Key") == "key-123")

      // Without naming it, the field follows (only the credential fields are dropped by default).
      _ = try await fixture.fetch(fixture.request(.get, "/redirect?to=\(target)", headers: headers))
      #expect(other.requests.count == 2)
      #expect(other.lastRequest?.value("X-Api-Key") == "key-123")
    }

    @Test func chainUpToTheMaximumIsFollowed() async throws {
      let fixture = try Fixture()
      var options = TransferOptions()
      options.redirects = .follow(max: 3)
      let response = try await fixture.fetch(fixture.request(.get, "/chain/3"), options: options)
      #expect(response.body == Data("done".utf8))
      #expect(response.url == fixture.server.url("/chain/0"))
      let error = await transportError {
        _ = try await fixture.fetch(fixture.request(.get, "/chain/4"), options: options)
      }
      #expect(error?.code == .tooManyRedirects)
    }

    @Test func loopEndsAsTooManyRedirects() async throws {
      let fixture = try Fixture()
      let error = await transportError { _ = try await fixture.fetch(fixture.request(.get, "/loop")) }
      #expect(error?.code == .tooManyRedirects)
      #expect(fixture.server.requests.count == 11)
      #expect(try await fixture.fetch(fixture.request(.get, "/bytes?size=3")).body == pattern(3))
    }

    @Test func noFollowReturnsTheRedirectItself() async throws {
      let fixture = try Fixture()
      var options = TransferOptions()
      options.redirects = .none
      let response = try await fixture.fetch(fixture.request(.get, "/redirect?status=302&to=/echo"), options: options)
      #expect(response.head.status.code == 302)
      #expect(response.head.headerFields[.location] == "/echo")
      #expect(response.body == Data("redirecting".utf8))
      #expect(fixture.server.requests.count == 1)
    }

    @Test func redirectThatMustRepeatAStreamIsInvalid() async throws {
      let fixture = try Fixture()
      let stream = chunks(of: pattern(100), size: 10)
      let error = await transportError {
        _ = try await fixture.fetch(
          fixture.request(.post, "/redirect?status=307&to=/echo"),
          body: .stream(stream, length: nil)
        )
      }
      #expect(error?.code == .invalidRequest)
    }

    @Test func redirectToAnotherSchemeIsInvalid() async throws {
      let fixture = try Fixture()
      let error = await transportError {
        _ = try await fixture.fetch(fixture.request(.get, "/redirect?status=302&to=ftp://127.0.0.1/x"))
      }
      #expect(error?.code == .invalidRequest)
    }

    @Test func totalTimeoutSpansEveryHop() async throws {
      let fixture = try Fixture()
      let error = await transportError {
        _ = try await fixture.fetch(
          fixture.request(.get, "/redirect?status=302&to=/stall-head"),
          options: timeouts(total: .milliseconds(400))
        )
      }
      #expect(error?.code == .totalTimeout)
    }
  }
}
