import Foundation
import HTTPTypes
import Malibu
import MalibuTestSupport
import MalibuTransport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Downloads against hostile servers and hostile files, on both transports: a server that ignores `If-Range`
/// (`/download/ignores-if-range` of the fault server), a body that never ends (`/download/endless`), a size announced
/// past the limit (nginx), and a FIFO or a hard link planted beside the destination. Each ends with a normal request
/// on the same transport.
@Suite("Downloads from hostile servers and into hostile directories", .serialized)
struct DownloadHostileServerTests {
  typealias Folder = DownloadAndStreamTests.Folder

  /// Version 1 (100,000 bytes) and version 2 (200,000 bytes) of `/download/ignores-if-range` (see faults.py).
  static let version1 = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
  static let version2 = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 17 &+ 3) })

  /// The good request after a fault: the transport still serves.
  private func stillServes(_ backend: Backend) async throws {
    let ok = try await backend.exchange(Servers.faults("/ok"))
    #expect(ok.head.status == .ok)
    #expect(String(decoding: ok.data, as: UTF8.self) == "ok")
  }

  /// Try 1: `200`, `ETag: "v1"`, 50,000 of 100,000 bytes, then FIN. Try 2 sends `Range: bytes=50000-` and
  /// `If-Range: "v1"`; the server ignores `If-Range` and answers `206`, `ETag: "v2"`,
  /// `Content-Range: bytes 50000-199999/200000`. The download restarts: the file is version 2 whole, not
  /// v1[0..<50000] + v2[50000...].
  @Test(arguments: Backend.allCases)
  func aServerThatIgnoresIfRangeGetsARestartNotASplice(_ backend: Backend) async throws {
    let folder = try Folder()
    let url = try await Servers.faults("/download/ignores-if-range?key=\(backend.rawValue)-\(UUID())")
    let request = HTTPRequest(method: .get, url: url)
    await #expect(throws: TransportError.self) {
      try await backend.transport.download(request, to: folder.destination, resume: true)
    }
    #expect(try Data(contentsOf: folder.partial) == Self.version1.prefix(50_000))

    let file = try await backend.transport.download(request, to: folder.destination, resume: true)
    #expect(file.head.status == .ok)
    #expect(!file.isResumed)
    #expect(file.byteCount == 200_000)
    let written = try Data(contentsOf: folder.destination)
    #expect(
      written == Self.version2,
      "a splice of v1 and v2: \(written.prefix(50_000) == Self.version1.prefix(50_000))"
    )
    #expect(folder.names == ["file.bin"])
    try await stillServes(backend)
  }

  /// A chunked body that never ends, with a 1 MiB limit: the download stops at the limit with `bodyTooLarge`
  /// (through Networking too), leaving nothing behind without resume.
  @Test(arguments: Backend.allCases)
  func anEndlessBodyStopsAtTheLimit(_ backend: Backend) async throws {
    let folder = try Folder()
    // 16 KiB every 2 ms (about 8 MB/s): endless, but not a fire hose. At full loopback speed, URLSession on Linux
    // was once seen not to answer the next request within 30 s after the cancel, on a loaded machine (FoundationNetworking
    // keeps receiving for a cancelled task; stopping URLSession's reads is another part of issue 31).
    let url = try await Servers.faults("/download/endless?size=16384&interval=0.002")
    let destination = folder.destination
    let transport = backend.transport
    let started = ContinuousClock.now
    let error = await #expect(throws: DownloadError.self) {
      try await transport.download(HTTPRequest(method: .get, url: url), to: destination, maxBytes: 1 << 20)
    }
    #expect(error?.code == .bodyTooLarge, "\(String(describing: error))")
    #expect(ContinuousClock.now - started < .seconds(60), "does not run on")
    #expect(folder.names.isEmpty)

    let networking = Networking<AbsoluteEndpoint>(transport: .custom(transport))
    do {
      _ = try await networking.download(AbsoluteEndpoint(url), to: destination, resume: true, maxBytes: 1 << 20).value
      Issue.record("an endless body was downloaded")
    } catch let error as NetworkError {
      #expect((error.underlyingError as? DownloadError)?.code == .bodyTooLarge, "\(error)")
    }
    #expect(!FileManager.default.fileExists(atPath: destination.path))
    let kept = (try? FileManager.default.attributesOfItem(atPath: folder.partial.path)[.size] as? Int) ?? 0
    #expect(kept <= 1 << 20)
    try await stillServes(backend)
  }

  /// nginx announces 1 MiB with `Content-Length`; a 1,000-byte limit refuses it before a byte is written. The same
  /// download within its limit then works.
  @Test(arguments: Backend.allCases)
  func anAnnouncedSizePastTheLimitIsRefusedUpFront(_ backend: Backend) async throws {
    let folder = try Folder()
    let request = HTTPRequest(method: .get, url: try await Servers.nginx("/identity/1m.bin"))
    let error = await #expect(throws: DownloadError.self) {
      try await backend.transport.download(request, to: folder.destination, maxBytes: 1000)
    }
    #expect(error?.code == .bodyTooLarge)
    #expect(error?.message.contains("1048576") == true, "\(String(describing: error))")
    #expect(folder.names.isEmpty)
    let file = try await backend.transport.download(request, to: folder.destination, maxBytes: 1 << 20)
    #expect(try Data(contentsOf: file.location) == StaticContent.data(of: StaticContent.medium))
  }

  /// A FIFO planted as the partial file's record used to block the download in `open(2)` before any request. It now
  /// fails the download at once with `untrustedFile`, nothing sent and the FIFO left; a hard link planted as the
  /// partial file is refused the same way, never appended through, and the file it shares is left as it was.
  @Test(arguments: Backend.allCases)
  func plantedSidecarsNeitherHangNorWriteThrough(_ backend: Backend) async throws {
    let folder = try Folder()
    let record = folder.url.appendingPathComponent("file.bin.partial.resume")
    let request = HTTPRequest(method: .get, url: try await Servers.nginx("/identity/1k.bin"))
    let expected = StaticContent.data(of: StaticContent.small)

    try expected.prefix(100).write(to: folder.partial)
    #expect(mkfifo(record.path, 0o600) == 0)
    let transport = backend.transport
    let destination = folder.destination
    let (stream, continuation) = AsyncStream<Result<DownloadedFile, any Error>?>.makeStream()
    Task {
      do {
        continuation.yield(.success(try await transport.download(request, to: destination, resume: true)))
      } catch {
        continuation.yield(.failure(error))
      }
    }
    let timer = Task {
      try? await Task.sleep(for: .seconds(30))
      continuation.yield(nil)
    }
    var first: Result<DownloadedFile, any Error>??
    for await outcome in stream {
      first = outcome
      break
    }
    timer.cancel()
    let outcome = try #require(first ?? nil, "the download hung on the FIFO")
    #expect(throws: DownloadError.self) { try outcome.get() }
    if case .failure(let error as DownloadError) = outcome {
      #expect(error.code == .untrustedFile, "\(error)")
      #expect(error.message.contains("file.bin.partial.resume"), "\(error)")
    }
    #expect(folder.names == ["file.bin.partial", "file.bin.partial.resume"], "nothing written, the FIFO left")

    // Once the planted file is gone, the download starts from the first byte.
    try FileManager.default.removeItem(at: record)
    let file = try await transport.download(request, to: destination, resume: true)
    #expect(!file.isResumed)
    #expect(try Data(contentsOf: destination) == expected)
    #expect(folder.names == ["file.bin"])

    let victim = folder.url.appendingPathComponent("victim.txt")
    try Data("victim".utf8).write(to: victim)
    #expect(link(victim.path, folder.partial.path) == 0)
    try Data(#"{"version":1,"resource":"x","validator":"\"v1\""}"#.utf8).write(to: record)
    await #expect {
      try await transport.download(request, to: destination, resume: true)
    } throws: {
      ($0 as? DownloadError)?.code == .untrustedFile
    }
    #expect(try Data(contentsOf: victim) == Data("victim".utf8))
    #expect(try Data(contentsOf: destination) == expected, "the earlier download is untouched")
    try await stillServes(backend)
  }
}
