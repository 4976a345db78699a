#if Metrics
import CoreMetrics
import Foundation
import HTTPTypes
import MalibuCurl
import MalibuMetrics
import MalibuTestSupport
import MalibuTransport
import MetricsTestKit
import Testing

@Suite struct MetricsMiddlewareTests {
  /// A request and its answer: the counter by method and status class, the duration timer, the in-flight meter back
  /// at zero, the bytes out and the bytes in (once the body is read), under the conventions' names.
  @Test func requestIsCountedTimedAndMeasured() async throws {
    let server = try TestServer(echo: .body)
    let transport = CurlTransport()
    defer {
      transport.shutdown()
      server.stop()
    }
    let metrics = TestMetrics()
    let measured = transport.with(middleware: [MetricsMiddleware(factory: metrics)])
    let (head, data, _) = try await measured.data(
      for: HTTPRequest(method: .post, url: server.url("/echo?token=abcd1234")),
      body: .data(Data(count: 1234))
    )
    #expect(head.status == .ok)
    #expect(data.count == 1234)

    let host = [("server.address", "127.0.0.1"), ("server.port", "\(server.port)")]
    let requests = try metrics.expectCounter(
      "http.client.requests",
      [("http.request.method", "POST"), ("http.response.status_class", "2xx"), ("error.type", "")]
    )
    #expect(requests.totalValue == 1)
    let duration = try metrics.expectTimer(
      "http.client.request.duration",
      [("http.request.method", "POST")] + host + [("http.response.status_code", "200"), ("error.type", "")]
    )
    #expect(duration.values.count == 1)
    #expect(duration.values.allSatisfy { $0 > 0 })
    let active = try metrics.expectMeter("http.client.active_requests", [("http.request.method", "POST")] + host)
    #expect(active.values.count == 2)  // up to one, back to zero
    #expect(active.lastValue == 0)
    let sent = try metrics.expectRecorder("http.client.request.body.size", [("http.request.method", "POST")] + host)
    #expect(sent.values == [1234])
    let received = try metrics.expectRecorder(
      "http.client.response.body.size",
      [("http.request.method", "POST")] + host + [("http.response.status_code", "200")]
    )
    #expect(received.values == [1234])
    // The transport's time to first byte and connect time (a new connection), with the duration's dimensions.
    let firstByte = try metrics.expectTimer(
      "http.client.request.time_to_first_byte",
      [("http.request.method", "POST")] + host + [("http.response.status_code", "200"), ("error.type", "")]
    )
    #expect(firstByte.values.count == 1)
    #expect(firstByte.values.allSatisfy { $0 > 0 })
    let connect = try metrics.expectTimer(
      "http.client.connection.connect_duration",
      [("http.request.method", "POST")] + host + [("http.response.status_code", "200"), ("error.type", "")]
    )
    #expect(connect.values.count == 1)
    #expect(connect.values.allSatisfy { $0 > 0 && $0 <= firstByte.values[0] })
    #expect(metrics.counters(label: "http.client.request.resends").isEmpty)
    // No dimension carries the path or the query.
    #expect(!metrics.counters.contains { $0.dimensions.contains { $0.1.contains("token") || $0.1.contains("/echo") } })
  }

  /// Status classes are counted apart, and a `5xx` carries its code as `error.type` on the timer.
  @Test func statusClassesAreCountedApart() async throws {
    let server = try TestServer(echo: .body)
    let transport = CurlTransport()
    defer {
      transport.shutdown()
      server.stop()
    }
    let metrics = TestMetrics()
    let measured = transport.with(middleware: [MetricsMiddleware(factory: metrics)])
    for status in [200, 204, 404, 503, 503] {
      _ = try await measured.data(for: HTTPRequest(method: .get, url: server.url("/status/\(status)")))
    }
    func count(_ statusClass: String, errorType: String = "") -> Int64 {
      metrics.counterTotal(
        label: "http.client.requests",
        dimensions: [
          ("http.request.method", "GET"), ("http.response.status_class", statusClass), ("error.type", errorType),
        ]
      )
    }
    #expect(count("2xx") == 2)
    #expect(count("4xx", errorType: "404") == 1)
    #expect(count("5xx", errorType: "503") == 2)
    let host = [("server.address", "127.0.0.1"), ("server.port", "\(server.port)")]
    let failed = try metrics.expectTimer(
      "http.client.request.duration",
      [("http.request.method", "GET")] + host + [("http.response.status_code", "503"), ("error.type", "503")]
    )
    #expect(failed.values.count == 2)
  }

