import Foundation
import Malibu
import MalibuTestSupport
import Testing

/// An endpoint at an absolute URL, past the cache.
private struct Redirecting: RequestConvertible {
  static let baseUrl: (any URLStringConvertible)? = nil
  let url: String

  var request: Request {
    .get(url, cachePolicy: .reloadIgnoringLocalCacheData)
  }
}

/// A networking names its own sensitive fields, which never follow a redirect to another origin, on every transport.
@Suite struct RedirectHeadersTests {
  @Test(arguments: ["curl", "urlSession"])
  func sensitiveFieldsNamedPerNetworkingStayWithTheirOrigin(transportName: String) async throws {
    let server = try TestServer(echo: .body)
    let other = try TestServer(echo: .body)
    let transport: any Transport = transportName == "curl" ? CurlTransport() : URLSessionTransport()
    defer {
      (transport as? CurlTransport)?.shutdown()
      (transport as? URLSessionTransport)?.shutdown()
      server.stop()
      other.stop()
    }
    let networking = Networking<Redirecting>(transport: .custom(transport))
    networking.headers = ["X-Api-Key": "key-123", "X-Other": "kept"]
    networking.transferOptions.redirects.sensitiveFields = [HTTPField.Name("X-Api-Key")!]

    let target = other.url("/echo").absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    _ = try await networking.request(Redirecting(url: server.url("/redirect?to=\(target)").absoluteString)).value
    #expect(server.lastRequest?.value("X-Api-Key") == "key-123")
    let crossOrigin = try #require(other.lastRequest)
    #expect(crossOrigin.value("X-Api-Key") == nil)
    #expect(crossOrigin.value("X-Other") == "kept")

    _ = try await networking.request(Redirecting(url: server.url("/redirect?to=%2Fecho").absoluteString)).value
    let sameOrigin = try #require(server.lastRequest)
    #expect(sameOrigin.path == "/echo")
    #expect(sameOrigin.value("X-Api-Key") == "key-123")
  }
}
