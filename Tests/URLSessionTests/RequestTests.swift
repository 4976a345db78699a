import Foundation
import HTTPTypes
import MalibuTestSupport
import MalibuTransport
import Testing

@testable import MalibuURLSession

extension URLSessionTransportTests {
  @Suite struct Requests {
    @Test(arguments: [
      HTTPRequest.Method.get, .head, .post, .put, .patch, .delete, .options, HTTPRequest.Method("PURGE")!,
    ])
    func methodIsSentExactly(method: HTTPRequest.Method) async throws {
      let fixture = try Fixture()
      let withBody = method != .get && method != .head
      let body = Data("payload for \(method.rawValue)".utf8)
      let request = fixture.request(method, "/echo?a=1&b=two%20words", headers: [("X-Custom", "value 1")])
      let response = try await fixture.fetch(request, body: withBody ? .data(body) : nil)
      #expect(response.head.status == .ok)
      let received = try #require(fixture.last)
      #expect(received.method == method.rawValue)
      #expect(received.target == "/echo?a=1&b=two%20words")
      #expect(received.value("X-Custom") == "value 1")
      #expect(received.body == (withBody ? body : Data()))
      if withBody {
        #expect(received.value("Content-Length") == String(body.count))
        #expect(!received.wasChunked)
      }
      if method == .head {
        #expect(response.body.isEmpty)
      } else {
        #expect(response.body.starts(with: Data("\(method.rawValue) /echo".utf8)))
      }
    }

    @Test func headersAreSentExactly() async throws {
      let fixture = try Fixture()
      var request = fixture.request(.get, "/echo")
      request.headerFields.append(HTTPField(name: HTTPField.Name("X-Repeated")!, value: "one"))
      request.headerFields.append(HTTPField(name: HTTPField.Name("X-Repeated")!, value: "two"))
      request.headerFields[.authorization] = "Bearer secret-token"
      request.headerFields[HTTPField.Name("X-Spaces")!] = "a  b\tc"
      request.headerFields[HTTPField.Name("X-Latin")!] = "caf\u{e9}"
      request.headerFields[.userAgent] = "MalibuTests/1.0"
      request.headerFields[.accept] = "application/json"
      request.headerFields[.acceptLanguage] = "fr"
      _ = try await fixture.fetch(request)
      let received = try #require(fixture.last)
      #expect(received.values("X-Repeated") == ["one, two"])
      #expect(received.value("Authorization") == "Bearer secret-token")
      #expect(received.value("X-Spaces") == "a  b\tc")
      #expect(received.value("User-Agent") == "MalibuTests/1.0")
      #expect(received.value("Accept") == "application/json")
      #expect(received.value("Accept-Language") == "fr")
      #expect(received.values("X-Latin").count == 1)
      #if canImport(FoundationNetworking)
      // The value's UTF-8 bytes, as CurlTransport sends them (an ISO Latin-1 mapping would double-encode them).
      #expect(received.rawHead.range(of: Data("X-Latin: caf\u{e9}\r\n".utf8)) != nil)
      #endif
      // Names keep the case they were given.
      #expect(received.headers.contains { $0.name == "X-Repeated" })
    }

    /// A non-ASCII response value keeps the bytes the server sent (UTF-8 here), as on CurlTransport.
    @Test func responseValuesKeepTheirBytes() async throws {
      let fixture = try Fixture()
      let response = try await fixture.fetch(fixture.request(.get, "/redirect?status=200&to=/caf%C3%A9"))
      #expect(response.head.status == .ok)
      let location = try #require(response.head.headerFields.first { $0.name == .location })
      #expect(location.withUnsafeBytesOfValue { Array($0) } == Array("/caf\u{e9}".utf8))
    }

    /// What URLSession adds to a request on its own (documented in the catalog and the README).
    @Test func headersURLSessionAdds() async throws {
      let fixture = try Fixture()
      _ = try await fixture.fetch(fixture.request(.get, "/echo"))
      let received = try #require(fixture.last)
      let names = Set(received.headers.map { $0.name.lowercased() })
      #expect(names.contains("host"))
      #expect(received.value("Accept-Encoding")?.contains("gzip") == true)
      #if canImport(FoundationNetworking)
      #expect(received.value("Accept") == "*/*")
      #expect(received.value("Connection") == "keep-alive")
      #expect(received.value("User-Agent")?.contains("curl/") == true)
      #expect(received.value("Accept-Language") != nil)
      #endif
      #expect(!names.contains("cookie"))
      #expect(!names.contains("content-type"))
      #expect(!names.contains("content-length"))
    }