  /// A transfer that fails: counted with its `error.type`, timed, the in-flight meter back at zero, and the error
  /// reaches the caller unchanged; the same client then serves a good request.
  @Test func failedTransferIsCountedWithItsErrorType() async throws {
    let gone = try TestServer()
    let port = gone.port
    gone.stop()
    let server = try TestServer(echo: .body)
    let transport = CurlTransport()
    defer {
      transport.shutdown()
      server.stop()
    }
    let metrics = TestMetrics()
    let measured = transport.with(middleware: [MetricsMiddleware(factory: metrics)])
    await #expect {
      _ = try await measured.data(for: HTTPRequest(method: .get, url: URL(string: "http://127.0.0.1:\(port)/x")!))
    } throws: { error in
      (error as? TransportError)?.code == .connectionRefused
    }
    let failures = try metrics.expectCounter(
      "http.client.requests",
      [("http.request.method", "GET"), ("http.response.status_class", ""), ("error.type", "connectionRefused")]
    )
    #expect(failures.totalValue == 1)
    let host = [("server.address", "127.0.0.1"), ("server.port", "\(port)")]
    let active = try metrics.expectMeter("http.client.active_requests", [("http.request.method", "GET")] + host)
    #expect(active.lastValue == 0)
    let timer = try metrics.expectTimer(
      "http.client.request.duration",
      [("http.request.method", "GET")] + host + [
        ("http.response.status_code", ""), ("error.type", "connectionRefused"),
      ]
    )
    #expect(timer.values.count == 1)

