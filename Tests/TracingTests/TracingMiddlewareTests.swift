#if Tracing
import Foundation
import HTTPTypes
import InMemoryTracing
import MalibuCurl
import MalibuStorage
import MalibuTestSupport
import MalibuTracing
import MalibuTransport
import Testing
import Tracing

@Suite struct TracingMiddlewareTests {
  /// One client span per request, with the conventions' attribute names, a child of the caller's span; the server
  /// receives the span's context as `traceparent`; the secret query value never reaches the span.
  @Test func oneSpanPerRequestWithAttributesAndPropagatedTraceparent() async throws {
    let server = try TestServer(echo: .headAndBody)
    let transport = CurlTransport()
    defer {
      transport.shutdown()
      server.stop()
    }
    let traced = transport.with(middleware: [TracingMiddleware()])
    let tracer = W3CTestTracer()
    let url = server.url("/echo?token=abcd1234secret&page=2")
    let responseSize = try await withTracer(tracer) {
      try await withSpan("handle request") { _ in
        let (head, data, _) = try await traced.data(for: HTTPRequest(method: .get, url: url))
        #expect(head.status == .ok)
        return data.count
      }
    }

    let spans = tracer.finishedSpans
    #expect(spans.count == 2)
    let parent = try #require(spans.first { $0.operationName == "handle request" })
    let client = try #require(spans.first { $0.kind == .client })
    #expect(client.operationName == "GET")
    #expect(client.parentSpanID == parent.spanID)
    #expect(client.traceID == parent.traceID)
    #expect(client.attributes.get("http.request.method") == .string("GET"))
    #expect(client.attributes.get("url.full") == .string("http://127.0.0.1:\(server.port)/echo?token=REDACTED&page=2"))
    #expect(client.attributes.get("server.address") == .string("127.0.0.1"))
    #expect(client.attributes.get("server.port") == .int64(Int64(server.port)))
    #expect(client.attributes.get("http.response.status_code") == .int64(200))
    // From the transport's metrics: the protocol, the peer connected to, and the body's size.
    #expect(client.attributes.get("network.protocol.version") == .string("1.1"))
    #expect(client.attributes.get("network.peer.address") == .string("127.0.0.1"))
    #expect(client.attributes.get("network.peer.port") == .int64(Int64(server.port)))
    #expect(client.attributes.get("http.response.body.size") == .int64(Int64(responseSize)))
    #expect(client.attributes.get("error.type") == nil)
    #expect(client.attributes.get("http.request.resend_count") == nil)
    #expect(client.status == nil)
    #expect(client.errors.isEmpty)

    let sent = try #require(server.lastRequest)
    #expect(sent.values("traceparent") == ["00-\(client.traceID)-\(client.spanID)-01"])
  }

  /// A tracer given to the middleware makes the spans and injects their context, with nothing bootstrapped and no
  /// task-local tracer: what a library or a test does.
  @Test func injectedTracerNeedsNoBootstrap() async throws {
    let server = try TestServer(echo: .headAndBody)
    let transport = CurlTransport()
    defer {
      transport.shutdown()
      server.stop()
    }
    let tracer = W3CTestTracer()
    let traced = transport.with(middleware: [TracingMiddleware(tracer: tracer)])
    let (head, _, _) = try await traced.data(for: HTTPRequest(method: .get, url: server.url("/echo")))
    #expect(head.status == .ok)
    let client = try #require(tracer.finishedSpans.first)
    #expect(tracer.finishedSpans.count == 1)
    #expect(client.kind == .client)
    #expect(client.attributes.get("http.response.status_code") == .int64(200))
    let sent = try #require(server.lastRequest)
    #expect(sent.values("traceparent") == ["00-\(client.traceID)-\(client.spanID)-01"])

    // Without a tracer of its own and none bootstrapped, the middleware passes the request through untouched.
    let untraced = transport.with(middleware: [TracingMiddleware()])
    _ = try await untraced.data(for: HTTPRequest(method: .get, url: server.url("/echo")))
    #expect(try #require(server.lastRequest).values("traceparent").isEmpty)
    #expect(tracer.finishedSpans.count == 1)
  }

