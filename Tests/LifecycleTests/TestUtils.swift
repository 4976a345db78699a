#if Lifecycle
import Foundation
import Malibu
import MalibuTestSupport
import Testing

/// The lifecycle tests one after the other: they shut transports down while transfers run, on two shared cores.
@Suite(.serialized) struct LifecycleTests {}

/// Endpoints by absolute URL, for a `Networking` talking to a `TestServer`.
enum TestEndpoint: RequestConvertible {
  case get(URL)

  static let baseUrl: (any URLStringConvertible)? = nil
  static let headers: [String: String] = [:]

  var request: Request {
    switch self {
    case .get(let url): return .get(url.absoluteString)
    }
  }
}

/// Waits until the server has received a request for `path`, for at most a few seconds.
func waitForRequest(
  to path: String,
  on server: TestServer,
  sourceLocation: SourceLocation = #_sourceLocation
)
  async throws
{
  for _ in 0..<500 where !server.requests.contains(where: { $0.path == path }) {
    try await Task.sleep(for: .milliseconds(10))
  }
  try #require(server.requests.contains { $0.path == path }, "no request for \(path)", sourceLocation: sourceLocation)
}

/// Waits until the server has no open connection (the client closed every one), for at most a few seconds.
func expectNoConnectionLeft(on server: TestServer, sourceLocation: SourceLocation = #_sourceLocation) async throws {
  await server.waitForIdle()
  for _ in 0..<300 where server.openConnections > 0 {
    try await Task.sleep(for: .milliseconds(10))
  }
  #expect(server.openConnections == 0, sourceLocation: sourceLocation)
}

/// The `TransportError` code of what `body` throws (also inside a `NetworkError`), or `nil` when it succeeds.
func failureCode(_ body: () async throws -> Void) async -> String? {
  do {
    try await body()
    return nil
  } catch let error as NetworkError {
    if error.code == .transportFailed, let cause = error.underlyingError as? TransportError { return "\(cause.code)" }
    return "\(error.code)"
  } catch let error as TransportError {
    return "\(error.code)"
  } catch {
    return "\(type(of: error))"
  }
}
#endif
