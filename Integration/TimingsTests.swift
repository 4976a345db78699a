import Foundation
import Malibu
import MalibuCurl
import MalibuTestSupport
import MalibuTransport
import MalibuURLSession
import Testing

/// Per-transfer metrics (`TransferMetrics`) against the local servers: CurlTransport fills every figure, in order, on
/// plain HTTP/1.1 and on TLS with HTTP/2, with a kept-alive connection shown as reused; URLSessionTransport on Linux
/// fills exactly what it measures itself (FoundationNetworking reports no `URLSessionTaskMetrics`).
@Suite("Timings", .serialized)
struct TimingsTests {
  /// The times must be non-negative and in `curl -w`'s order.
  static func expectOrdered(_ metrics: TransferMetrics, sourceLocation: SourceLocation = #_sourceLocation) {
    let times = metrics.orderedTimes
    #expect(times.allSatisfy { $0 >= .zero }, "\(metrics)", sourceLocation: sourceLocation)
    #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 }, "\(metrics)", sourceLocation: sourceLocation)
    if let redirect = metrics.redirect, let first = times.first {
      #expect(redirect >= .zero && redirect <= first, "\(metrics)", sourceLocation: sourceLocation)
    }
  }

  @Test("curl: every figure over plain HTTP/1.1, then reused on the kept-alive connection")
  func curlPlain() async throws {
    let transport = CurlTransport()
    defer { transport.shutdown() }
    let url = try await Servers.nginx("/identity/1k.bin")
    let port = try #require(url.port)

    let first = try await transport.collect(
      HTTPRequest(method: .get, url: url),
      body: nil,
      options: .init(),
      upTo: 1 << 20
    )
    let metrics = try #require(first.metrics)
    Self.expectOrdered(metrics)
    #expect(metrics.isReusedConnection == false)
    #expect(metrics.nameLookup != nil)
    #expect(metrics.connect != nil)
    #expect(metrics.secureConnect == nil)
    for time in [metrics.requestSent, metrics.firstByte, metrics.total] { #expect(time != nil) }
    #expect(metrics.redirect == .zero)
    #expect(metrics.httpVersion == "1.1")
    #expect(metrics.remoteAddress == "127.0.0.1")
    #expect(metrics.remotePort == port)
    #expect(metrics.responseBodyBytes == 1024)
    #expect(metrics.decodedBodyBytes == 1024)
    #expect((metrics.responseHeadBytes ?? 0) > 0)
    #expect((metrics.requestBytesSent ?? 0) > 0)

    let second = try await transport.collect(
      HTTPRequest(method: .get, url: url),
      body: nil,
      options: .init(),
      upTo: 1 << 20
    )
    let reused = try #require(second.metrics)
    Self.expectOrdered(reused)
    #expect(reused.isReusedConnection == true)
    #expect(reused.nameLookup == nil)
    #expect(reused.connect == nil)
    #expect(reused.firstByte != nil && reused.total != nil)
  }

  @Test("curl: HTTP/2 and a TLS handshake over TLS")
  func curlTLS() async throws {
    let transport = CurlTransport()
    defer { transport.shutdown() }
    let material = try await LocalServers.shared.tlsMaterial()
    let url = try await Servers.nginxTLS("/identity/1k.bin")
    let options = TransferOptions(tls: TLSOptions(caFile: material.caFile))
    let response = try await transport.collect(
      HTTPRequest(method: .get, url: url),
      body: nil,
      options: options,
      upTo: 1 << 20
    )
    let metrics = try #require(response.metrics)
    Self.expectOrdered(metrics)
    #expect(metrics.httpVersion == "2")
    #expect(metrics.secureConnect != nil)
    #expect(metrics.isReusedConnection == false)
    #expect(metrics.responseBodyBytes == 1024)
  }

  @Test("curl: a streamed body has the head's figures first, the final ones once it has ended")
  func curlStreamed() async throws {
    let transport = CurlTransport()
    defer { transport.shutdown() }
    // The body drips 8 bytes 0.25 s apart, so it is still coming when the head's figures are read.
    let url = try await Servers.faults("/slow/body?interval=0.25")
    let response = try await transport.send(HTTPRequest(method: .get, url: url), body: nil, options: .init())
    let head = try #require(response.metrics)
    Self.expectOrdered(head)
    #expect(head.firstByte != nil)
    #expect(head.total == nil && head.responseBodyBytes == nil && head.decodedBodyBytes == nil)
    #expect(response.body.metrics == nil)
    let collected = try await response.collected(upTo: 1 << 20)
    let final = try #require(collected.metrics)
    Self.expectOrdered(final)
    #expect(final.total != nil)
    #expect(final.responseBodyBytes == 8 && final.decodedBodyBytes == 8)
    #expect(final.firstByte == head.firstByte)
  }

  @Test("curl: the hops before a redirect are the redirect share, and the phases count after it")
  func curlRedirect() async throws {
    let transport = CurlTransport()
    defer { transport.shutdown() }
    let url = try await Servers.httpbin("/redirect/1")
    let response = try await transport.collect(
      HTTPRequest(method: .get, url: url),
      body: nil,
      options: .init(),
      upTo: 1 << 20
    )
    #expect(response.head.status == .ok)
    let metrics = try #require(response.metrics)
    Self.expectOrdered(metrics)
    let redirect = try #require(metrics.redirect)
    #expect(redirect > .zero)
    #expect(try #require(metrics.firstByte) >= redirect)
  }

  @Test("URLSession on Linux: the head's arrival, the total and the body's size, nothing of the connection")
  func urlSession() async throws {
    let transport = URLSessionTransport()
    defer { transport.shutdown() }
    let url = try await Servers.nginx("/identity/1k.bin")
    let response = try await transport.collect(
      HTTPRequest(method: .get, url: url),
      body: nil,
      options: .init(),
      upTo: 1 << 20
    )
    let metrics = try #require(response.metrics)
    Self.expectOrdered(metrics)
    #if canImport(FoundationNetworking)
    #expect(metrics.redirect == .zero)
    #expect(metrics.firstByte != nil && metrics.total != nil)
    #expect(metrics.decodedBodyBytes == 1024 && metrics.responseBodyBytes == 1024)
    let unmeasured: [Any?] = [
      metrics.nameLookup, metrics.connect, metrics.secureConnect, metrics.requestSent, metrics.isReusedConnection,
      metrics.httpVersion, metrics.remoteAddress, metrics.remotePort, metrics.requestBytesSent,
      metrics.responseHeadBytes,
    ]
    #expect(unmeasured.allSatisfy { $0 == nil })
    #endif
  }

  @Test("the facade's Response carries the final figures, with and without middleware in its chain")
  func facade() async throws {
    try await FacadeServer.start()
    let networking = Networking<Httpbin>(transport: .curl)
    for level in [LogLevel.none, .verbose] {
      networking.logger = LogCapture().makeLogger(level: level)
      let response = try await networking.request(.query(["board": "balsa"])).value
      let metrics = try #require(response.metrics, "\(level)")
      Self.expectOrdered(metrics)
      #expect(metrics.total != nil, "\(level)")
      #expect(metrics.decodedBodyBytes == response.data.count, "\(level)")
      #expect(metrics.httpVersion == "1.1", "\(level)")
    }
  }
}