    let (head, _, _) = try await measured.data(for: HTTPRequest(method: .get, url: server.url("/bytes?size=10")))
    #expect(head.status == .ok)
    #expect(
      metrics.counterTotal(
        label: "http.client.requests",
        dimensions: [("http.request.method", "GET"), ("http.response.status_class", "2xx"), ("error.type", "")]
      ) == 1
    )
  }

  /// Outermost, the middleware counts the resends `RetryMiddleware` makes below it, and one request.
  @Test func retriesAreCounted() async throws {
    let server = try TestServer(echo: .body)
    let transport = CurlTransport()
    defer {
      transport.shutdown()
      server.stop()
    }
    let metrics = TestMetrics()
    let measured = transport.with(middleware: [MetricsMiddleware(factory: metrics), RetryMiddleware()])
    var options = TransferOptions()
    options.retry = RetryPolicy(maxAttempts: 3, baseDelay: .zero, maxDelay: .zero)
    let (head, _, _) = try await measured.data(
      for: HTTPRequest(method: .get, url: server.url("/flaky?fail=2")),
      options: options
    )
    #expect(head.status == .ok)
    let host = [("server.address", "127.0.0.1"), ("server.port", "\(server.port)")]
    #expect(
      try metrics.expectCounter("http.client.request.resends", [("http.request.method", "GET")] + host).totalValue == 2
    )
    #expect(metrics.counterTotal(label: "http.client.requests") == 1)
  }

  /// A streamed body is counted as it is read, with its back-pressure kept; a body dropped half read records what
  /// was read.
  @Test func streamedBodyBytesAreCountedAsRead() async throws {
    let server = try TestServer(echo: .body)
    let transport = CurlTransport()
    defer {
      transport.shutdown()
      server.stop()
    }
    let metrics = TestMetrics()
    let measured = transport.with(middleware: [MetricsMiddleware(factory: metrics)])
    let response = try await measured.send(
      HTTPRequest(method: .get, url: server.url("/chunked?size=300000&chunk=1000")),
      body: nil,
      options: TransferOptions()
    )
    #expect(response.body.expectedLength == nil)
    var read = 0
    for try await chunk in response.body { read += chunk.count }
    #expect(read == 300_000)
    let recorded = metrics.recorders(label: "http.client.response.body.size")
    #expect(recorded.flatMap(\.values) == [300_000])
  }

  /// Every metric is reported with one set of dimension names, whatever the outcome (a success, a `4xx`, a `5xx`, a
  /// refused connection, a retried request, a streamed body): Prometheus refuses a name with two sets of labels.
  @Test func everyMetricKeepsOneSetOfDimensionNames() async throws {
    let gone = try TestServer()
    let refused = gone.port
    gone.stop()
    let server = try TestServer(echo: .body)
    let transport = CurlTransport()
    defer {
      transport.shutdown()
      server.stop()
    }
    let metrics = TestMetrics()
    let measured = transport.with(middleware: [MetricsMiddleware(factory: metrics), RetryMiddleware()])
    var retrying = TransferOptions()
    retrying.retry = RetryPolicy(maxAttempts: 3, baseDelay: .zero, maxDelay: .zero)
    _ = try await measured.data(for: HTTPRequest(method: .post, url: server.url("/echo")), body: .data(Data(count: 10)))
    for status in [200, 404, 503] {
      _ = try await measured.data(for: HTTPRequest(method: .get, url: server.url("/status/\(status)")))
    }
    _ = try await measured.data(for: HTTPRequest(method: .get, url: server.url("/flaky?fail=1")), options: retrying)
    _ = try? await measured.data(for: HTTPRequest(method: .get, url: URL(string: "http://127.0.0.1:\(refused)/x")!))
    var names: [String: Set<[String]>] = [:]
    func note(_ label: String, _ dimensions: [(String, String)]) {
      names[label, default: []].insert(dimensions.map(\.0).sorted())
    }
    for counter in metrics.counters { note(counter.label, counter.dimensions) }
    for timer in metrics.timers { note(timer.label, timer.dimensions) }
    for recorder in metrics.recorders { note(recorder.label, recorder.dimensions) }
    for meter in metrics.meters { note(meter.label, meter.dimensions) }
    #expect(names.count >= 7)  // requests, duration, active, both body sizes, resends, first byte (and connect)
    for (label, sets) in names {
      #expect(sets.count == 1, "\(label) is reported with \(sets.count) sets of dimension names: \(sets)")
    }
  }

  /// The response body's size is the size on the wire (a gzip body's compressed bytes), as the conventions ask, when
  /// the transport measured it.
  @Test func responseBodySizeIsTheSizeOnTheWire() async throws {
    let server = try TestServer(echo: .body)
    let transport = CurlTransport()
    defer {
      transport.shutdown()
      server.stop()
    }
    let metrics = TestMetrics()
    let measured = transport.with(middleware: [MetricsMiddleware(factory: metrics)])
    let (head, data, _) = try await measured.data(for: HTTPRequest(method: .get, url: server.url("/gzip?size=100000")))
    #expect(head.status == .ok)
    #expect(data.count == 100_000)
    let recorded = metrics.recorders(label: "http.client.response.body.size").flatMap(\.values)
    #expect(recorded == [Double(gzipPattern(100_000).count)])
    #expect(recorded.first != 100_000)
  }

  /// A middleware made without a factory, before the backend is bootstrapped, reports to the backend bootstrapped
  /// after it (the only test that bootstraps: the suite runs in the serial pass, one process).
  @Test func bootstrappedBackendIsReadWhenEachRequestIsSent() async throws {
    let server = try TestServer(echo: .body)
    let transport = CurlTransport()
    defer {
      transport.shutdown()
      server.stop()
    }
    let measured = transport.with(middleware: [MetricsMiddleware()])
    let metrics = TestMetrics()
    MetricsSystem.bootstrap(metrics)
    let (head, _, _) = try await measured.data(for: HTTPRequest(method: .get, url: server.url("/bytes?size=10")))
    #expect(head.status == .ok)
    #expect(metrics.counterTotal(label: "http.client.requests") == 1)
  }
}
#endif
