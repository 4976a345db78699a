import Foundation
import Malibu
import MalibuTestSupport
import Testing

/// `networking.transferOptions.retry` through a networking whose transport retries (the README's transport-alone
/// form handed to the facade), against the scripted test server, which counts what reaches it.
@Suite("Facade: retries", .serialized)
struct FacadeRetryTests {
  private func networking(_ backend: Backend) -> Networking<HttpbinProbe> {
    let networking = Networking<HttpbinProbe>(
      transport: .custom(backend.transport.with(middleware: [RetryMiddleware()]))
    )
    networking.transferOptions.retry = RetryPolicy(baseDelay: .milliseconds(20), maxDelay: .milliseconds(100))
    return networking
  }

  private func flakyCount(_ server: TestServer) -> Int {
    server.requests.filter { $0.path == "/flaky" }.count
  }

  @Test(arguments: Backend.allCases)
  func a503WithRetryAfterZeroIsRetriedThroughTheFacade(_ backend: Backend) async throws {
    let server = try TestServer()
    let networking = networking(backend)
    let probe = HttpbinProbe(.get(server.url("/flaky?fail=2&retry-after=0").absoluteString))
    let response = try await networking.request(probe).validate().value
    #expect(response.statusCode == 200)
    #expect(String(decoding: response.data, as: UTF8.self) == "ok")
    #expect(flakyCount(server) == 3)
  }

  @Test(arguments: Backend.allCases)
  func aPostThroughTheFacadeIsSentOnce(_ backend: Backend) async throws {
    let server = try TestServer()
    let networking = networking(backend)
    let probe = HttpbinProbe(
      .post(server.url("/flaky?fail=1&retry-after=0").absoluteString, parameters: ["title": "Balsa Fish"])
    )
    let response = try await networking.request(probe).value
    #expect(response.statusCode == 503)
    #expect(flakyCount(server) == 1)
    let again = try await networking.request(HttpbinProbe(.get(server.url("/status/200").absoluteString))).value
    #expect(again.statusCode == 200)
  }
}
