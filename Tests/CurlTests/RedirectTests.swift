import Foundation
import HTTPTypes
import MalibuTestSupport
import MalibuTransport
import Testing

@testable import MalibuCurl

extension CurlTests {
  @Suite struct Redirects {
    @Test(arguments: [301, 302, 303])
    func postBecomesGetWithoutBody(status: Int) async throws {
      try await withServer { server, transport in
        let fields: HTTPFields = [.contentType: "text/plain"]
        let (head, data, url) = try await transport.data(
          for: request(.post, server.url("/redirect?status=\(status)&to=%2Fecho"), headers: fields),
          body: .data(Data("body".utf8)),
          options: .init(),
          upTo: 100
        )
        #expect(head.status.code == 200)
        #expect(data.isEmpty)
        #expect(url == server.url("/echo"))
        let final = try #require(server.lastRequest)
        #expect(final.method == "GET")
        #expect(final.body.isEmpty)
        #expect(final.value("Content-Type") == nil)
        #expect(final.value("Content-Length") == nil)
      }
    }

    @Test(arguments: [307, 308])
    func keepsMethodAndBody(status: Int) async throws {
      try await withServer { server, transport in
        let payload = pattern(100_000)
        let (head, data, _) = try await transport.data(
          for: request(.put, server.url("/redirect?status=\(status)&to=%2Fecho")),
          body: .data(payload),
          options: .init(),
          upTo: 1 << 20
        )
        #expect(head.status.code == 200)
        #expect(data == payload)
        let requests = server.requests
        #expect(requests.count == 2)
        #expect(requests.allSatisfy { $0.method == "PUT" && $0.body == payload })
      }
    }

    @Test func streamedBodiesCannotBeRepeated() async throws {
      try await withServer { server, transport in
        let code = await errorCode {
          _ = try await transport.data(
            for: request(.post, server.url("/redirect?status=307&to=%2Fecho")),
            body: .stream(
              AsyncStream {
                $0.yield(Data("x".utf8))
                $0.finish()
              },
              length: 1
            ),
            options: .init(),
            upTo: 100
          )
        }
        #expect(code == .invalidRequest)
        try await expectServes(transport, server)
      }
    }

    @Test func crossOriginRedirectsDropCredentials() async throws {
      try await withServer { server, transport in
        let fields: HTTPFields = [.authorization: "Bearer secret", .cookie: "session=1", .accept: "text/plain"]
        let target = "http://localhost:\(server.port)/echo".addingPercentEncoding(
          withAllowedCharacters: .alphanumerics
        )!
        _ = try await transport.data(
          for: request(server.url("/redirect?to=\(target)"), headers: fields),
          body: nil,
          options: .init(),
          upTo: 100
        )
        let final = try #require(server.lastRequest)
        #expect(final.value("Host") == "localhost:\(server.port)")
        #expect(final.value("Authorization") == nil)
        #expect(final.value("Cookie") == nil)
        #expect(final.value("Accept") == "text/plain")

        _ = try await transport.data(
          for: request(server.url("/redirect?to=%2Fecho"), headers: fields),
          body: nil,
          options: .init(),
          upTo: 100
        )
        let sameOrigin = try #require(server.lastRequest)
        #expect(sameOrigin.value("Authorization") == "Bearer secret")
        #expect(sameOrigin.value("Cookie") == "session=1")
      }
    }

    /// A field named in `sensitiveFields` is dropped on a redirect to another origin (another server's port) and kept
    /// on one within the origin; names match without case.
    @Test func namedSensitiveFieldsDoNotFollowToAnotherOrigin() async throws {
      try await withServer { server, transport in
        let other = try TestServer(echo: .body)
        defer { other.stop() }
        var options = TransferOptions()
        options.redirects.sensitiveFields = [HTTPField.Name("x-api-key")!]
        let fields: HTTPFields = [HTTPField.Name("X-Api-Key")!: "key-123", HTTPField.Name("X-Other")!: "kept"]
        let target = other.url("/echo").absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        _ = try await transport.data(
          for: request(server.url("/redirect?to=\(target)"), headers: fields),
          body: nil,
          options: options,
          upTo: 100
        )
        #expect(server.lastRequest?.value("X-Api-Key") == "key-123")
        let crossOrigin = try #require(other.lastRequest)
        #expect(crossOrigin.value("X-Api-Key") == nil)
        #expect(crossOrigin.value("X-Other") == "kept")

        _ = try await transport.data(
          for: request(server.url("/redirect?to=%2Fecho"), headers: fields),
          body: nil,
          options: options,
          upTo: 100
        )
        let sameOrigin = try #require(server.lastRequest)
        #expect(sameOrigin.path == "/echo")
        #expect(sameOrigin.value("X-Api-Key") == "key-123")

        // Without naming it, the field follows (only the credential fields are dropped by default).
        _ = try await transport.data(
          for: request(server.url("/redirect?to=\(target)"), headers: fields),
          body: nil,
          options: .init(),
          upTo: 100
        )
        #expect(other.requests.count == 2)
        #expect(other.lastRequest?.value("X-Api-Key") == "key-123")
      }
    }

    @Test func followsUpToTheMaximum() async throws {
      try await withServer { server, transport in
        var options = TransferOptions()
        options.redirects = .follow(max: 3)
        let (_, data, url) = try await transport.data(
          for: request(server.url("/chain?n=3")),
          body: nil,
          options: options,
          upTo: 100
        )
        #expect(String(decoding: data, as: UTF8.self) == "done")
        #expect(url == server.url("/chain?n=0"))
        let tooMany = await errorCode {
          _ = try await transport.data(for: request(server.url("/chain?n=4")), body: nil, options: options, upTo: 100)
        }
        #expect(tooMany == .tooManyRedirects)
        let loop = await errorCode {
          _ = try await transport.send(request(server.url("/loop")), body: nil, options: .init())
        }
        #expect(loop == .tooManyRedirects)
        try await expectServes(transport, server)
      }
    }

    @Test func doesNotFollowWhenTold() async throws {
      try await withServer { server, transport in
        var options = TransferOptions()
        options.redirects = .none
        let (head, data, _) = try await transport.data(
          for: request(server.url("/redirect?status=302&to=%2Fecho&body=moved")),
          body: nil,
          options: options,
          upTo: 100
        )
        #expect(head.status.code == 302)
        #expect(head.headerFields[.location] == "/echo")
        #expect(String(decoding: data, as: UTF8.self) == "moved")
      }
    }
  }
}
