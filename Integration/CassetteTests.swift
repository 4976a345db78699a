import Foundation
import HTTPTypes
import Malibu
import MalibuMocking
import MalibuTransport
import Testing

/// Record/replay on both transports: real traffic from a spare httpbin and nginx recorded to a cassette, the
/// httpbin stopped, then replayed with no network: the same values, header fields and bytes; no secret in any file;
/// the same traffic recorded twice gives the same files.
@Suite("Cassettes")
struct CassetteTests {
  static let token = "t0ken-abcdefgh-1234"
  static let password = "hunter2-correct-horse"
  static let cookie = "c00kie-value-5678"

  /// The traffic: a GET with a token in its query and header, a POST of JSON with a password, a cookie echoed back,
  /// a 1 MiB download from nginx, and a collected stream of JSON lines.
  static func traffic(httpbin: URL, nginx: URL) -> [(HTTPRequest, Data?)] {
    func request(_ method: HTTPRequest.Method, _ base: URL, _ path: String, _ fields: HTTPFields = [:]) -> HTTPRequest {
      var request = HTTPRequest(method: method, url: URL(string: path, relativeTo: base)!.absoluteURL)
      request.headerFields = fields
      return request
    }
    return [
      (request(.get, httpbin, "/get?b=2&a=1&token=\(token)", [.authorization: "Bearer \(token)"]), nil),
      (
        request(.post, httpbin, "/post", [.contentType: "application/json"]),
        Data(#"{"password":"\#(password)","title":"Balsa"}"#.utf8)
      ),
      (request(.get, httpbin, "/headers", [.cookie: "session=\(cookie)"]), nil),
      (request(.get, httpbin, "/stream/5"), nil),
      (request(.get, nginx, "/identity/1m.bin"), nil),
    ]
  }

  static func exchange(
    _ transport: any Transport,
    _ request: HTTPRequest,
    _ body: Data?
  ) async throws -> (
    HTTPResponse, Data
  ) {
    let response = try await transport.send(request, body: body.map(RequestBody.data), options: TransferOptions())
    return (response.head, try await response.body.collect(upTo: 16 << 20))
  }

  /// What the cassette keeps of a body: every secret the traffic sent, and so the server echoed, redacted.
  static func redacted(_ data: Data) -> Data {
    var text = String(decoding: data, as: UTF8.self)
    guard text.contains(token) || text.contains(password) || text.contains(cookie) else { return data }
    for secret in ["Bearer \(token)", "session=\(cookie)", token, password, cookie] {
      text = text.replacingOccurrences(of: secret, with: "<redacted>")
    }
    return Data(text.utf8)
  }

  /// The same bytes, or the same JSON value (a body whose secret members were redacted is written with sorted keys).
  static func same(_ replayed: Data, _ expected: Data) -> Bool {
    if replayed == expected { return true }
    guard let left = try? JSONSerialization.jsonObject(with: replayed) as? NSDictionary,
      let right = try? JSONSerialization.jsonObject(with: expected) as? NSDictionary
    else { return false }
    return left.isEqual(to: right as? [AnyHashable: Any] ?? [:])
  }

  static func files(in directory: URL) throws -> [String: Data] {
    var files: [String: Data] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
      files[name] = try Data(contentsOf: directory.appendingPathComponent(name))
    }
    return files
  }

  @Test("record against httpbin and nginx, stop httpbin, replay the same values", arguments: Backend.allCases)
  func recordStopReplay(_ backend: Backend) async throws {
    let port = try #require(LoopbackSocket.freePort())
    let spare = try await SpareHttpbin.start(port: port)
    var spareRunning = true
    defer { if spareRunning { spare.stop() } }
    let httpbin = URL(string: "http://127.0.0.1:\(port)")!
    let nginx = try await Servers.nginx("/")
    let folder = try TemporaryDirectory("malibu-cassette")
    defer { folder.remove() }
    let first = folder.url.appendingPathComponent("first")
    let second = folder.url.appendingPathComponent("second")
    let streamed = folder.url.appendingPathComponent("streamed")

    // Recorded twice: the files are the same bytes.
    var recorded: [(HTTPResponse, Data)] = []
    for directory in [first, second] {
      let cassette = CassetteTransport(recording: directory, through: backend.transport)
      recorded = []
      for (request, body) in Self.traffic(httpbin: httpbin, nginx: nginx) {
        recorded.append(try await Self.exchange(cassette, request, body))
      }
      let download = folder.url.appendingPathComponent("recorded.bin")
      _ = try await cassette.download(
        HTTPRequest(method: .get, url: nginx.appendingPathComponent("identity/1k.bin")),
        to: download
      )
    }
    #expect(try Self.files(in: first) == Self.files(in: second))
    #expect(try Self.files(in: first).count == 12)

    // A stream, chunk by chunk with its timing.
    let timed = CassetteTransport(recording: streamed, through: backend.transport, options: .init(recordsTiming: true))
    var chunks: [Data] = []
    let stream = try await timed.send(
      HTTPRequest(method: .get, url: httpbin.appendingPathComponent("drip")).with(
        query: "numbytes=5&duration=1&delay=0"
      ),
      body: nil,
      options: .init()
    )
    for try await chunk in stream.body { chunks.append(chunk) }
    #expect(chunks.reduce(0) { $0 + $1.count } == 5)

    spare.stop()
    spareRunning = false
    // httpbin is gone: a real request to it now fails.
    await #expect(throws: TransportError.self) {
      _ = try await Self.exchange(
        backend.transport,
        HTTPRequest(method: .get, url: httpbin.appendingPathComponent("get")),
        nil
      )
    }

