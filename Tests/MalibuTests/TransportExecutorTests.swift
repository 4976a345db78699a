import Foundation
import Malibu
import MalibuTestSupport
import Testing

/// An endpoint at an absolute URL, past the cache.
private struct Absolute: RequestConvertible {
  static let baseUrl: (any URLStringConvertible)? = nil
  let url: String

  var request: Request {
    .get(url, cachePolicy: .reloadIgnoringLocalCacheData)
  }
}

/// The name of the calling thread (`malibu-curl` on a CurlTransport's loop).
private func threadName() -> String {
  let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
  return name.trimmingCharacters(in: .whitespacesAndNewlines)
}

/// `Transport.taskExecutor` through the facade: a request started by a task that runs on the transport's thread
/// keeps that thread for the whole exchange, handlers included.
@Suite struct TransportExecutorTests {
  @Test func aRequestStartedOnTheTransportsThreadStaysThere() async throws {
    let server = try TestServer(echo: .body)
    let transport = CurlTransport()
    defer {
      transport.shutdown()
      server.stop()
    }
    let networking = Networking<Absolute>(transport: .custom(transport))
    let endpoint = Absolute(url: server.url("/bytes?size=100").absoluteString)

    func exchange() async throws -> (data: Data, handler: String, caller: String) {
      let handler = Box("")
      let data = try await networking.request(endpoint)
        .validate()
        .then { response in
          handler.update { $0 = threadName() }
          return response
        }
        .toData()
        .value
      return (data, handler.value, threadName())
    }

    let onLoop = try await withTaskExecutorPreference(transport.taskExecutor) {
      try await (0..<3).asyncMap { _ in try await exchange() }
    }
    for result in onLoop {
      #expect(result.data == pattern(100))
      #expect(result.handler == "malibu-curl")
      #expect(result.caller == "malibu-curl")
    }
    // Without the preference nothing changes: the request's task leaves the loop thread once the response is in.
    let elsewhere = try await exchange()
    #expect(elsewhere.data == pattern(100))
    #expect(elsewhere.handler != "malibu-curl")
    #expect(elsewhere.caller != "malibu-curl")
  }

  @Test func transportsWithoutAThreadOfTheirOwnOfferNone() {
    #expect(MockTransport().taskExecutor == nil)
    #expect(CurlTransport().taskExecutor != nil)
    #expect(MockTransport().with(middleware: []).taskExecutor == nil)
    let curl = CurlTransport()
    let wrapped = curl.with(middleware: [])
    #expect(wrapped.taskExecutor?.asUnownedTaskExecutor() == curl.taskExecutor?.asUnownedTaskExecutor())
  }
}

extension Sequence {
  fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
    var results: [T] = []
    for element in self { results.append(try await transform(element)) }
    return results
  }
}