    @Test func noFormContentTypeCookiesOrFramingFromTheCaller() async throws {
      let fixture = try Fixture()
      _ = try await fixture.fetch(fixture.request(.get, "/set-cookie"))
      let request = fixture.request(
        .post,
        "/echo",
        headers: [("Content-Length", "999"), ("Transfer-Encoding", "gzip")]
      )
      _ = try await fixture.fetch(request, body: .data(Data("abc".utf8)))
      let received = try #require(fixture.last)
      #expect(received.value("Content-Type") == nil)
      #expect(received.value("Cookie") == nil)
      #expect(received.values("Content-Length") == ["3"])
      #expect(received.value("Transfer-Encoding") == nil)
      #expect(received.body == Data("abc".utf8))
    }

    /// FoundationNetworking labels a POST body it reads from a stream as a form when the caller gave no type
    /// (documented); bodies in memory and files are sent without one.
    @Test func streamedPostWithoutContentTypeOnLinux() async throws {
      let fixture = try Fixture()
      let source = MemorySource(data: Data("a=1".utf8), announcesLength: false)
      _ = try await fixture.fetch(fixture.request(.post, "/echo"), body: .source(source))
      #if canImport(FoundationNetworking)
      #expect(fixture.last?.value("Content-Type") == "application/x-www-form-urlencoded")
      #endif
      var request = fixture.request(.post, "/echo")
      request.headerFields[.contentType] = "text/plain"
      _ = try await fixture.fetch(request, body: .source(source))
      #expect(fixture.last?.values("Content-Type") == ["text/plain"])
    }

    @Test(arguments: [
      ("ftp", "127.0.0.1:1", "/file"),
      ("file", "", "/etc/passwd"),
      ("http", "", "/no-host"),
      ("http", "bad host", "/"),
    ])
    func nonHTTPOrHostlessURLsAreInvalid(scheme: String, authority: String, path: String) async throws {
      let fixture = try Fixture()
      let request = HTTPRequest(method: .get, scheme: scheme, authority: authority, path: path)
      let error = await transportError { _ = try await fixture.fetch(request) }
      #expect(error?.code == .invalidRequest)
    }

    /// A URL past 64 KiB is refused before anything is sent, with its length and the limit; one of exactly the limit
    /// goes out, and the transport then serves a good request.
    @Test func aURLTooLongFailsBeforeAnythingIsSent() async throws {
      let fixture = try Fixture()
      let base = fixture.server.url("/echo?q=").absoluteString
      let long = HTTPRequest(method: .get, url: URL(string: base + String(repeating: "a", count: 1 << 20))!)
      let error = await transportError { _ = try await fixture.fetch(long) }
      #expect(error?.code == .invalidRequest)
      #expect(error?.message == "URL too long (\(base.utf8.count + (1 << 20)) bytes, limit 65536)")
      #expect(fixture.server.acceptedConnections == 0)

      let atLimit = URL(string: base + String(repeating: "a", count: 65536 - base.utf8.count))!
      let (head, _, _) = try await fixture.fetch(HTTPRequest(method: .get, url: atLimit))
      #expect(head.status.code == 200)
      #expect(fixture.last?.target.utf8.count == 65536 - "http://127.0.0.1:\(fixture.server.port)".utf8.count)
      let (good, body, _) = try await fixture.fetch(fixture.request(.get, "/bytes?size=100"))
      #expect(good.status.code == 200)
      #expect(body == pattern(100))
    }

    @Test func requestWithoutURLIsInvalid() async throws {
      let fixture = try Fixture()
      let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/")
      let error = await transportError { _ = try await fixture.fetch(request) }
      #expect(error?.code == .invalidRequest)
      #expect(fixture.server.acceptedConnections == 0)
    }

