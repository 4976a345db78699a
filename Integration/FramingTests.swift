import Foundation
import HTTPTypes
import MalibuCurl
import MalibuTransport
import MalibuURLSession
import Testing

/// Framing is the transport's alone: a caller's `Content-Length` or `Transfer-Encoding` on a request without a body
/// never reaches nginx, which would otherwise wait for that many body bytes and take the start of the next request
/// on the kept-alive connection as them (that next request, carrying `Authorization`, then got a 400).
@Suite("Framing", .serialized)
struct FramingTests {
  @Test(
    arguments: Backend.allCases,
    [("Content-Length", "24"), ("Transfer-Encoding", "chunked"), ("Connection", "close")]
  )
  func callersFramingCannotDesyncAPooledConnection(_ backend: Backend, framing: (String, String)) async throws {
    // A transport of its own, so both requests share one pooled connection and nothing else uses it.
    let transport: any Transport
    switch backend {
    case .curl: transport = CurlTransport()
    case .urlSession: transport = URLSessionTransport()
    }
    defer {
      if let curl = transport as? CurlTransport { curl.shutdown() }
      if let session = transport as? URLSessionTransport { session.shutdown() }
    }
    let url = try await Servers.nginx("/identity/\(StaticContent.small.name)")
    let options = TransferOptions(timeouts: Timeouts(idle: .seconds(5), total: .seconds(10)))
    for method in [HTTPRequest.Method.get, .head, .delete] {
      var smuggling = HTTPRequest(method: method, url: url)
      smuggling.headerFields[HTTPField.Name(framing.0)!] = framing.1
      let (first, _, _) = try await transport.data(for: smuggling, body: nil, options: options, upTo: 1 << 20)
      // nginx serves static files to GET and HEAD and refuses DELETE with 405; either way, one response.
      #expect(first.status.code == (method == .delete ? 405 : 200), "\(method) with \(framing.0)")

      var next = HTTPRequest(method: .get, url: url)
      next.headerFields[.authorization] = "Bearer next-request"
      let (head, data, _) = try await transport.data(for: next, body: nil, options: options, upTo: 1 << 20)
      #expect(head.status.code == 200, "the request after \(method) with \(framing.0)")
      #expect(data == StaticContent.data(of: StaticContent.small))
    }
  }
}
