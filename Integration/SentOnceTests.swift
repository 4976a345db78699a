import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuCore
import MalibuTransport
import Testing

/// A request that is not idempotent reaches the server once: the fault server reads a `POST` whole on a kept-alive
/// connection, then closes it without a byte of answer (`/reuse/close`). Neither transport sends it again by itself
/// (libcurl's "connection died, retry on a fresh connect" rule is kept for idempotent methods only); the caller gets
/// `connectionReset` saying the request may have reached the server; only a retry policy that lists the method sends
/// it again. The server counts what reached it (`/count`).
@Suite("Sent once", .serialized)
struct SentOnceTests {
  enum Body: String, CaseIterable, CustomTestStringConvertible {
    case data, none, file

    var testDescription: String { rawValue }

    func make() throws -> RequestBody? {
      switch self {
      case .data:
        return .data(Data(repeating: 0x62, count: 64))
      case .none:
        return nil
      case .file:
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sent-once-\(UUID().uuidString).bin")
        try Data(repeating: 0x63, count: 4096).write(to: url)
        return try .file(url)
      }
    }
  }

  static var options: TransferOptions {
    var options = TransferOptions()
    options.timeouts = Timeouts(connect: .seconds(2), idle: .seconds(5), total: .seconds(20))
    return options
  }

  /// A fresh key, so that this test's count is its own.
  static func key() -> String { UUID().uuidString }

  /// How many requests to `path` with `key` reached the fault server.
  static func count(_ path: String, key: String, on backend: Backend) async throws -> Int {
    let url = try await Servers.faults("/count?path=\(path)&key=\(key)")
    let exchange = try await backend.exchange(url, options: options)
    return try #require(try exchange.json()["count"] as? Int)
  }

  /// A kept-alive connection to the fault server, on which the next request goes.
  static func keepAlive(_ backend: Backend) async throws {
    let ok = try await backend.exchange(Servers.faults("/ok"), options: options)
    #expect(ok.text == "ok")
  }

  /// Why a body-less `POST` is sent twice on URLSession (measured; MalibuURLSession's DocC).
  static let bodylessResend: Comment =
    "FoundationNetworking's libcurl sends a request without a body again by itself, without asking for a new body"

  @Test(arguments: Backend.allCases, Body.allCases)
  func aPOSTWhoseConnectionClosesIsSentOnce(_ backend: Backend, _ body: Body) async throws {
    guard backend == .urlSession, body == .none else { return try await sendOnce(backend, body) }
    // The known limit: the request reaches the server twice and is answered (MalibuURLSession's DocC).
    await withKnownIssue(Self.bodylessResend) { try await sendOnce(backend, body) }
  }

  private func sendOnce(_ backend: Backend, _ body: Body) async throws {
    let key = Self.key()
    try await Self.keepAlive(backend)
    let started = ContinuousClock.now
    do {
      let exchange = try await backend.exchange(
        .post,
        Servers.faults("/reuse/close?key=\(key)"),
        headers: ["Content-Type": "application/octet-stream"],
        body: body.make(),
        options: Self.options
      )
      Issue.record("expected connectionReset, got \(exchange.status) \(exchange.text.prefix(200))")
    } catch let error as TransportError {
      #expect(error.code == .connectionReset, "\(error)")
      #expect(error.message.contains("may have reached the server"), "\(error)")
    }
    #expect(ContinuousClock.now - started < .seconds(10))
    let sent = try await Self.count("/reuse/close", key: key, on: backend)
    #expect(sent == 1, "the POST reached the server \(sent) times")
    try await Self.keepAlive(backend)
  }

  /// libcurl's rule stays for an idempotent request: sent again once, on a new connection, and answered.
  @Test(arguments: Backend.allCases)
  func aGETWhoseConnectionClosesIsSentAgainAndAnswered(_ backend: Backend) async throws {
    let key = Self.key()
    try await Self.keepAlive(backend)
    let exchange = try await backend.exchange(Servers.faults("/reuse/close?key=\(key)"), options: Self.options)
    #expect(exchange.status == 200)
    #expect(exchange.text == #"{"method": "GET", "received": 0}"#)
    #expect(try await Self.count("/reuse/close", key: key, on: backend) == 2)
  }

  /// The caller's explicit choice: a retry policy that lists `POST` sends it again, through `RetryMiddleware`.
  @Test(arguments: Backend.allCases)
  func aPOSTIsRetriedWhenTheRetryPolicyListsIt(_ backend: Backend) async throws {
    let key = Self.key()
    try await Self.keepAlive(backend)
    var options = Self.options
    options.retry = RetryPolicy(
      maxAttempts: 5,
      baseDelay: .milliseconds(20),
      maxDelay: .milliseconds(100),
      methods: RetryPolicy.idempotentMethods.union([.post])
    )
    let transport = backend.transport.with(middleware: [RetryMiddleware()])
    let (head, data, _) = try await transport.data(
      for: HTTPRequest(method: .post, url: Servers.faults("/reuse/close?key=\(key)")),
      body: .data(Data("hello".utf8)),
      options: options,
      upTo: 1 << 20
    )
    #expect(head.status == .ok)
    #expect(String(decoding: data, as: UTF8.self) == #"{"method": "POST", "received": 5}"#)
    // Once on the reused connection that closed, then on a new one (more when the pool held more idle connections).
    let sent = try await Self.count("/reuse/close", key: key, on: backend)
    #expect((2...5).contains(sent), "the POST reached the server \(sent) times")
  }

  /// A head over libcurl's 300 KiB cap per response is the answer's fault: `protocolError`, which the default retry
  /// policy does not retry, so it is sent once.
  @Test(arguments: Backend.allCases)
  func anOversizedHeadIsAProtocolErrorSentOnce(_ backend: Backend) async throws {
    let key = Self.key()
    var options = Self.options
    options.retry = RetryPolicy(baseDelay: .milliseconds(20), maxDelay: .milliseconds(100))
    let transport = backend.transport.with(middleware: [RetryMiddleware()])
    do {
      let (head, _, _) = try await transport.data(
        for: HTTPRequest(method: .get, url: Servers.faults("/headers/oversized?key=\(key)")),
        body: nil,
        options: options,
        upTo: 1 << 20
      )
      Issue.record("expected protocolError, got \(head.status)")
    } catch let error as TransportError {
      #expect(error.code == .protocolError, "\(error)")
      #expect(error.message.contains("300 KiB"), "\(error)")
    }
    #expect(try await Self.count("/headers/oversized", key: key, on: backend) == 1)
    try await Self.keepAlive(backend)
  }
}
