import Foundation
import HTTPTypes
import MalibuCore
import MalibuMocking
import MalibuTransport
import Synchronization
import Testing

/// Record/replay against a `MockTransport` standing in for the network: what is written, what is replayed, what is
/// redacted, how requests match, and what a hostile cassette gets.
@Suite("CassetteTransport")
struct CassetteTransportTests {
  static let secretToken = "s3cr3t-t0ken-value"

  /// A server that echoes: `/echo` answers with the request's headers and body as JSON, `/set-cookie` sets one.
  static func server() -> MockTransport {
    let server = MockTransport()
    server.stub(.get, "/users") { _ in
      MockTransport.Reply(
        headerFields: [
          .contentType: "application/json", .init("X-Page")!: "1", .date: "Sat, 28 Nov 2026 10:00:00 GMT",
        ],
        body: Data(#"[{"id":1,"name":"Ann"}]"#.utf8)
      )
    }
    server.stub(.post, "/echo") { request in
      let echoed: [String: String] = [
        "authorization": request.headerFields[.authorization] ?? "",
        "body": String(decoding: request.body ?? Data(), as: UTF8.self),
      ]
      let json = try JSONSerialization.data(withJSONObject: echoed, options: [.sortedKeys])
      return MockTransport.Reply(
        headerFields: [.contentType: "application/json", .setCookie: "session=c00k1e-value; Path=/"],
        body: json
      )
    }
    server.stub(.get, "/missing", status: .notFound)
    server.stub(.get, "/reset", error: TransportError(code: .connectionReset, message: "reset by peer"))
    return server
  }

  static func collect(
    _ transport: any Transport,
    _ request: HTTPRequest,
    body: Data? = nil
  ) async throws -> (
    HTTPResponse, Data
  ) {
    let response = try await transport.send(request, body: body.map(RequestBody.data), options: TransferOptions())
    return (response.head, try await response.body.collect(upTo: 1 << 20))
  }

  static func files(in directory: URL) throws -> [String: Data] {
    var files: [String: Data] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
      files[name] = try Data(contentsOf: directory.appendingPathComponent(name))
    }
    return files
  }

  /// Records the traffic every test replays: a GET, a POST with secrets, a 404 and a reset.
  static func recordTraffic(into directory: URL) async throws {
    let cassette = CassetteTransport(recording: directory, through: server())
    _ = try await collect(cassette, makeRequest(.get, "/users?page=1&size=10"))
    _ = try await collect(
      cassette,
      makeRequest(
        .post,
        "/echo?token=\(secretToken)",
        fields: [.authorization: "Bearer \(secretToken)", .contentType: "application/json"]
      ),
      body: Data(#"{"password":"hunter2-pass","user":"ann"}"#.utf8)
    )
    _ = try await collect(cassette, makeRequest(.get, "/missing"))
    await #expect(throws: TransportError.self) { try await collect(cassette, makeRequest(.get, "/reset")) }
  }

  @Test("a recording replays the same status, header fields and body, with no transport behind it")
  func recordThenReplay() async throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    try await Self.recordTraffic(into: directory)
    #expect(
      try Self.files(in: directory).keys.sorted() == [
        "0001-GET-users.body", "0001-GET-users.json", "0002-POST-echo.body", "0002-POST-echo.json",
        "0003-GET-missing.json", "0004-GET-reset.json",
      ]
    )

    let replay = CassetteTransport(replaying: directory)
    // The query's parameters in another order still match.
    let (head, body) = try await Self.collect(replay, makeRequest(.get, "/users?size=10&page=1"))
    #expect(head.status == .ok)
    #expect(head.headerFields[.contentType] == "application/json")
    #expect(head.headerFields[HTTPField.Name("X-Page")!] == "1")
    #expect(head.headerFields[.date] == nil)
    #expect(body == Data(#"[{"id":1,"name":"Ann"}]"#.utf8))

    let (missing, empty) = try await Self.collect(replay, makeRequest(.get, "/missing"))
    #expect(missing.status == .notFound && empty.isEmpty)

