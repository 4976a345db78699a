import Foundation
import HTTPTypes
import MalibuCore
import MalibuTransport
import Testing

@testable import MalibuStorage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `operation` on another thread, failing the test (instead of hanging it) when it has not finished within
/// `seconds`: a blocked `open(2)` cannot be cancelled, so it is left behind rather than awaited.
private func finishing<T: Sendable>(
  within seconds: Int = 20,
  sourceLocation: SourceLocation = #_sourceLocation,
  _ operation: @escaping @Sendable () throws -> T
) async throws -> T {
  let (stream, continuation) = AsyncStream<Result<T, any Error>?>.makeStream()
  Thread.detachNewThread {
    continuation.yield(Result { try operation() })
  }
  let timer = Task {
    try? await Task.sleep(for: .seconds(seconds))
    continuation.yield(nil)
  }
  defer { timer.cancel() }
  for await outcome in stream {
    guard let outcome else { break }
    return try outcome.get()
  }
  Issue.record("did not finish within \(seconds) s: it hangs", sourceLocation: sourceLocation)
  throw CancellationError()
}

/// The HTTP cache's salt and record files and the cookie file are untrusted: a FIFO or a symbolic link planted under
/// their names is refused at once (never waited on, never followed, never written through), and the next normal
/// operation works.
@Suite struct UntrustedStorageFileTests {
  private static func send(_ transport: any Transport) async throws -> (HTTPResponse, Data) {
    let head = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:9", path: "/boards")
    let response = try await transport.send(head, body: nil, options: TransferOptions())
    return (response.head, try await response.body.collect(upTo: 1 << 20))
  }

  private static func server() -> FakeTransport {
    FakeTransport { _ in
      (responseHead(.ok, [("ETag", "\"v\""), ("Cache-Control", "max-age=600")]), Data("network".utf8))
    }
  }

  /// Stores one response in a cache on `directory`; returns the record file's URL.
  private static func storeOne(in directory: URL) async throws -> URL {
    _ = try await send(server().with(middleware: [CacheMiddleware(cache: HTTPCache(directory: directory))]))
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }
    return directory.appendingPathComponent(try #require(names.first))
  }

  enum Plant: String, CaseIterable, Sendable {
    case fifo, symbolicLink

    /// Puts a FIFO, or a link to `victim`, at `file`.
    func put(at file: URL, victim: URL) throws {
      try? FileManager.default.removeItem(at: file)
      switch self {
      case .fifo: #expect(mkfifo(file.path, 0o600) == 0)
      case .symbolicLink: try FileManager.default.createSymbolicLink(at: file, withDestinationURL: victim)
      }
    }
  }

  @Test(arguments: Plant.allCases)
  func aPlantedSaltIsReplacedWithoutWaitingOrFollowing(_ plant: Plant) async throws {
    let directory = makeTemporaryDirectory()
    let victim = makeTemporaryDirectory().appendingPathComponent("victim")
    try Data(repeating: 7, count: 32).write(to: victim)
    try plant.put(at: directory.appendingPathComponent(HTTPCache.saltFileName), victim: victim)
    let cache = try await finishing { HTTPCache(directory: directory) }
    #expect(cache.count == 0)
    // A new salt replaced the name (not the file a link pointed to), and the cache stores and reloads as before.
    #expect(try Data(contentsOf: victim) == Data(repeating: 7, count: 32))
    let salt = try UntrustedFile.read(directory.appendingPathComponent(HTTPCache.saltFileName), limit: 64)
    #expect(salt.data.count == 32)
    _ = try await Self.send(Self.server().with(middleware: [CacheMiddleware(cache: cache)]))
    #expect(HTTPCache(directory: directory).count == 1)
  }

  @Test(arguments: Plant.allCases)
  func aPlantedRecordIsDroppedWithoutWaitingOrFollowing(_ plant: Plant) async throws {
    let directory = makeTemporaryDirectory()
    let record = try await Self.storeOne(in: directory)
    // A good record elsewhere, linked into place: it is still not read through the link.
    let victim = makeTemporaryDirectory().appendingPathComponent("victim.json")
    try FileManager.default.copyItem(at: record, to: victim)
    let before = try Data(contentsOf: victim)
    try plant.put(at: record, victim: victim)
    let cache = try await finishing { HTTPCache(directory: directory) }
    #expect(cache.count == 0)
    #expect(!FileManager.default.fileExists(atPath: record.path))
    #expect(try Data(contentsOf: victim) == before)
    // The request goes to the network, and its answer is stored as a regular file again.
    let server = Self.server()
    _ = try await Self.send(server.with(middleware: [CacheMiddleware(cache: cache)]))
    #expect(server.requests.count == 1)
    #expect(try UntrustedFile.read(record, limit: 1 << 20).data.count > 0)
    #expect(HTTPCache(directory: directory).count == 1)
  }

  @Test(arguments: Plant.allCases)
  func aPlantedCookieFileIsRefusedAtOnce(_ plant: Plant) async throws {
    let directory = makeTemporaryDirectory()
    let file = directory.appendingPathComponent("cookies.json")
    let victim = directory.appendingPathComponent("elsewhere.json")
    try Data(#"{"version":1,"cookies":[\#(CookiePersistenceTests.entry())]}"#.utf8).write(to: victim)
    let before = try Data(contentsOf: victim)
    try plant.put(at: file, victim: victim)
    let jar = try await finishing { CookieJar(fileURL: file) }
    let error = try #require(jar.loadError)
    #expect([StorageError.Code.corruptEntry, .ioFailed].contains(error.code), "\(error)")
    #expect(jar.all.isEmpty)
    // The next save replaces the name, never writing through the link.
    let url = try #require(URL(string: "http://example.com/"))
    jar.store(setCookie: ["fresh=1; Max-Age=60"], from: url)
    #expect(jar.saveError == nil)
    #expect(try Data(contentsOf: victim) == before)
    #expect(CookieJar(fileURL: file).cookieHeader(for: url) == "fresh=1")
  }
}
