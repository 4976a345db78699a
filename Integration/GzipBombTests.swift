import Foundation
import HTTPTypes
import MalibuCurl
import MalibuTestSupport
import MalibuTransport
import MalibuURLSession
import Testing

/// A gzip bomb refused at the decompression limit, and what it costs the next request.
@Suite(.serialized) struct GzipBombTests {
  enum Kind: String, CaseIterable, Sendable {
    case curl, urlSession
  }

  /// The bomb (1 MiB that decodes to 1 GiB) is refused with `bodyTooLarge`, and a plain request sent right after on
  /// the same transport completes within 2 s. URLSession cannot keep that bound: FoundationNetworking's libcurl goes
  /// on inflating the whole body after the task is cancelled, on the one queue every URLSession of the process
  /// shares, and nothing in its API stops it (the transport's DocC has the figures).
  @Test(arguments: Kind.allCases)
  func aRefusedBombDoesNotStallTheNextRequest(kind: Kind) async throws {
    let server = try TestServer()
    let transport: any Transport = kind == .curl ? CurlTransport() : URLSessionTransport()
    defer {
      if let curl = transport as? CurlTransport { curl.shutdown() }
      if let session = transport as? URLSessionTransport { session.shutdown() }
      server.stop()
    }
    _ = gzipBomb(mib: 1024)  // built before the clock runs
    let plain = HTTPRequest(method: .get, url: server.url("/bytes?size=1000"))
    _ = try await transport.data(for: plain, body: nil, options: .init(), upTo: 1 << 20)

    var options = TransferOptions()
    options.decompression = .enabled(limit: 1 << 20)
    let bomb = HTTPRequest(method: .get, url: server.url("/gzip-bomb?mib=1024"))
    do {
      _ = try await transport.data(for: bomb, body: nil, options: options, upTo: 1 << 30)
      Issue.record("the bomb was accepted")
    } catch let error as TransportError {
      #expect(error.code == .bodyTooLarge)
    }

    let started = ContinuousClock.now
    var bounded = TransferOptions()
    bounded.timeouts = Timeouts(connect: .seconds(30), idle: .seconds(30), total: .seconds(30))
    let (head, data, _) = try await transport.data(for: plain, body: nil, options: bounded, upTo: 1 << 20)
    let elapsed = ContinuousClock.now - started
    #expect(head.status.code == 200)
    #expect(data == pattern(1000))
    if kind == .urlSession {
      // Intermittent only because a fast idle machine might inflate 1 GiB within the bound.
      withKnownIssue("FoundationNetworking inflates the whole bomb after cancel()", isIntermittent: true) {
        #expect(elapsed < .seconds(2), "the request after the bomb took \(elapsed)")
      }
    } else {
      #expect(elapsed < .seconds(2), "the request after the bomb took \(elapsed)")
    }
  }
}