  /// Each request gets a span of its own, concurrent ones included, and each carries its own `traceparent`.
  @Test func concurrentRequestsEachGetTheirOwnSpan() async throws {
    let server = try TestServer(echo: .headAndBody)
    let transport = CurlTransport()
    defer {
      transport.shutdown()
      server.stop()
    }
    let traced = transport.with(middleware: [TracingMiddleware()])
    let tracer = W3CTestTracer()
    try await withTracer(tracer) {
      try await withThrowingTaskGroup(of: Void.self) { group in
        for index in 0..<8 {
          group.addTask {
            let request = HTTPRequest(method: .post, url: server.url("/echo?n=\(index)"))
            _ = try await traced.data(for: request, body: .data(Data("x".utf8)))
          }
        }
        try await group.waitForAll()
      }
    }
    let spans = tracer.finishedSpans
    #expect(spans.count == 8)
    #expect(Set(spans.map(\.spanID)).count == 8)
    let sentParents = Set(server.requests.compactMap { $0.value("traceparent") })
    #expect(sentParents == Set(spans.map { "00-\($0.traceID)-\($0.spanID)-01" }))
    #expect(spans.allSatisfy { $0.attributes.get("http.request.method") == .string("POST") })
  }

  /// A `5xx` answer: the span has the status code, `error.type` set to it and an error status; no error is thrown.
  @Test func errorStatusMarksTheSpan() async throws {
    let server = try TestServer(echo: .headAndBody)
    let transport = CurlTransport()
    defer {
      transport.shutdown()
      server.stop()
    }
    let traced = transport.with(middleware: [TracingMiddleware()])
    let tracer = W3CTestTracer()
    try await withTracer(tracer) {
      let (head, _, _) = try await traced.data(for: HTTPRequest(method: .get, url: server.url("/status/503")))
      #expect(head.status.code == 503)
    }
    let span = try #require(tracer.finishedSpans.first)
    #expect(span.attributes.get("http.response.status_code") == .int64(503))
    #expect(span.attributes.get("error.type") == .string("503"))
    #expect(span.status?.code == .error)
  }

  /// A transfer that fails: the caller gets the transport's error unchanged; the span records it with the secret
  /// scrubbed, `error.type` is the error's code and the status is an error. The same transport then serves a good
  /// request, traced as usual.
  @Test func transportErrorIsRecordedWithoutSecrets() async throws {
    let gone = try TestServer()
    let port = gone.port
    gone.stop()
    let server = try TestServer(echo: .headAndBody)
    let transport = CurlTransport()
    defer {
      transport.shutdown()
      server.stop()
    }
    let traced = transport.with(middleware: [TracingMiddleware()])
    let tracer = W3CTestTracer()
    let secret = "s3cr3t-value-1234"
    var request = HTTPRequest(method: .get, url: URL(string: "http://127.0.0.1:\(port)/x?api_key=\(secret)")!)
    request.headerFields[.authorization] = "Bearer \(secret)-bearer"
    let thrown = await withTracer(tracer) {
      await failure { _ = try await traced.data(for: request) }
    }
    #expect((thrown as? TransportError)?.code == .connectionRefused)
    let span = try #require(tracer.finishedSpans.first)
    #expect(span.attributes.get("error.type") == .string("connectionRefused"))
    #expect(span.status?.code == .error)
    #expect(span.attributes.get("url.full") == .string("http://127.0.0.1:\(port)/x?api_key=REDACTED"))
    let recorded = try #require(span.errors.first?.error as? TracedError)
    #expect(recorded.type == "TransportError")
    #expect(recorded.code == "connectionRefused")
    #expect(!recorded.message.contains(secret))
    #expect(span.attributes.get("http.response.status_code") == nil)

    // The same client serves a good request afterwards.
    try await withTracer(tracer) {
      let (head, _, _) = try await traced.data(for: HTTPRequest(method: .get, url: server.url("/echo")))
      #expect(head.status == .ok)
    }
    #expect(tracer.finishedSpans.count == 2)
    #expect(tracer.finishedSpans.last?.attributes.get("http.response.status_code") == .int64(200))
  }

