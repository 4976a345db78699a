import CCurl
import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuTransport
import Testing

@testable import MalibuCurl

extension CurlTests {
  @Suite struct Units {
    @Test(arguments: ["a\rb", "a\nb", "a\0b", "line\r\nX-Injected: 1"])
    func headerValuesWithLineBreaksOrNulAreRejected(value: String) {
      #expect(throws: TransportError.self) { try RequestValidator.check(name: "X-Test", value: value) }
    }

    /// A refused value is typically a credential with a trailing newline: the error names the field, never the value.
    @Test(arguments: [("Authorization", "Bearer s3cr3t-T0ken\n"), ("X-Api-Key", "s3cr3t-T0ken\r\n")])
    func aRefusedValueIsNeverQuoted(name: String, value: String) {
      do {
        try RequestValidator.check(name: name, value: value)
        Issue.record("accepted")
      } catch {
        #expect(error.code == .invalidRequest)
        #expect(error.message.contains(name))
        #expect(!String(describing: error).contains("s3cr3t-T0ken"))
      }
    }

    @Test func validHeadersPass() throws {
      try RequestValidator.check(name: "X-Test", value: "a value\twith tab")
      #expect(throws: TransportError.self) { try RequestValidator.check(name: "Bad Name", value: "x") }
    }

    @Test func buildsURLsAndEncodesNonASCIIPaths() throws {
      let plain = HTTPRequest(method: .get, scheme: "HTTPS", authority: "example.com:8443", path: "/a/../b?q=1")
      #expect(try RequestValidator.validate(plain) == "https://example.com:8443/a/../b?q=1")
      let unicode = HTTPRequest(method: .get, scheme: "http", authority: "example.com", path: "/café")
      #expect(try RequestValidator.validate(unicode) == "http://example.com/caf%C3%A9")
    }

    @Test func parsesHeadsSkippingInterimOnes() throws {
      var parser = ResponseHeadParser()
      let lines = [
        "HTTP/1.1 100 Continue\r\n", "\r\n", "HTTP/1.1 201 Created Here\r\n", "Content-Type: text/plain\r\n",
        "X-Folded: first\r\n", "  second\r\n", "Bad Name: dropped\r\n", "Set-Cookie: a=1\r\n", "Set-Cookie: b=2\r\n",
        "\r\n",
      ]
      var head: HTTPResponse?
      for line in lines {
        var bytes = Array(line.utf8)
        let event = bytes.withUnsafeMutableBytes { parser.feed(UnsafeRawBufferPointer($0)) }
        if case .complete(let complete) = event { head = complete }
      }
      let response = try #require(head)
      #expect(response.status.code == 201)
      #expect(response.status.reasonPhrase == "Created Here")
      #expect(response.headerFields[.contentType] == "text/plain")
      #expect(response.headerFields[HTTPField.Name("X-Folded")!] == "first second")
      #expect(response.headerFields[values: .setCookie] == ["a=1", "b=2"])
      #expect(response.headerFields.count == 4)
    }

    @Test func rejectsNonHTTPStatusLines() {
      var parser = ResponseHeadParser()
      var bytes = Array("HTTP/1.1 2x0 Nope\r\n".utf8)
      let event = bytes.withUnsafeMutableBytes { parser.feed(UnsafeRawBufferPointer($0)) }
      guard case .malformed = event else {
        Issue.record("expected a malformed status line")
        return
      }
    }

    @Test(arguments: [
      (CURLE_COULDNT_CONNECT, TransportError.Code.connectionRefused),
      (CURLE_COULDNT_RESOLVE_HOST, .dnsFailure),
      (CURLE_RECV_ERROR, .connectionReset),
      (CURLE_SEND_ERROR, .connectionReset),
      (CURLE_GOT_NOTHING, .connectionReset),
      (CURLE_PARTIAL_FILE, .connectionReset),
      (CURLE_PEER_FAILED_VERIFICATION, .tls),
      (CURLE_SSL_CONNECT_ERROR, .tls),
      (CURLE_SSL_PINNEDPUBKEYNOTMATCH, .tls),
      (CURLE_SSL_CACERT_BADFILE, .tls),
      (CURLE_URL_MALFORMAT, .invalidRequest),
      (CURLE_OUT_OF_MEMORY, .other),
    ])
    func mapsCurlCodes(code: CURLcode, expected: TransportError.Code) {
      #expect(CurlErrors.code(for: code) == expected)
    }
  }
}
