import Foundation
import HTTPTypes
import MalibuTestSupport
import MalibuTransport
import Testing

/// Bad input ends the request with a precise error, and the transport keeps serving.
@Suite("Bad input", .serialized)
struct BadInputTests {
  @Test(arguments: Backend.allCases)
  func connectionRefused(_ backend: Backend) async throws {
    let port = try refusedPort()
    await expectTransportError(.connectionRefused) {
      try await backend.exchange(URL(string: "http://127.0.0.1:\(port)/")!)
    }
    #expect(try await backend.exchange(Servers.httpbin("/get")).status == 200)
  }

  @Test(arguments: Backend.allCases)
  func unresolvableHost(_ backend: Backend) async throws {
    await expectTransportError(.dnsFailure) {
      try await backend.exchange(URL(string: "http://nothing.invalid/")!)
    }
    #expect(try await backend.exchange(Servers.httpbin("/get")).status == 200)
  }

  @Test(arguments: Backend.allCases)
  func malformedURL(_ backend: Backend) async throws {
    let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:bad port", path: "/")
    await expectTransportError(.invalidRequest) {
      try await backend.transport.send(request, body: nil, options: TransferOptions())
    }
    let noScheme = HTTPRequest(method: .get, scheme: "ftp", authority: "127.0.0.1", path: "/")
    await expectTransportError(.invalidRequest) {
      try await backend.transport.send(noScheme, body: nil, options: TransferOptions())
    }
  }

  @Test(arguments: Backend.allCases)
  func bodyLargerThanTheCollectLimit(_ backend: Backend) async throws {
    await expectTransportError(.bodyTooLarge) {
      try await backend.exchange(Servers.nginx("/identity/1m.bin"), limit: 1000)
    }
    #expect(try await backend.exchange(Servers.nginx("/1k.bin")).data.count == 1024)
  }

  @Test(arguments: Backend.allCases, ["/bad/truncated.gz", "/bad/not-gzip"])
  func brokenGzipIsADecodingError(_ backend: Backend, _ path: String) async throws {
    if backend == .urlSession && path == "/bad/truncated.gz" {
      // FoundationNetworking inflates by itself and reports a gzip body cut short (with a complete Content-Length)
      // as a shorter body, not as an error; the transport never sees the encoded bytes (README, "Transports").
      await withKnownIssue("URLSession on Linux cannot detect a truncated gzip body") {
        await expectTransportError(.decodingFailed) {
          try await backend.exchange(Servers.nginx(path), headers: ["Accept-Encoding": "gzip"])
        }
      }
    } else {
      await expectTransportError(.decodingFailed) {
        try await backend.exchange(Servers.nginx(path), headers: ["Accept-Encoding": "gzip"])
      }
    }
    #expect(try await backend.exchange(Servers.nginx("/1k.bin")).data.count == 1024)
  }

  @Test(arguments: Backend.allCases)
  func decompressionBombBeyondTheLimit(_ backend: Backend) async throws {
    var options = TransferOptions()
    options.decompression = .enabled(limit: 1 << 20)
    await expectTransportError(.bodyTooLarge) {
      try await backend.exchange(Servers.nginx("/bad/bomb.gz"), headers: ["Accept-Encoding": "gzip"], options: options)
    }
    // The default ratio guard (1000:1 past 8 MiB) refuses it where Malibu decodes; URLSession decodes on its own
    // and only the size limit (256 MiB) applies there.
    if backend == .curl {
      await expectTransportError(.bodyTooLarge) {
        try await backend.exchange(Servers.nginx("/bad/bomb.gz"), headers: ["Accept-Encoding": "gzip"])
      }
    }
    options.decompression = .enabled(limit: nil, maximumRatio: nil)
    let whole = try await backend.exchange(
      Servers.nginx("/bad/bomb.gz"),
      headers: ["Accept-Encoding": "gzip"],
      options: options
    )
    #expect(whole.data.count == BadContent.bombSize)
  }
}

extension BadInputTests {
  @Test(arguments: Backend.allCases)
  func serverClosingMidBody(_ backend: Backend) async throws {
    let server = try TestServer()
    defer { server.stop() }
    await expectTransportError(.connectionReset) {
      try await backend.exchange(server.url("/close-mid?size=100000&sent=1000"))
    }
    #expect(try await backend.exchange(Servers.httpbin("/get")).status == 200)
  }
}