  /// With a tracing middleware outermost and one below `RetryMiddleware`, the request is one span and each attempt
  /// a child span with its `http.request.resend_count`; every attempt carries the `traceparent` of its own span.
  @Test func retriedRequestGetsASpanPerAttempt() async throws {
    let server = try TestServer(echo: .headAndBody)
    let transport = CurlTransport()
    defer {
      transport.shutdown()
      server.stop()
    }
    let traced = transport.with(middleware: [TracingMiddleware(), RetryMiddleware(), TracingMiddleware()])
    var options = TransferOptions()
    options.retry = RetryPolicy(maxAttempts: 3, baseDelay: .zero, maxDelay: .zero)
    let tracer = W3CTestTracer()
    try await withTracer(tracer) {
      let (head, _, _) = try await traced.data(
        for: HTTPRequest(method: .get, url: server.url("/flaky?fail=2")),
        options: options
      )
      #expect(head.status == .ok)
    }
    let spans = tracer.finishedSpans
    #expect(spans.count == 4)
    let outer = try #require(spans.first { $0.parentSpanID == nil })
    #expect(outer.attributes.get("http.request.resend_count") == .int64(2))
    #expect(outer.attributes.get("http.response.status_code") == .int64(200))
    let attempts = spans.filter { $0.parentSpanID == outer.spanID }
    #expect(attempts.count == 3)
    #expect(attempts.map { $0.attributes.get("http.request.resend_count") } == [nil, .int64(1), .int64(2)])
    #expect(attempts.map { $0.attributes.get("http.response.status_code") } == [.int64(503), .int64(503), .int64(200)])
    #expect(attempts.map { $0.status?.code } == [.error, .error, nil])
    let sent = server.requests.filter { $0.path == "/flaky" }.compactMap { $0.value("traceparent") }
    #expect(sent == attempts.map { "00-\($0.traceID)-\($0.spanID)-01" })
  }

  /// With swift-distributed-tracing's own `InMemoryTracer`, the middleware injects whatever that tracer's propagation
  /// writes (its trace and span ids): the context goes out through the instrument, not a format of Malibu's.
  @Test func contextGoesOutThroughTheTracersInjector() async throws {
    let server = try TestServer(echo: .headAndBody)
    let transport = CurlTransport()
    defer {
      transport.shutdown()
      server.stop()
    }
    let traced = transport.with(middleware: [TracingMiddleware()])
    let tracer = InMemoryTracer()
    try await withTracer(tracer) {
      _ = try await traced.data(for: HTTPRequest(method: .get, url: server.url("/echo")))
    }
    let span = try #require(tracer.finishedSpans.first)
    #expect(tracer.finishedSpans.count == 1)
    #expect(span.kind == .client)
    #expect(server.lastRequest?.value(InMemoryTracer.traceIDKey) == span.traceID)
    #expect(server.lastRequest?.value(InMemoryTracer.spanIDKey) == span.spanID)
    #expect(tracer.performedContextInjections.count == 1)
  }

