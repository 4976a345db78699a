import Foundation
import HTTPTypes
import MalibuCore
import MalibuTransport
import Testing

@testable import MalibuStorage

@Suite struct CacheDiskTests {
  private static func recordFiles(in directory: URL) -> [URL] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return names.filter { $0.hasSuffix(".json") }.map { directory.appendingPathComponent($0) }
  }

  private static func send(_ transport: any Transport, fields: [(String, String)] = []) async throws -> HTTPResponse {
    var head = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:9", path: "/boards")
    for (name, value) in fields { head.headerFields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
    let response = try await transport.send(head, body: nil, options: TransferOptions())
    _ = try await response.body.collect(upTo: 1 << 20)
    return response.head
  }

  /// `no-store`, from either side, writes nothing to the cache directory; a storable response (the control) does.
  @Test(
    arguments: [
      ("no-store", nil, false),
      ("private, no-store, max-age=60", nil, false),
      ("max-age=60", "no-store", false),
      ("max-age=60", nil, true),
    ] as [(String, String?, Bool)]
  )
  func noStoreIsNeverWrittenToDisk(response: String, request: String?, written: Bool) async throws {
    let directory = makeTemporaryDirectory()
    let server = FakeTransport { _ in
      (responseHead(.ok, [("ETag", "\"v\""), ("Cache-Control", response)]), Data("secret body".utf8))
    }
    let cache = HTTPCache(directory: directory)
    let transport = server.with(middleware: [CacheMiddleware(cache: cache)])
    _ = try await Self.send(transport, fields: request.map { [("Cache-Control", $0)] } ?? [])
    #expect(Self.recordFiles(in: directory).count == (written ? 1 : 0))
    #expect(cache.count == (written ? 1 : 0))
    #expect(HTTPCache(directory: directory).count == (written ? 1 : 0))
  }

  /// A record file damaged on disk is dropped when the cache opens: the request goes to the network (without a
  /// validator from the damaged record), its answer is stored afresh, and the cache then works as before.
  @Test(arguments: [
    "garbage", "empty", "truncated", "status out of range", "bad field name", "infinite age", "version 1",
    "not an object",
  ])
  func corruptRecordIsIgnoredAndTheRequestGoesToTheNetwork(damage: String) async throws {
    let directory = makeTemporaryDirectory()
    let server = FakeTransport { request in
      if request.headerFields[.ifNoneMatch] == "\"v\"" { return (responseHead(.notModified), Data()) }
      return (responseHead(.ok, [("ETag", "\"v\""), ("Cache-Control", "max-age=600")]), Data("network".utf8))
    }
    _ = try await Self.send(server.with(middleware: [CacheMiddleware(cache: HTTPCache(directory: directory))]))
    let file = try #require(Self.recordFiles(in: directory).first)
    let good = String(decoding: try Data(contentsOf: file), as: UTF8.self)
    let damaged: String
    switch damage {
    case "garbage": damaged = "\u{0}\u{1}not json at all"
    case "empty": damaged = ""
    case "truncated": damaged = String(good.prefix(good.count / 2))
    case "status out of range": damaged = good.replacingOccurrences(of: #""status":200"#, with: #""status":70000"#)
    case "bad field name": damaged = good.replacingOccurrences(of: #"["ETag","#, with: #"["Bad Name","#)
    case "infinite age":
      damaged = good.replacingOccurrences(
        of: #""initialAge":[^,}]*"#,
        with: #""initialAge":1e400"#,
        options: .regularExpression
      )
    case "version 1": damaged = good.replacingOccurrences(of: #""version":2"#, with: #""version":1"#)
    default: damaged = "[1, 2, 3]"
    }
    #expect(damaged != good)
    try Data(damaged.utf8).write(to: file)

    let reopened = HTTPCache(directory: directory)
    #expect(reopened.count == 0)
    let transport = server.with(middleware: [CacheMiddleware(cache: reopened)])
    let fromNetwork = try await Self.send(transport)
    #expect(fromNetwork.headerFields[CacheMiddleware.statusHeader] == nil)
    #expect(server.requests.count == 2)
    #expect(server.requests[1].headerFields[.ifNoneMatch] == nil)
    #expect(reopened.count == 1)
    let hit = try await Self.send(transport)
    #expect(hit.headerFields[CacheMiddleware.statusHeader] == CacheMiddleware.hit)
    #expect(HTTPCache(directory: directory).count == 1)
  }

  /// Records keyed with another salt (a lost or damaged salt file) can never be found again, so they are removed.
  @Test func aNewSaltDropsTheRecordsOfTheOldOne() async throws {
    let directory = makeTemporaryDirectory()
    let server = FakeTransport { _ in (responseHead(.ok, [("ETag", "\"v\"")]), Data("x".utf8)) }
    _ = try await Self.send(server.with(middleware: [CacheMiddleware(cache: HTTPCache(directory: directory))]))
    #expect(HTTPCache(directory: directory).count == 1)
    try Data("short".utf8).write(to: directory.appendingPathComponent(HTTPCache.saltFileName))
    #expect(HTTPCache(directory: directory).count == 0)
    #expect(Self.recordFiles(in: directory).isEmpty)
  }
}