    @Test(arguments: [
      ("X-Evil", "a\r\nInjected: yes"),
      ("X-Evil", "line\nfeed"),
      ("X-Evil", "nul\u{0}byte"),
      ("X-Evil\r\nInjected", "yes"),
      ("X Space", "value"),
      ("", "value"),
    ])
    func headerCheckRejectsCRLFAndNUL(name: String, value: String) {
      #expect(throws: TransportError.self) {
        try URLSessionTransport.checkHeader(name: name, value: value.utf8)
      }
      do {
        try URLSessionTransport.checkHeader(name: name, value: value.utf8)
      } catch {
        #expect(error.code == .invalidRequest)
      }
    }

    /// A refused value is typically a credential with a trailing newline: the error names the field, never the value.
    @Test(arguments: [("Authorization", "Bearer s3cr3t-T0ken\n"), ("X-Api-Key", "s3cr3t-T0ken\r\n")])
    func aRefusedValueIsNeverQuoted(name: String, value: String) {
      do {
        try URLSessionTransport.checkHeader(name: name, value: value.utf8)
        Issue.record("accepted")
      } catch {
        #expect(error.code == .invalidRequest)
        #expect(error.message.contains(name))
        #expect(!String(describing: error).contains("s3cr3t-T0ken"))
      }
    }

    /// HTTPTypes already turns CR, LF and NUL in a field value into spaces, so no value can split the request: the
    /// transport's own check (above) is the second line of defence. Either way nothing is injected.
    @Test func crlfInAFieldValueNeverReachesTheServer() async throws {
      let fixture = try Fixture()
      var request = fixture.request(.get, "/echo")
      request.headerFields[HTTPField.Name("X-Evil")!] = "a\r\nInjected: yes"
      do {
        _ = try await fixture.fetch(request)
        let received = try #require(fixture.last)
        #expect(received.value("Injected") == nil)
        #expect(received.value("X-Evil")?.contains("\r") == false)
        #expect(fixture.server.requests.count == 1)
      } catch let error as TransportError {
        #expect(error.code == .invalidRequest)
        #expect(fixture.server.bytesReceived == 0)
      }
    }

    @Test(arguments: [HTTPRequest.Method.get, .head])
    func bodyWithGetOrHeadIsUnsupported(method: HTTPRequest.Method) async throws {
      let fixture = try Fixture()
      let error = await transportError {
        _ = try await fixture.fetch(fixture.request(method, "/echo"), body: .data(Data("x".utf8)))
      }
      #expect(error?.code == .unsupportedOption)
      #expect(fixture.server.acceptedConnections == 0)
      // An empty body is no body.
      _ = try await fixture.fetch(fixture.request(method, "/echo"), body: .data(Data()))
    }

    /// Framing is the transport's alone on every method: a caller's `Content-Length` or `Transfer-Encoding` on a
    /// request without a body would make the server read the next request on the kept-alive connection as body
    /// bytes. The caller's `Connection` is dropped too (FoundationNetworking writes its own).
    @Test(
      arguments: [HTTPRequest.Method.get, .head, .delete],
      [("Content-Length", "24"), ("Transfer-Encoding", "chunked")]
    )
    func callersFramingFieldsNeverReachTheWire(method: HTTPRequest.Method, framing: (String, String)) async throws {
      let fixture = try Fixture()
      let options = timeouts(total: .seconds(5))
      let request = fixture.request(method, "/echo", headers: [framing, ("Connection", "close")])
      let (head, _, _) = try await fixture.fetch(request, options: options)
      #expect(head.status.code == 200)
      let first = try #require(fixture.last)
      #expect(first.method == method.rawValue)
      // FoundationNetworking frames a bodiless DELETE itself with `Content-Length: 0` (documented); never the caller's.
      #expect(first.values("Content-Length") == (method == .delete ? ["0"] : []))
      #expect(first.value("Transfer-Encoding") == nil)
      #expect(first.values("Connection").allSatisfy { $0.lowercased() != "close" })
      #expect(first.bodyLength == 0)

      // The next request on the same kept-alive connection is read as a request of its own.
      let next = fixture.request(.get, "/bytes?size=100", headers: [("Authorization", "Bearer next-request")])
      let (nextHead, body, _) = try await fixture.fetch(next, options: options)
      #expect(nextHead.status.code == 200)
      #expect(body == pattern(100))
      #expect(fixture.server.requests.count == 2)
      #expect(fixture.last?.value("Authorization") == "Bearer next-request")
      #expect(fixture.server.acceptedConnections == 1)
    }
  }
}