    let replay = CassetteTransport(replaying: first)
    for ((request, body), (head, data)) in zip(Self.traffic(httpbin: httpbin, nginx: nginx), recorded) {
      let (replayedHead, replayedData) = try await Self.exchange(replay, request, body)
      #expect(replayedHead.status == head.status)
      #expect(Self.same(replayedData, Self.redacted(data)), "\(request.path ?? "")")
      for field in head.headerFields where field.name != .date {
        #expect(replayedHead.headerFields[values: field.name].contains(field.value), "\(field.name): \(field.value)")
      }
    }
    // The download is written as the original, byte for byte.
    let destination = folder.url.appendingPathComponent("replayed.bin")
    let file = try await replay.download(
      HTTPRequest(method: .get, url: nginx.appendingPathComponent("identity/1k.bin")),
      to: destination
    )
    #expect(file.byteCount == 1024)
    #expect(try Data(contentsOf: destination) == Data(StaticContent.bytes(in: 0..<1024)))

    // The stream's chunks, in order.
    var replayedChunks: [Data] = []
    let replayedStream = try await CassetteTransport(replaying: streamed).send(
      HTTPRequest(method: .get, url: httpbin.appendingPathComponent("drip")).with(
        query: "numbytes=5&duration=1&delay=0"
      ),
      body: nil,
      options: .init()
    )
    for try await chunk in replayedStream.body { replayedChunks.append(chunk) }
    #expect(replayedChunks == chunks)
    // Its timing, as the transport measured it, comes back as the response's metrics.
    let timing = try #require(try CassetteTransport(replaying: streamed).recordings().first?.recording.response?.timing)
    #expect(timing.firstByte != nil && timing.total != nil)
    #expect(replayedStream.metrics?.firstByte == timing.firstByte.map { .milliseconds($0) })

    // No secret in any file of the cassettes.
    for directory in [first, streamed] {
      for (name, data) in try Self.files(in: directory) {
        let text = String(decoding: data, as: UTF8.self)
        for secret in [Self.token, Self.password, Self.cookie] {
          #expect(!text.contains(secret), "\(secret) in \(name)")
        }
      }
    }

    // A request the cassette lacks names the nearest recording.
    let error = await #expect(throws: TransportError.self) {
      _ = try await Self.exchange(replay, HTTPRequest(method: .get, url: httpbin.appendingPathComponent("get")), nil)
    }
    #expect(error?.message.contains("the nearest is 0001-GET-get.json") == true, "\(error?.message ?? "")")
  }

  @Test(
    "a networking over a replaying cassette runs its hooks: validation, decoding, and a missing recording fails as a transport failure"
  )
  func facadeReplay() async throws {
    let server = try await Servers.httpbin("/")
    let folder = try TemporaryDirectory("malibu-cassette-facade")
    defer { folder.remove() }
    let url = server.appendingPathComponent("json")
    let recording = Networking<AbsoluteEndpoint>(
      transport: .custom(CassetteTransport(recording: folder.url, through: Backend.curl.transport))
    )
    let recorded = try await recording.request(AbsoluteEndpoint(url)).validate().toData().value
    let replaying = Networking<AbsoluteEndpoint>(transport: .custom(CassetteTransport(replaying: folder.url)))
    let replayed = try await replaying.request(AbsoluteEndpoint(url)).validate().toData().value
    #expect(replayed == recorded && !recorded.isEmpty)
    let again = Networking<AbsoluteEndpoint>(transport: .custom(CassetteTransport(replaying: folder.url)))
    let slideshow = try await again.request(AbsoluteEndpoint(url)).validate().toJsonDictionary().value
    #expect(slideshow["slideshow"] != nil)
    // A request with no recording fails as a transport failure, naming the nearest one.
    let missing = await networkError(
      replaying.request(AbsoluteEndpoint(server.appendingPathComponent("xml"))).validate()
    )
    #expect(missing?.code == .transportFailed)
    #expect("\(missing.map { "\($0)" } ?? "")".contains("0001-GET-json.json"))
  }
}

extension HTTPRequest {
  /// The request with `query` as its URL's query.
  fileprivate func with(query: String) -> HTTPRequest {
    var request = self
    request.path = (path ?? "/") + "?" + query
    return request
  }
}
