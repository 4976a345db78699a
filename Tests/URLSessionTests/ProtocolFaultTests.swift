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

    /// A request sent on a kept-alive connection that the server resets without answering: a PUT (idempotent) is sent
    /// again on a new connection, with its body, as libcurl does (and CurlTransport), with no wait for the idle
    /// timeout; a POST may have reached the server, so it is sent once and fails with `connectionReset` at once.
    @Test(arguments: [HTTPRequest.Method.post, .put], BodyKind.allCases)
    func aRequestOnAResetReusedConnectionIsSentAgainOnlyWhenIdempotent(
      method: HTTPRequest.Method,
      kind: BodyKind
    ) async throws {
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
      let second = fixture.request(method, "/reset-reused", headers: [("Content-Type", "application/octet-stream")])
      let started = ContinuousClock.now
      if method == .post {
        do {
          _ = try await fixture.fetch(second, body: body, options: options)
          Issue.record("a POST on a reset connection was answered")
        } catch let error as TransportError {
          #expect(error.code == .connectionReset)
          #expect(error.message.contains("the request may have reached the server, so it was not sent again"))
        }
        #expect(ContinuousClock.now - started < .seconds(5))
      } else {
        let answer = try await fixture.fetch(second, body: body, options: options)
        #expect(answer.head.status.code == 200)
        #expect(answer.body == sent)
        // For a Data or file body, libcurl's own new connection is dropped before the body goes out on it (the
        // transport sends again on a new task): one connection more than CurlTransport, but the body arrives twice
        // only.
        #expect(fixture.server.acceptedConnections >= 2)
      }
      let sends = fixture.server.requests.filter { $0.method == method.rawValue && $0.body == sent }
      #expect(sends.count == (method == .post ? 1 : 2))
      #expect(try await fixture.fetch(fixture.request(.get, "/bytes?size=8")).body == pattern(8))
    }
  }
}
