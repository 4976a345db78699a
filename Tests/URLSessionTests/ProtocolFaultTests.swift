import Foundation
import HTTPTypes
import MalibuTestSupport
import MalibuTransport
import Testing

@testable import MalibuURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransportTests {
  /// Answers that break HTTP, interim heads, and a request whose kept-alive connection is reset.
  @Suite struct ProtocolFaults {
    @Test(arguments: ["/garbage-status", "/not-http", "/bad-content-length", "/bad-chunked"])
    func answerThatIsNotHTTPIsProtocolError(path: String) async throws {
      let fixture = try Fixture()
      let error = await transportError { _ = try await fixture.fetch(fixture.request(.get, path)) }
      #expect(error?.code == .protocolError)
      #expect(try await fixture.fetch(fixture.request(.get, "/bytes?size=8")).body == pattern(8))
    }

    @Test(arguments: [("/continue", "after hints"), ("/continue-100", "after continue")])
    func interimHeadsAreSkipped(path: String, body: String) async throws {
      let fixture = try Fixture()
      let (head, data, _) = try await fixture.fetch(fixture.request(.get, path))
      #expect(head.status.code == 200)
      #expect(head.headerFields[HTTPField.Name("Link")!] == nil)
      #expect(String(decoding: data, as: UTF8.self) == body)

      let response = try await fixture.transport.send(fixture.request(.get, path), body: nil, options: .init())
      #expect(response.head.status.code == 200)
      #expect(String(decoding: try await response.body.collect(upTo: 100), as: UTF8.self) == body)
      #expect(try await fixture.fetch(fixture.request(.get, "/bytes?size=8")).body == pattern(8))
    }

    enum BodyKind: String, CaseIterable, Sendable {
      case data, largeData, file, unknownLength
    }

    /// A POST sent on a kept-alive connection that the server resets without answering is sent again on a new
    /// connection, with its body, as libcurl does (and CurlTransport): no wait for the idle timeout.
    @Test(arguments: BodyKind.allCases)
    func postOnResetReusedConnectionIsSentAgain(kind: BodyKind) async throws {
      let fixture = try Fixture()
      let sent = pattern(kind == .largeData || kind == .file ? 300_000 : 5_000)
      let body: RequestBody
      var file: URL?
      switch kind {
      case .data, .largeData:
        body = .data(sent)
      case .file:
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("malibu-reset-\(UUID().uuidString)")
        try sent.write(to: url)
        file = url
        body = try .file(url)
      case .unknownLength:
        body = .source(MemorySource(data: sent, announcesLength: false))
      }
      defer { if let file { try? FileManager.default.removeItem(at: file) } }
      let options = timeouts(idle: .seconds(10))

      let first = try await fixture.fetch(fixture.request(.get, "/reset-reused?size=10"), options: options)
      #expect(first.body == pattern(10))
      let second = try await fixture.fetch(
        fixture.request(.post, "/reset-reused", headers: [("Content-Type", "application/octet-stream")]),
        body: body,
        options: options
      )
      #expect(second.head.status.code == 200)
      #expect(second.body == sent)
      // For a Data or file body, libcurl's own new connection is dropped before the request goes out on it (the
      // transport sends again on a new task): one connection more than CurlTransport, but the body arrives twice only.
      #expect(fixture.server.acceptedConnections >= 2)
      let posts = fixture.server.requests.filter { $0.method == "POST" }
      #expect(posts.count == 2)
      #expect(posts.last?.body == sent)
      #expect(try await fixture.fetch(fixture.request(.get, "/bytes?size=8")).body == pattern(8))
    }
  }
}
