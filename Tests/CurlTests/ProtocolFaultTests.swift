import CCurl
import Foundation
import HTTPTypes
import MalibuTestSupport
import MalibuTransport
import Testing

@testable import MalibuCurl

extension CurlTests {
  /// Answers that break HTTP, interim heads, and a request whose kept-alive connection is reset.
  @Suite struct ProtocolFaults {
    @Test(arguments: ["/garbage-status", "/not-http", "/bad-content-length", "/bad-chunked"])
    func answerThatIsNotHTTPIsProtocolError(path: String) async throws {
      try await withServer { server, transport in
        let code = await errorCode {
          _ = try await transport.data(for: request(server.url(path)), body: nil, options: .init(), upTo: 1 << 20)
        }
        #expect(code == .protocolError)
        let streamed = await errorCode {
          let response = try await transport.send(request(server.url(path)), body: nil, options: .init())
          _ = try await response.body.collect(upTo: 1 << 20)
        }
        #expect(streamed == .protocolError)
        try await expectServes(transport, server)
      }
    }

    /// libcurl's words narrow a result down: broken chunked framing is a protocol error, a real receive failure a
    /// reset; an unsupported protocol is the answer unless libcurl names a scheme it does not speak.
    @Test func resultsAreNarrowedByLibcurlsText() {
      #expect(CurlErrors.code(for: CURLE_WEIRD_SERVER_REPLY) == .protocolError)
      #expect(CurlErrors.code(for: CURLE_UNSUPPORTED_PROTOCOL) == .protocolError)
      #expect(
        CurlErrors.code(for: CURLE_RECV_ERROR, detail: "Illegal or missing hexadecimal sequence in chunked-encoding")
          == .protocolError
      )
      #expect(CurlErrors.code(for: CURLE_RECV_ERROR, detail: "Connection reset by peer") == .connectionReset)
      // A head over libcurl's 300 KiB cap in all is the answer's fault, never retried by the default policy.
      #expect(
        CurlErrors.code(for: CURLE_RECV_ERROR, detail: "Too large response headers: 327868 > 307200") == .protocolError
      )
      #expect(
        CurlErrors.code(
          for: CURLE_UNSUPPORTED_PROTOCOL,
          detail: "Protocol \"ftp\" not supported or disabled in libcurl"
        ) == .invalidRequest
      )
      #expect(
        CurlErrors.code(for: CURLE_UNSUPPORTED_PROTOCOL, detail: "Received HTTP/0.9 when not allowed")
          == .protocolError
      )
    }

    @Test(arguments: [("/continue", "after hints"), ("/continue-100", "after continue")])
    func interimHeadsAreSkipped(path: String, body: String) async throws {
      try await withServer { server, transport in
        let response = try await transport.send(request(server.url(path)), body: nil, options: .init())
        #expect(response.head.status.code == 200)
        #expect(response.head.headerFields[HTTPField.Name("Link")!] == nil)
        #expect(String(decoding: try await response.body.collect(upTo: 100), as: UTF8.self) == body)
        try await expectServes(transport, server)
      }
    }

    enum BodyKind: String, CaseIterable, Sendable {
      case data, largeData, file
    }

    /// A request sent on a kept-alive connection that the server resets without answering: libcurl sends a PUT
    /// (idempotent) again on a new connection, body rewound; a POST may have reached the server, so it is sent once and
    /// fails with `connectionReset` saying so. The same outcome as URLSessionTransport.
    @Test(arguments: [HTTPRequest.Method.post, .put], BodyKind.allCases)
    func aRequestOnAResetReusedConnectionIsSentAgainOnlyWhenIdempotent(
      method: HTTPRequest.Method,
      kind: BodyKind
    ) async throws {
      try await withServer { server, transport in
        let sent = pattern(kind == .data ? 5_000 : 300_000)
        var file: URL?
        let body: RequestBody
        if kind == .file {
          let url = FileManager.default.temporaryDirectory.appendingPathComponent("malibu-reset-\(UUID().uuidString)")
          try sent.write(to: url)
          file = url
          body = try .file(url)
        } else {
          body = .data(sent)
        }
        defer { if let file { try? FileManager.default.removeItem(at: file) } }
        let options = TransferOptions(timeouts: MalibuTransport.Timeouts(idle: .seconds(10)))

        let (_, first, _) = try await transport.data(
          for: request(server.url("/reset-reused?size=10")),
          body: nil,
          options: options,
          upTo: 1 << 20
        )
        #expect(first == pattern(10))
        let second = request(method, server.url("/reset-reused"), headers: [.contentType: "application/octet-stream"])
        if method == .post {
          do {
            _ = try await transport.data(for: second, body: body, options: options, upTo: 1 << 20)
            Issue.record("a POST on a reset connection was answered")
          } catch let error as TransportError {
            #expect(error.code == .connectionReset)
            #expect(error.message.contains("the request may have reached the server, so it was not sent again"))
          }
        } else {
          let (head, echoed, _) = try await transport.data(for: second, body: body, options: options, upTo: 1 << 20)
          #expect(head.status.code == 200)
          #expect(echoed == sent)
          #expect(server.acceptedConnections == 2)
        }
        let sends = server.requests.filter { $0.method == method.rawValue && $0.body == sent }
        #expect(sends.count == (method == .post ? 1 : 2))
        try await expectServes(transport, server)
      }
    }
  }
}
