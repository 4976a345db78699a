import Foundation
import Malibu
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A custom session configuration means the same on every transport: its additional headers reach the server and its
/// request timeout is the idle timeout, on curl as on URLSession.
@Suite("Facade: session configuration")
struct FacadeSessionConfigurationTests {
  @Test("httpAdditionalHeaders reach the server on every transport", arguments: Backend.allCases)
  func additionalHeadersAreSent(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpAdditionalHeaders = ["X-Session": "from-configuration", "X-Endpoint": "replaced"]
    let networking = Networking<Httpbin>(sessionConfiguration: .custom(configuration), transport: backend.kind)
    networking.headers = ["X-Networking": "n"]
    let echo = try await networking.request(.path("headers")).validate().toJsonDictionary().value
    let headers = try #require(echo["headers"] as? [String: any Sendable])
    #expect(headers["X-Session"] as? String == "from-configuration")
    #expect(headers["X-Networking"] as? String == "n")
    // The endpoint type's own headers win over the configuration's.
    #expect(headers["X-Endpoint"] as? String == "httpbin")
  }

  @Test("timeoutIntervalForRequest is the idle timeout on every transport", arguments: Backend.allCases)
  func requestTimeoutIsTheIdleTimeout(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = 1
    let networking = Networking<Httpbin>(sessionConfiguration: .custom(configuration), transport: backend.kind)
    #expect(networking.transferOptions.timeouts.idle == .seconds(1))
    let start = ContinuousClock.now
    do {
      _ = try await networking.request(.delay(5)).validate().value
      Issue.record("a 5 s silence outlived a 1 s request timeout")
    } catch let error as NetworkError {
      #expect((error.underlyingError as? TransportError)?.code == .idleTimeout, "\(error)")
    }
    #expect(ContinuousClock.now - start < .seconds(4), "failed within the configured 1 s, not after the 5 s delay")
    #expect(try await networking.request(.path("get")).validate().value.statusCode == 200)
  }

  @Test("requestCachePolicy applies to requests that keep the default, on every transport", arguments: Backend.allCases)
  func requestCachePolicyApplies(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let configuration = URLSessionConfiguration.ephemeral
    configuration.requestCachePolicy = .returnCacheDataDontLoad
    let networking = Networking<Httpbin>(sessionConfiguration: .custom(configuration), transport: backend.kind)
    do {
      _ = try await networking.request(.path("get")).value
      Issue.record("a request went to the network under returnCacheDataDontLoad")
    } catch let error as NetworkError {
      #expect((error.underlyingError as? StorageError)?.code == .cacheMiss, "\(error)")
    }
    // A request that chooses its own policy keeps it, and the networking goes on serving.
    let response = try await networking.request(.cache(.reloadIgnoringLocalCacheData)).validate().value
    #expect(response.statusCode == 200)
  }
}
