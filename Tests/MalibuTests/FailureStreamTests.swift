import MalibuTestSupport
import Testing

@testable import Malibu

/// The failure stream (`failures`), `onFailure`, and failures of conversions reaching the networking's logger.
@Suite("Failure stream and onFailure")
struct FailureStreamTests {
  /// A transport answering `/api/boards` with JSON boards, `/api/down` with a refused connection, `/api/slow` after a
  /// long delay, `/api/missing` with a 404.
  static func makeStubbedTransport() -> MockTransport {
    let transport = makeTransport()
    transport.stub(.get, "/api/boards", headerFields: jsonHeaders, body: boardsJSON)
    transport.stub(.get, "/api/down", error: TransportError(code: .connectionRefused, message: "nothing listens"))
    transport.stub(.get, "/api/missing", status: .notFound, headerFields: jsonHeaders, body: Data("{}".utf8))
    transport.stub(.get, "/api/slow", reply: MockTransport.Reply(status: .ok, delay: .seconds(3600)))
    return transport
  }

  /// The next element of a failure subscription, or `nil` when it ended.
  static func next(_ iterator: inout AsyncStream<NetworkingFailure<Probe>>.Iterator) async -> NetworkingFailure<Probe>?
  {
    await iterator.next()
  }

  @Test func aDecodeFailureReachesTheStreamWithItsEndpointRequestAndResponse() async throws {
    let networking = Networking<Probe>(transport: .custom(Self.makeStubbedTransport()))
    networking.beforeEach = { $0.adding(headers: ["X-Before": "each"]) }
    var failures = networking.failures.makeAsyncIterator()
    let endpoint = Probe(.get("boards"))
    let error = await networkError(networking.request(endpoint).decode(using: Board.self))
    #expect(error?.code == .decodingFailed)

    let failure = try #require(await Self.next(&failures))
    #expect(failure.endpoint?.request == endpoint.request)
    #expect(failure.request.headers["X-Before"] == "each")  // after beforeEach
    #expect(failure.networkError?.code == .decodingFailed)
    #expect(failure.response?.statusCode == 200)
    #expect(failure.response?.request.path == "/api/boards")

    // The same networking then serves a good request, and publishes nothing for it.
    let boards = try await networking.request(endpoint).validate().decode(using: [Board].self).value
    #expect(boards.count == 2)
    _ = await networkError(networking.request(Probe(.get("down"))))
    #expect(try #require(await Self.next(&failures)).endpoint?.request.resource.urlString == "down")
  }

  /// A download that fails (a status that is not a file) and a stream whose transfer fails before its head reach
  /// `onFailure` too, with the error their caller gets; the networking then serves a good request.
  @Test func downloadAndStreamFailuresArePublished() async throws {
    let networking = Networking<Probe>(transport: .custom(Self.makeStubbedTransport()))
    let seen = Box<[String]>([])
    networking.onFailure = { failure in
      seen.update {
        $0.append("\(failure.request.resource.urlString) \(failure.networkError?.code.description ?? "?")")
      }
    }
    let destination = FileManager.default.temporaryDirectory.appendingPathComponent("failure-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: destination) }
    let download = await networkError(networking.download(Probe(.get("missing")), to: destination))
    #expect(download?.code == .unacceptableStatusCode)
    do {
      _ = try await networking.stream(Probe(.get("down")))
      Issue.record("the stream of a refused connection did not fail")
    } catch let error as NetworkError {
      #expect(error.code == .transportFailed)
    }
    #expect(
      seen.value == [
        "missing \(NetworkError.Code.unacceptableStatusCode)", "down \(NetworkError.Code.transportFailed)",
      ]
    )
    _ = try await networking.request(Probe(.get("boards"))).validate().value
  }

  /// Transport, gate, encoding and validation failures each reach `onFailure` and the stream with the promise's
  /// error, before the promise is rejected.
  @Test(arguments: ["transport", "gate", "encoding", "validate", "toString"])
  func everyKindOfFailureIsPublished(kind: String) async throws {
    let networking = Networking<Probe>(transport: .custom(Self.makeStubbedTransport()))
    let seen = Box<[String]>([])
    networking.onFailure = { failure in seen.update { $0.append(failure.networkError?.code.description ?? "?") } }
    if kind == "gate" {
      networking.middleware = { promise in promise.reject(Refusal()) }
    }
    let stream = networking.failures
    let promise: Promise<Void>
    switch kind {
    case "transport": promise = networking.request(Probe(.get("down"))).asVoid()
    case "gate": promise = networking.request(Probe(.get("boards"))).asVoid()
    case "encoding": promise = networking.request(Probe(.get("boards", headers: ["X-Bad": "a\r\nb"]))).asVoid()
    case "validate": promise = networking.request(Probe(.get("missing"))).validate().asVoid()
    default: promise = networking.request(Probe(.get("boards"))).toString(encoding: .utf32).asVoid()
    }
    let expected: [String: NetworkError.Code] = [
      "transport": .transportFailed, "gate": .requestRejected, "encoding": .invalidHeader,
      "validate": .unacceptableStatusCode, "toString": .stringDecodingFailed,
    ]
    let error = await networkError(promise)
    #expect(error?.code == expected[kind])
    // onFailure ran before the promise was rejected.
    #expect(seen.value == [expected[kind]?.description ?? ""])
    var iterator = stream.makeAsyncIterator()
    let failure = try #require(await iterator.next())
    #expect(failure.networkError?.code == expected[kind])

    networking.middleware = nil
    #expect(try await networking.request(Probe(.get("boards"))).validate().decode(using: [Board].self).value.count == 2)
    #expect(seen.value.count == 1)
  }