    let error = await caughtError { _ = try await Self.collect(replay, makeRequest(.get, "/reset")) }
    let reset = try #require(error as? TransportError)
    #expect(reset.code == .connectionReset && reset.message == "reset by peer")
  }

  @Test("no secret reaches a cassette file: header, query, JSON member, echoed token, cookie")
  func secretsNeverReachTheDisk() async throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    try await Self.recordTraffic(into: directory)
    for (name, data) in try Self.files(in: directory) {
      let text = String(decoding: data, as: UTF8.self)
      for secret in [Self.secretToken, "hunter2-pass", "c00k1e-value"] {
        #expect(!text.contains(secret), "\(secret) in \(name)")
      }
    }
    let entry = try #require(try Self.files(in: directory)["0002-POST-echo.json"])
    let recording = try CassetteRecording.decode(entry, entryName: "0002-POST-echo.json")
    #expect(recording.request.url == "http://127.0.0.1:8080/echo?token=<redacted>")
    #expect(recording.request.headers.first { $0.name == "Authorization" }?.value == "<redacted>")
    #expect(recording.request.body?.text == #"{"password":"<redacted>","user":"ann"}"#)
    #expect(recording.response?.headers.first { $0.name == "Set-Cookie" }?.value == "<redacted>")

    // A request with another token and password still matches: both sides are redacted alike.
    let replay = CassetteTransport(replaying: directory)
    let (head, _) = try await Self.collect(
      replay,
      makeRequest(
        .post,
        "/echo?token=another-token-1",
        fields: [.authorization: "Bearer another-token-1", .contentType: "application/json"]
      ),
      body: Data(#"{"password":"other-password","user":"ann"}"#.utf8)
    )
    #expect(head.status == .ok)
  }

  @Test("the same traffic recorded twice gives byte-identical files")
  func byteIdentical() async throws {
    let first = try makeTemporaryDirectory()
    let second = try makeTemporaryDirectory()
    defer {
      try? FileManager.default.removeItem(at: first)
      try? FileManager.default.removeItem(at: second)
    }
    try await Self.recordTraffic(into: first)
    try await Self.recordTraffic(into: second)
    #expect(try Self.files(in: first) == Self.files(in: second))
    // Recording again into the same directory replaces what was there.
    try await Self.recordTraffic(into: first)
    #expect(try Self.files(in: first) == Self.files(in: second))
  }

  @Test("an unmatched request fails and names the nearest recording and what differs")
  func unmatchedNamesTheNearest() async throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    try await Self.recordTraffic(into: directory)
    let replay = CassetteTransport(replaying: directory)
    let error = await caughtError { _ = try await Self.collect(replay, makeRequest(.get, "/users?page=2&size=10")) }
    let transportError = try #require(error as? TransportError)
    let cassetteError = try #require(transportError.underlyingError as? CassetteError)
    #expect(cassetteError.code == .unmatched)
    #expect(transportError.message.contains("the nearest is 0001-GET-users.json"))
    #expect(transportError.message.contains("the query (page=2&size=10 against page=1&size=10)"))

    let post = await caughtError {
      _ = try await Self.collect(replay, makeRequest(.post, "/echo"), body: Data("other".utf8))
    }
    #expect((post as? TransportError)?.message.contains("0002-POST-echo.json") == true)
    #expect((post as? TransportError)?.message.contains("the body (5 bytes") == true)
  }

  @Test("identical requests replay their recordings in recorded order, and no more often")
  func repeatsInOrder() async throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let server = MockTransport()
    let count = Counter()
    server.stub(.get, "/counter") { _ in
      let value = count.value.withLock { value in
        value += 1
        return value
      }
      return MockTransport.Reply(body: Data("\(value)".utf8))
    }
    let recording = CassetteTransport(recording: directory, through: server)
    for _ in 1...3 { _ = try await Self.collect(recording, makeRequest(.get, "/counter")) }

    let replay = CassetteTransport(replaying: directory)
    var bodies: [String] = []
    for _ in 1...3 {
      bodies.append(String(decoding: try await Self.collect(replay, makeRequest(.get, "/counter")).1, as: UTF8.self))
    }
    #expect(bodies == ["1", "2", "3"])
    let fourth = await caughtError { _ = try await Self.collect(replay, makeRequest(.get, "/counter")) }
    #expect((fourth as? TransportError)?.message.contains("its 3 recordings were replayed already") == true)
  }

  @Test("a matcher of one's own decides, and `.missing` records only what the cassette lacks")
  func matcherAndMissingMode() async throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    try await Self.recordTraffic(into: directory)
    let pathOnly = CassetteTransport.Options(matcher: { sent, recorded in
      sent.method == recorded.method && sent.url.prefix { $0 != "?" } == recorded.url.prefix { $0 != "?" }
    })
    let replay = CassetteTransport(replaying: directory, options: pathOnly)
    #expect(try await Self.collect(replay, makeRequest(.get, "/users?page=9")).0.status == .ok)

    let server = Self.server()
    let missing = CassetteTransport(recording: directory, through: server, mode: .missing)
    _ = try await Self.collect(missing, makeRequest(.get, "/users?page=1&size=10"))
    #expect(server.recordedRequests.isEmpty)
    _ = try await Self.collect(missing, makeRequest(.get, "/users?page=2"))
    #expect(server.recordedRequests.count == 1)
    #expect(try missing.recordings().map(\.name).last == "0005-GET-users.json")
  }

  @Test("a stream's chunks are recorded with their timing and replay in order, at once or at their pace")
  func streamChunks() async throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let chunks = ["data: one\n\n", "data: two\n\n", "data: three\n\n"].map { Data($0.utf8) }
    let server = ChunkedServer(chunks: chunks, pause: .milliseconds(40))
    let recording = CassetteTransport(
      recording: directory,
      through: server,
      options: .init(recordsTiming: true)
    )
    let request = makeRequest(.get, "/events")
    var received: [Data] = []
    for try await chunk in try await recording.send(request, body: nil, options: .init()).body {
      received.append(chunk)
    }
    #expect(received == chunks)
    let entry = try #require(try recording.recordings().first?.recording.response)
    let timing = try #require(entry.chunks)
    #expect(timing.map(\.size) == chunks.map(\.count))
    #expect(timing[2].milliseconds >= 60)

    for paced in [false, true] {
      let replay = CassetteTransport(replaying: directory, options: .init(replaysAtRecordedPace: paced))
      let clock = ContinuousClock()
      let start = clock.now
      var replayed: [Data] = []
      for try await chunk in try await replay.send(request, body: nil, options: .init()).body { replayed.append(chunk) }
      #expect(replayed == chunks)
      if paced { #expect(clock.now - start >= .milliseconds(timing[2].milliseconds)) }
    }
  }

  @Test("JSON bodies are pretty-printed only when asked, and `.appending` adds to what the cassette has")
  func prettyPrintingAndAppending() async throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let plain = CassetteTransport(recording: directory, through: Self.server())
    _ = try await Self.collect(plain, makeRequest(.get, "/users"))
    #expect(try Self.files(in: directory)["0001-GET-users.body"] == Data(#"[{"id":1,"name":"Ann"}]"#.utf8))

    let pretty = CassetteTransport(
      recording: directory,
      through: Self.server(),
      mode: .appending,
      options: .init(prettyPrintsJSON: true)
    )
    _ = try await Self.collect(pretty, makeRequest(.get, "/users"))
    let body = try #require(try Self.files(in: directory)["0002-GET-users.body"])
    #expect(String(decoding: body, as: UTF8.self).contains("\n"))
    let users = try #require(try JSONSerialization.jsonObject(with: body) as? [[String: Any]])
    #expect(users.count == 1 && users[0]["name"] as? String == "Ann" && (users[0]["id"] as? NSNumber)?.intValue == 1)
    #expect(try pretty.recordings().map(\.name) == ["0001-GET-users.json", "0002-GET-users.json"])
  }

  @Test("a cassette that cannot be written fails the body's reader with the file system's error")
  func unwritableCassette() async throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    // A regular file where the cassette's directory should be.
    let blocked = directory.appendingPathComponent("cassette")
    try Data("not a directory".utf8).write(to: blocked)
    let recording = CassetteTransport(recording: blocked, through: Self.server())
    let error = await caughtError { _ = try await Self.collect(recording, makeRequest(.get, "/users")) }
    let cassetteError = try #require((error as? TransportError)?.underlyingError as? CassetteError)
    #expect(cassetteError.code == .ioFailed)
    #expect(cassetteError.message.contains("the cassette cannot be written"))
    #expect(try Data(contentsOf: blocked) == Data("not a directory".utf8))
  }

  @Test("a replay-only cassette with no directory fails clearly")
  func missingDirectory() async throws {
    let replay = CassetteTransport(replaying: URL(fileURLWithPath: "/nonexistent/cassette-\(UUID().uuidString)"))
    let error = await caughtError { _ = try await Self.collect(replay, makeRequest(.get, "/users")) }
    #expect(((error as? TransportError)?.underlyingError as? CassetteError)?.code == .ioFailed)
  }
}

/// A transport whose body arrives in the given chunks, `pause` apart.
struct ChunkedServer: Transport {
  let chunks: [Data]
  let pause: Duration

  func send(_ request: HTTPRequest, body: RequestBody?, options: TransferOptions) async throws -> TransportResponse {
    let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
    let chunks = chunks
    let pause = pause
    Task {
      for chunk in chunks {
        continuation.yield(chunk)
        try? await Task.sleep(for: pause)
      }
      continuation.finish()
    }
    return TransportResponse(
      head: HTTPResponse(status: .ok, headerFields: [.contentType: "text/event-stream"]),
      url: request.url,
      body: ResponseBody(chunks: stream)
    )
  }
}

/// A count shared with a stub's handler.
final class Counter: Sendable {
  let value = Mutex(0)
}
