import Foundation
import Malibu
@_spi(Malibu) import MalibuCore
import Testing

/// README.md, compiled and partly run: the examples that only talk to `networking` (a `MockTransport`) or to mocks
/// run here; the others (a real transport, the default offline store, process-wide settings) are compiled only.
@Suite("README")
struct ReadmeTests {
  /// The package root, from this file's path (Tests/ReadmeTests/ReadmeTests.swift).
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  @Test func generatedFileMatchesTheReadme() throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", Self.root.appendingPathComponent("Tools/scripts/readme-snippets").path, "--check"]
    // The script's messages go to a file, read once it has exited: reading a pipe while the process runs can be
    // interrupted by a signal (EINTR), which Foundation's FileHandle on Linux turns into a crash.
    let log = FileManager.default.temporaryDirectory.appendingPathComponent("readme-check-\(UUID().uuidString).log")
    guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
      Issue.record("cannot create \(log.path)")
      return
    }
    defer { try? FileManager.default.removeItem(at: log) }
    let output = try FileHandle(forWritingTo: log)
    process.standardError = output
    process.standardOutput = output
    try process.run()
    process.waitUntilExit()
    try output.close()
    let message = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
    #expect(process.terminationStatus == 0, "\(message)")
  }

  @Test func requestExamplesRunAgainstAMockTransport() async throws {
    let fixtures = ReadmeFixtures()
    try await ReadmeFixtures.$current.withValue(fixtures) {
      try await readmeDescribeTheEndpoints()
      try await readmeNetworking2()  // the hooks: headers, beforeEach, preProcessRequest, middleware
      try await readmeMakingRequests()
      try await readmeMakingRequests2()
      try await readmeErrors()
      try await readmeAuthentication()
      try await readmeGzip()
      try await readmeTransferOptions()
      try await readmeCancellation()
    }
    let sent = fixtures.transport.recordedRequests
    let first = try #require(sent.first)
    #expect(first.path == "/api/boards?locale=en")
    #expect(first.headerFields[HTTPField.Name("X-Client")!] == "sharkywaters")
    #expect(first.headerFields[HTTPField.Name("X-Request-Source")!] == "app")
    #expect(first.headerFields[HTTPField.Name("X-Trace")!] == "on")
    #expect(first.headerFields[.accept] == "application/json")
    #expect(sent.contains { $0.path == "/api/boards/404?locale=en" })
    var redirects = RedirectPolicy.follow(max: 3)
    redirects.sensitiveFields = [HTTPField.Name("X-Api-Key")!]
    #expect(fixtures.networking.transferOptions.redirects == redirects)
  }

  /// "Decoders and encoders": Foundation's decoder for one call and for the networking, then MalibuJSON again.
  @Test func decoderExamplesRun() async throws {
    let fixtures = ReadmeFixtures()
    try await ReadmeFixtures.$current.withValue(fixtures) {
      try await readmeDecodersAndEncoders()
    }
    #expect(fixtures.networking.decoder is MalibuJSONDecoder)
    #expect(fixtures.networking.bodyEncoder is MalibuJSONEncoder)
    #expect(fixtures.transport.recordedRequests.map(\.path) == ["/api/boards/1"])
  }

  /// "Typed requests": a cat-images call, a lossy list whose skipped element reaches the failure hooks, a fallback,
  /// a GraphQL query and an interceptor, against the fixtures' `MockTransport`.
  @Test func typedRequestExamplesRun() async throws {
    let fixtures = ReadmeFixtures()
    let skipped = Locked<[String]>([])
    fixtures.networking.onFailure = { failure in
      if let error = failure.networkError, error.code == .skippedElements {
        skipped.withLock { $0.append(error.message) }
      }
    }
    try await ReadmeFixtures.$current.withValue(fixtures) {
      try await readmeTypedRequestsInUse()
      try await readmeTypedRequestsInUse2()
      try await readmeTypedRequestsInUse3()
      try await readmeTypedRequestsInUse4()
    }
    #expect(skipped.withLock { $0 }.count == 1)
    let sent = fixtures.transport.recordedRequests
    #expect(sent.first?.path == "/api/images/search?limit=2&mime_type=jpg%2Cpng")
    let graphQL = try #require(sent.first { $0.path == "/api/graphql" })
    let body = try #require(graphQL.body.map { String(decoding: $0, as: UTF8.self) })
    #expect(body.contains(#""operationName":"AllPosts""#))
    #expect(body.contains(#""variables":{"first":2}"#))
    // The interceptor's mock answered /api/boards/404; nothing was sent for it.
    #expect(!sent.contains { $0.path == "/api/boards/404" })
  }

  @Test func mockingExamplesRun() async throws {
    try await readmeMocking()
    try await readmeMocking2()
  }

  /// Record once against the fixtures' transport, stop it (every stub removed), and the replay still answers.
  @Test func recordAndReplayExampleRuns() async throws {
    let fixtures = ReadmeFixtures()
    defer { try? FileManager.default.removeItem(at: cassette) }
    try await ReadmeFixtures.$current.withValue(fixtures) {
      try await readmeRecordAndReplay()
      #expect(fixtures.transport.recordedRequests.map(\.path) == ["/api/boards"])
      fixtures.transport.reset()
      try await readmeRecordAndReplay2()
      #expect(fixtures.transport.recordedRequests.isEmpty)
    }
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: cassette.path).sorted() == [
        "0001-GET-api-boards.body", "0001-GET-api-boards.json",
      ]
    )
  }

  /// The scripted notification feed: a drop, a reconnection, then 204 (its `#expect` is in the README).
  @Test(.timeLimit(.minutes(1))) func scriptedEventStreamExampleRuns() async throws {
    try await readmeServerSentEvents3()
  }

  /// The results the README states in comments.
  @Test func statedResultsHold() async throws {
    let request = Request(
      method: .get,
      resource: "boards",
      contentType: .query,
      parameters: ["type": 1, "text": "classic"],
      headers: ["X-Board-Version": "2"]
    )
    let url = try request.adding(parameters: ["userId": "12345"], headers: ["X-Token": "abc"])
      .buildURL(baseUrl: SharkywatersEndpoint.baseUrl)
    #expect(url.absoluteString == "http://127.0.0.1:8080/api/boards?text=classic&type=1&userId=12345")

    let json = try JSONParameterEncoder().encode(parameters: ["title": "Balsa", "type": 1])
    #expect(json.map { String(decoding: $0, as: UTF8.self) } == #"{"title":"Balsa","type":1}"#)
    let form = try FormURLEncoder().encode(parameters: ["firstname": "John", "lastname": "Doe"])
    #expect(form.map { String(decoding: $0, as: UTF8.self) } == "firstname=John&lastname=Doe")

    // "Cancellation": a reply that never comes in time, so the requests are surely unfinished when cancelled.
    let slow = MockTransport(fallback: MockTransport.Reply(status: .ok, delay: .seconds(3600)))
    let networking = Networking<SharkywatersEndpoint>(transport: .custom(slow))
    let cancelled = networking.request(.fetchBoards)
    cancelled.cancel()
    await #expect(throws: CancellationError.self) { try await cancelled.value }
    let stopped = networking.request(.fetchBoards)
    networking.cancelAllRequests()
    let error = await #expect(throws: NetworkError.self) { try await stopped.value }
    #expect(error?.code == .cancelled)
  }
}
