import Malibu
import MalibuTestSupport
import Testing

/// A networking takes the application's swift-log `Logger` (and a request its own), as swift-log asks of libraries.
@Suite struct ApplicationLoggerTests {
  static let secret = "s3cr3t-T0ken-4711"

  /// A transport answering `/api/boards` with JSON boards, `/api/missing` with a 404 and refusing `/api/down`.
  static func makeStubbedTransport() -> MockTransport {
    let transport = makeTransport()
    transport.stub(.get, "/api/boards", headerFields: jsonHeaders, body: boardsJSON)
    transport.stub(.get, "/api/missing", status: .notFound, headerFields: jsonHeaders, body: Data("{}".utf8))
    transport.stub(.get, "/api/down", error: TransportError(code: .connectionRefused, message: "nothing listens"))
    return transport
  }

  static func request(_ path: String) -> Probe {
    Probe(.get(path, parameters: ["access_token": secret], headers: ["Authorization": "Bearer \(secret)"]))
  }

  @Test func aNetworkingGivenTheApplicationsLoggerWritesSingleLineDebugAndTraceRecordsToIt() async throws {
    let log = LogCapture()
    let networking = Networking<Probe>(
      transport: .custom(Self.makeStubbedTransport()),
      logger: log.makeLogger(label: "com.example.app")
    )
    #expect(networking.logger !== Malibu.logger)
    #expect(networking.logger.level == .info)

    _ = try await networking.request(Self.request("boards")).validate().decode(using: [Board].self).value
    _ = await outcome(networking.request(Self.request("down")))

    let records = log.all
    #expect(records.map(\.message) == ["request sent", "response received", "request sent", "request failed"])
    #expect(records.map(\.level) == [.trace, .debug, .trace, .debug])
    #expect(records.allSatisfy { $0.label == "com.example.app" })
    let response = try #require(records.dropFirst().first)
    #expect(response.values[LogMetadataKey.method] == "GET")
    #expect(response.values[LogMetadataKey.url] == "http://127.0.0.1:8080/api/boards?access_token=<redacted>")
    #expect(response.values[LogMetadataKey.status] == "200")
    #expect(response.values[LogMetadataKey.responseBodySize] == "\(boardsJSON.count)")
    #expect(response.values[LogMetadataKey.durationMilliseconds].flatMap(Double.init) != nil)
    let failure = try #require(records.last)
    #expect(failure.values[LogMetadataKey.errorCode] == "connectionRefused")
    #expect(records.allSatisfy { !$0.fullText.contains("\n") && !$0.fullText.contains(Self.secret) })
  }

  @Test func verboseRecordsCarryRedactedHeadersAndNeverASecret() async throws {
    let log = LogCapture()
    let networking = Networking<Probe>(
      transport: .custom(Self.makeStubbedTransport()),
      logger: log.makeLogger(label: "app")
    )
    networking.logger.level = .verbose
    let post = Probe(
      .post(
        "boards",
        parameters: ["title": "Balsa", "password": Self.secret],
        headers: ["Cookie": "id=\(Self.secret)"]
      )
    )
    _ = await outcome(networking.request(post))
    let sent = try #require(log.all.first)
    let headers = try #require(sent.values[LogMetadataKey.requestHeaders])
    #expect(headers.contains("<redacted>"))
    #expect(sent.values[LogMetadataKey.requestBodyPreview]?.contains("Balsa") == true)
    #expect(!log.all.isEmpty && log.all.allSatisfy { !$0.fullText.contains(Self.secret) }, "\(log.all)")
  }

  @Test func aRequestsOwnLoggerWinsForThatRequestOnly() async throws {
    let log = LogCapture()
    let networking = Networking<Probe>(
      transport: .custom(Self.makeStubbedTransport()),
      logger: log.makeLogger(label: "networking")
    )
    var perRequest = log.makeLogger(label: "request")
    perRequest[metadataKey: "request-id"] = "42"
    _ = await outcome(networking.request(Self.request("missing"), logger: perRequest).validate())
    #expect(log.all.map(\.label) == ["request", "request", "request"])
    #expect(log.all.map(\.message) == ["request sent", "response received", "request failed"])
    #expect(log.all.allSatisfy { $0.values["request-id"] == "42" })
    #expect(log.all.last?.values[LogMetadataKey.errorCode] == "unacceptableStatusCode")

    // The networking's own logger is untouched: the next request goes to it.
    _ = try await networking.request(Self.request("boards")).value
    #expect(log.all.map(\.label).suffix(2) == ["networking", "networking"])
  }

  /// A request's own logger asks for records even when the networking's level is `none` (Malibu.logger's default).
  @Test func aRequestsOwnLoggerLogsAtInfoAtLeast() async throws {
    let log = LogCapture()
    let networking = Networking<Probe>(transport: .custom(Self.makeStubbedTransport()))
    networking.logger = NetworkLogger(level: .none)
    _ = try await networking.request(Self.request("boards"), logger: log.makeLogger(label: "request")).value
    #expect(log.all.map(\.message) == ["request sent", "response received"])
    #expect(networking.logger.level == .none)
  }

  /// `validate()`, `toX()` and `decode()` failures reach the networking's logger, not `Malibu.logger`.
  @Test(arguments: ["validate", "toJsonDictionary", "decode"])
  func checkAndConversionFailuresReachTheNetworkingsLogger(step: String) async throws {
    let log = LogCapture()
    let networking = Networking<Probe>(
      transport: .custom(Self.makeStubbedTransport()),
      logger: log.makeLogger(label: "networking")
    )
    networking.logger.level = .error
    let path = step == "validate" ? "missing" : "boards"
    let promise = networking.request(Self.request(path))
    let error: NetworkError?
    switch step {
    case "validate": error = await networkError(promise.validate())
    case "toJsonDictionary": error = await networkError(promise.toJsonDictionary())
    default: error = await networkError(promise.decode(using: Board.self))
    }
    let expected: [String: NetworkError.Code] = [
      "validate": .unacceptableStatusCode, "toJsonDictionary": .unexpectedJSONShape, "decode": .decodingFailed,
    ]
    #expect(error?.code == expected[step])
    let failures = log.all.filter { $0.message == "request failed" }
    #expect(failures.count == 1, "\(log.all)")
    #expect(failures.first?.level == .debug)
    #expect(failures.first?.values[LogMetadataKey.url] == "http://127.0.0.1:8080/api/\(path)?access_token=<redacted>")
    #expect(failures.first?.values[LogMetadataKey.errorCode] == expected[step]?.description)
    #expect(log.all.allSatisfy { !$0.fullText.contains(Self.secret) })

    // The same networking then serves a good request, and logs nothing more at level error.
    let boards = try await networking.request(Self.request("boards")).validate().decode(using: [Board].self).value
    #expect(boards.count == 2)
    #expect(log.all.count == failures.count)
  }

  @Test func levelNoneWritesNothingToTheApplicationsLogger() async throws {
    let log = LogCapture()
    let networking = Networking<Probe>(
      transport: .custom(Self.makeStubbedTransport()),
      logger: log.makeLogger(label: "app")
    )
    networking.logger.level = .none
    _ = try await networking.request(Self.request("boards")).validate().decode(using: [Board].self).value
    _ = await outcome(networking.request(Self.request("down")))
    _ = await outcome(networking.request(Self.request("missing")).validate())
    _ = await outcome(networking.request(Self.request("boards")).decode(using: Board.self))
    #expect(log.all.isEmpty)
    networking.logger.level = .error
    _ = await outcome(networking.request(Self.request("down")))
    #expect(log.all.count == 1, "the same networking logs once its level allows")
  }
}