  @Test func twoSubscribersEachGetEveryFailureFromTheirSubscriptionOn() async throws {
    let networking = Networking<Probe>(transport: .custom(Self.makeStubbedTransport()))
    var first = networking.failures.makeAsyncIterator()
    var second = networking.failures.makeAsyncIterator()
    _ = await networkError(networking.request(Probe(.get("down"))))
    var late = networking.failures.makeAsyncIterator()
    _ = await networkError(networking.request(Probe(.get("missing"))).validate())

    let firstCodes = [await Self.next(&first), await Self.next(&first)].map { $0?.networkError?.code }
    let secondCodes = [await Self.next(&second), await Self.next(&second)].map { $0?.networkError?.code }
    #expect(firstCodes == [.transportFailed, .unacceptableStatusCode])
    #expect(secondCodes == firstCodes)
    // A subscriber gets the failures after it subscribed only.
    #expect(await Self.next(&late)?.networkError?.code == .unacceptableStatusCode)
  }

  @Test func aSubscriberThatGoesAwayIsForgotten() async throws {
    let networking = Networking<Probe>(transport: .custom(Self.makeStubbedTransport()))
    do {
      var iterator = networking.failures.makeAsyncIterator()
      _ = await networkError(networking.request(Probe(.get("down"))))
      #expect(await iterator.next() != nil)
    }
    await eventually("the subscriber is removed") { networking.hooks.subscriberCount == 0 }
  }

  /// Cancellations are not failures: neither the caller's `cancel()` nor `cancelAllRequests()` is published.
  @Test func cancellationsAreNotPublished() async throws {
    let networking = Networking<Probe>(transport: .custom(Self.makeStubbedTransport()))
    let seen = Box(0)
    networking.onFailure = { _ in seen.update { $0 += 1 } }
    var failures = networking.failures.makeAsyncIterator()
    let slow = networking.request(Probe(.get("slow")))
    slow.cancel()
    _ = await outcome(slow)
    let other = networking.request(Probe(.get("slow")))
    await eventually("in flight") { networking.inFlight == 1 }
    networking.cancelAllRequests()
    #expect(await networkError(other)?.code == .cancelled)
    _ = await networkError(networking.request(Probe(.get("down"))))
    // The first failure published is the refused connection.
    #expect(await Self.next(&failures)?.networkError?.code == .transportFailed)
    #expect(seen.value == 1)
  }

  /// With logging off, failures are still published; with a logger, they are logged as well (once).
  @Test func failuresArePublishedWhateverTheLogLevelAndStillLogged() async throws {
    let log = LogCapture()
    let mocks = MockProvider<Probe> { endpoint in
      endpoint.request.resource.urlString == "mocked" ? Mock(json: ["id": 1]) : nil
    }
    let networking = Networking<Probe>(mockProvider: mocks, transport: .custom(Self.makeStubbedTransport()))
    networking.logger = NetworkLogger(level: .error, logger: log.makeLogger(label: "assigned"))
    let seen = Box<[NetworkError.Code?]>([])
    networking.onFailure = { failure in seen.update { $0.append(failure.networkError?.code) } }

    // A mocked response's decode failure reaches the assigned logger (not only Malibu.logger) and the hook.
    #expect(
      await networkError(networking.request(Probe(.get("mocked"))).decode(using: [Board].self))?.code == .decodingFailed
    )
    #expect(log.all.filter { $0.message == "request failed" }.count == 1, "\(log.all)")
    #expect(seen.value == [.decodingFailed])

    networking.logger.level = .none
    #expect(await networkError(networking.request(Probe(.get("missing"))).validate())?.code == .unacceptableStatusCode)
    #expect(seen.value == [.decodingFailed, .unacceptableStatusCode])
    #expect(log.all.filter { $0.message == "request failed" }.count == 1)
  }
}