  /// Where a middleware follows redirects one hop at a time (the cookie jar's), an inner tracing middleware makes a
  /// child span per hop, each with its URL, status and `http.request.resend_count`, and each hop carries its own
  /// `traceparent`.
  @Test func redirectHopsGetASpanEach() async throws {
    let server = try TestServer(echo: .headAndBody)
    let transport = CurlTransport()
    defer {
      transport.shutdown()
      server.stop()
    }
    let traced = transport.with(middleware: [
      TracingMiddleware(), CookieMiddleware(jar: CookieJar()), TracingMiddleware(),
    ])
    let tracer = W3CTestTracer()
    try await withTracer(tracer) {
      let (head, data, _) = try await traced.data(for: HTTPRequest(method: .get, url: server.url("/chain?n=2")))
      #expect(head.status == .ok)
      #expect(data == Data("done".utf8))
    }
    let spans = tracer.finishedSpans
    #expect(spans.count == 4)
    let outer = try #require(spans.first { $0.parentSpanID == nil })
    #expect(outer.attributes.get("url.full") == .string("http://127.0.0.1:\(server.port)/chain?n=2"))
    #expect(outer.attributes.get("http.response.status_code") == .int64(200))
    #expect(outer.attributes.get("http.request.resend_count") == .int64(2))
    let hops = spans.filter { $0.parentSpanID == outer.spanID }
    #expect(
      hops.map { $0.attributes.get("url.full") } == [
        .string("http://127.0.0.1:\(server.port)/chain?n=2"),
        .string("http://127.0.0.1:\(server.port)/chain?n=1"),
        .string("http://127.0.0.1:\(server.port)/chain?n=0"),
      ]
    )
    #expect(hops.map { $0.attributes.get("http.response.status_code") } == [.int64(302), .int64(302), .int64(200)])
    #expect(hops.map { $0.attributes.get("http.request.resend_count") } == [nil, .int64(1), .int64(2)])
    let sent = server.requests.filter { $0.path == "/chain" }.compactMap { $0.value("traceparent") }
    #expect(sent == hops.map { "00-\($0.traceID)-\($0.spanID)-01" })
  }

  /// With no tracer bootstrapped or bound, the middleware sends the request untouched: no `traceparent`.
  @Test func withoutATracerNothingIsAdded() async throws {
    let server = try TestServer(echo: .headAndBody)
    let transport = CurlTransport()
    defer {
      transport.shutdown()
      server.stop()
    }
    #expect(InstrumentationSystem.instrument is NoOpInstrument)
    let traced = transport.with(middleware: [TracingMiddleware()])
    let (head, _, _) = try await traced.data(for: HTTPRequest(method: .get, url: server.url("/echo")))
    #expect(head.status == .ok)
    #expect(server.lastRequest?.value("traceparent") == nil)
  }

  /// The conventions' method, host and port rules, without a server.
  @Test(arguments: [
    ("https://example.com/a", "example.com", 443),
    ("http://example.com/a", "example.com", 80),
    ("http://user:pw@example.com:8080/a", "example.com", 8080),
    ("https://[::1]:8443/a", "::1", 8443),
    ("https://[::1]/a", "::1", 443),
  ])
  func serverAddressAndPort(url: String, host: String, port: Int) throws {
    let request = HTTPRequest(method: .get, url: try #require(URL(string: url)))
    let server = try #require(HTTPConventions.server(of: request))
    #expect(server.address == host)
    #expect(server.port == port)
  }

  @Test func unknownMethodIsOther() {
    #expect(HTTPConventions.method(.get) == ("GET", nil))
    let purge = HTTPRequest.Method("PURGE")!
    #expect(HTTPConventions.method(purge) == ("_OTHER", "PURGE"))
  }

  /// User information in the URL is redacted in `url.full`.
  @Test func credentialsInTheURLAreRedacted() async throws {
    let tracer = W3CTestTracer()
    let transport = StubTransport()
    let traced = transport.with(middleware: [TracingMiddleware()])
    try await withTracer(tracer) {
      // `HTTPRequest(url:)` drops user information; a request can still carry it in its authority.
      let request = HTTPRequest(
        method: .get,
        scheme: "https",
        authority: "ann:pw1234@example.com",
        path: "/a?X-Goog-Signature=abc&q=1"
      )
      _ = try await traced.data(for: request)
    }
    let span = try #require(tracer.finishedSpans.first)
    #expect(span.attributes.get("url.full") == .string("https://REDACTED@example.com/a?X-Goog-Signature=REDACTED&q=1"))
  }
}

/// The error `body` throws, or `nil`.
func failure(_ body: () async throws -> Void) async -> (any Error)? {
  do {
    try await body()
    return nil
  } catch {
    return error
  }
}

/// A transport answering `200` with an empty body, for tests that need no server.
struct StubTransport: Transport {
  func send(_ request: HTTPRequest, body: RequestBody?, options: TransferOptions) async throws -> TransportResponse {
    TransportResponse(head: HTTPResponse(status: .ok), url: request.url, body: .empty)
  }
}
#endif
