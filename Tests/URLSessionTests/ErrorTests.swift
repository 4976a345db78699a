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
  @Suite struct Errors {
    @Test func refusedPortIsConnectionRefused() async throws {
      let fixture = try Fixture()
      let closed = try TestServer()
      let port = closed.port
      closed.stop()
      while closed.activeThreads > 0 { try await Task.sleep(for: .milliseconds(5)) }
      try await Task.sleep(for: .milliseconds(100))
      let request = HTTPRequest(method: .get, url: URL(string: "http://127.0.0.1:\(port)/")!)
      let error = await transportError { _ = try await fixture.fetch(request) }
      #expect(error?.code == .connectionRefused)
    }

    @Test func unresolvableHostIsDNSFailure() async throws {
      let fixture = try Fixture()
      let request = HTTPRequest(method: .get, url: URL(string: "http://nothing.invalid/")!)
      let error = await transportError { _ = try await fixture.fetch(request, options: timeouts(total: .seconds(20))) }
      #expect(error?.code == .dnsFailure)
    }

    /// libcurl reports "transfer closed with N bytes remaining" (FoundationNetworking: URLError -1 with that text).
    @Test(arguments: ["/close-mid", "/close-mid-chunked", "/close-no-response"])
    func serverClosingEarlyIsConnectionReset(path: String) async throws {
      let fixture = try Fixture()
      let error = await transportError { _ = try await fixture.fetch(fixture.request(.get, path)) }
      #expect(error?.code == .connectionReset)
      #expect(try await fixture.fetch(fixture.request(.get, "/bytes?size=8")).body == pattern(8))
    }

    @Test func partOfTheBodyArrivesBeforeTheReset() async throws {
      let fixture = try Fixture()
      let response = try await fixture.transport.send(
        fixture.request(.get, "/close-mid"),
        body: nil,
        options: TransferOptions()
      )
      var received = Data()
      let error = await transportError {
        for try await chunk in response.body { received.append(chunk) }
      }
      #expect(error?.code == .connectionReset)
      #expect(received == pattern(100))
    }

    @Test func unauthorizedIsReturnedAsItIs() async throws {
      let fixture = try Fixture()
      let response = try await fixture.fetch(fixture.request(.get, "/auth"))
      #expect(response.head.status.code == 401)
      #expect(response.body == Data("who are you".utf8))
      #expect(fixture.server.requests.count == 1)
    }

    @Test func tlsToAPlainServerIsATLSError() async throws {
      let fixture = try Fixture()
      let request = HTTPRequest(method: .get, url: URL(string: "https://127.0.0.1:\(fixture.server.port)/")!)
      let error = await transportError { _ = try await fixture.fetch(request, options: timeouts(total: .seconds(20))) }
      #expect(error?.code == .tls || error?.code == .connectionReset)
    }

    #if canImport(FoundationNetworking)
    @Test(arguments: [
      TLSOptions(pinnedPublicKey: "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="),
      TLSOptions(caFile: "/etc/ssl/certs/ca-certificates.crt"),
      TLSOptions(insecure: true),
    ])
    func tlsOptionsLinuxCannotHonourAreUnsupported(tls: TLSOptions) async throws {
      let fixture = try Fixture()
      var options = TransferOptions()
      options.tls = tls
      let error = await transportError {
        _ = try await fixture.fetch(fixture.request(.get, "/bytes"), options: options)
      }
      #expect(error?.code == .unsupportedOption)
      #expect(fixture.server.acceptedConnections == 0)
    }
    #endif

    struct Mapping: Sendable, CustomStringConvertible {
      var code: Int
      var text: String
      var expected: TransportError.Code
      var description: String { "\(code) \(text)" }
    }

    @Test(arguments: [
      Mapping(code: NSURLErrorCancelled, text: "", expected: .cancelled),
      Mapping(code: NSURLErrorTimedOut, text: "", expected: .idleTimeout),
      Mapping(code: NSURLErrorCannotConnectToHost, text: "Couldn't connect to server", expected: .connectionRefused),
      Mapping(code: NSURLErrorCannotFindHost, text: "Could not resolve host: x", expected: .dnsFailure),
      Mapping(code: NSURLErrorDNSLookupFailed, text: "", expected: .dnsFailure),
      Mapping(code: NSURLErrorNetworkConnectionLost, text: "", expected: .connectionReset),
      Mapping(code: NSURLErrorSecureConnectionFailed, text: "", expected: .tls),
      Mapping(code: NSURLErrorServerCertificateUntrusted, text: "", expected: .tls),
      Mapping(code: NSURLErrorBadURL, text: "", expected: .invalidRequest),
      Mapping(code: NSURLErrorHTTPTooManyRedirects, text: "", expected: .tooManyRedirects),
      Mapping(code: NSURLErrorCannotDecodeContentData, text: "", expected: .decodingFailed),
      Mapping(
        code: NSURLErrorUnknown,
        text: "transfer closed with 900 bytes remaining to read",
        expected: .connectionReset
      ),
      Mapping(code: NSURLErrorUnknown, text: "Recv failure: Connection reset by peer", expected: .connectionReset),
      Mapping(
        code: NSURLErrorUnknown,
        text: "Error while processing content unencoding: incorrect header check",
        expected: .decodingFailed
      ),
      Mapping(code: NSURLErrorUnknown, text: "SSL certificate problem: self-signed certificate", expected: .tls),
      Mapping(code: NSURLErrorUnknown, text: "something new", expected: .other),
      // Answers that break HTTP, as libcurl words them, and the head over libcurl's 100 KiB cap; the requests
      // refused before sending stay invalidRequest.
      Mapping(code: NSURLErrorUnsupportedURL, text: "Received HTTP/0.9 when not allowed", expected: .protocolError),
      Mapping(code: NSURLErrorUnsupportedURL, text: "Unsupported HTTP version in response", expected: .protocolError),
      Mapping(code: NSURLErrorUnsupportedURL, text: "", expected: .invalidRequest),
      Mapping(code: NSURLErrorUnknown, text: "Invalid Content-Length: value", expected: .protocolError),
      Mapping(
        code: NSURLErrorUnknown,
        text: "Illegal or missing hexadecimal sequence in chunked-encoding",
        expected: .protocolError
      ),
      Mapping(code: NSURLErrorUnknown, text: "Weird server reply", expected: .protocolError),
      Mapping(code: NSURLErrorCannotParseResponse, text: "", expected: .protocolError),
      Mapping(code: NSURLErrorUnknown, text: "Out of memory", expected: .protocolError),
      Mapping(
        code: NSURLErrorUnknown,
        text: "Too large response headers: 327868 > 307200",
        expected: .protocolError
      ),
    ])
    func urlErrorsMapToTransportErrors(_ mapping: Mapping) {
      let error = NSError(
        domain: NSURLErrorDomain,
        code: mapping.code,
        userInfo: [NSLocalizedDescriptionKey: mapping.text]
      )
      let mapped = TransportError(urlSessionError: error)
      #expect(mapped.code == mapping.expected)
      #expect(mapped.underlyingError != nil)
      if !mapping.text.isEmpty { #expect(mapped.message.contains(mapping.text)) }
    }
  }
}
