import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuCore
import Testing

@testable import MalibuTransport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `operation`, failing the test (instead of hanging it) when it has not finished within `seconds`: a blocked
/// `open(2)` cannot be cancelled, so the operation is left behind rather than awaited.
func finishing<T: Sendable>(
  within seconds: Int = 20,
  sourceLocation: SourceLocation = #_sourceLocation,
  _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
  let (stream, continuation) = AsyncStream<Result<T, any Error>?>.makeStream()
  Task {
    do {
      continuation.yield(.success(try await operation()))
    } catch {
      continuation.yield(.failure(error))
    }
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

@Suite("Files a download did not just write are untrusted")
struct UntrustedDownloadFileTests {
  typealias Folder = DownloadTests.Folder
  static let url = DownloadTests.url
  static let version1 = DownloadTests.version1
  static let version2 = DownloadTests.version2

  private func get() -> HTTPRequest {
    HTTPRequest(method: .get, url: Self.url)
  }

  private func saveRecord(in folder: Folder, length: Int64? = nil) throws {
    try ResumeRecord(url: Self.url.absoluteString, validator: "\"v1\"", length: length).save(to: folder.record)
  }

  // MARK: - The shared opener

  @Test func theOpenerRefusesAFIFOAtOnce() async throws {
    let folder = try Folder()
    let fifo = folder.url.appendingPathComponent("fifo")
    #expect(mkfifo(fifo.path, 0o600) == 0)
    let refusal = try await finishing {
      do {
        _ = try UntrustedFile.read(fifo, limit: 100)
        return UntrustedFile.Refusal.Reason.missing
      } catch let error as UntrustedFile.Refusal {
        return error.reason
      }
    }
    #expect(refusal == .notRegularFile)
    // Opened for writing with no reader, a FIFO fails the open itself (ENXIO): refused the same way.
    #expect(throws: UntrustedFile.Refusal(reason: .notRegularFile, name: "fifo")) {
      try UntrustedFile.open(fifo, forWriting: true)
    }
  }

  @Test func theOpenerRefusesLinksAndOversizedFiles() throws {
    let folder = try Folder()
    let target = folder.url.appendingPathComponent("target")
    try Data("target".utf8).write(to: target)
    let symbolic = folder.url.appendingPathComponent("symbolic")
    try FileManager.default.createSymbolicLink(at: symbolic, withDestinationURL: target)
    let hard = folder.url.appendingPathComponent("hard")
    #expect(link(target.path, hard.path) == 0)

    #expect(throws: UntrustedFile.Refusal(reason: .symbolicLink, name: "symbolic")) {
      try UntrustedFile.read(symbolic, limit: 100)
    }
    #expect(throws: UntrustedFile.Refusal(reason: .severalLinks(2), name: "hard")) {
      try UntrustedFile.open(hard, forWriting: true)
    }
    #expect(throws: UntrustedFile.Refusal(reason: .tooLarge(6, limit: 5), name: "target")) {
      try UntrustedFile.read(target, limit: 5)
    }
    #expect(throws: UntrustedFile.Refusal(reason: .notRegularFile, name: folder.url.lastPathComponent)) {
      try UntrustedFile.read(folder.url, limit: 100)
    }
    // Reading a file with several links is fine; only writing through one is refused.
    #expect(try UntrustedFile.read(hard, limit: 100).data == Data("target".utf8))
    #expect(throws: UntrustedFile.Refusal(reason: .missing, name: "none")) {
      try UntrustedFile.read(folder.url.appendingPathComponent("none"), limit: 100)
    }
  }

  // MARK: - Sidecars and partial files

  /// Expects `download` to fail with `untrustedFile` naming `name`, at once (a FIFO is never waited on).
  private func expectRefusal(
    naming name: String,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ download: @escaping @Sendable () async throws -> DownloadedFile
  ) async {
    do {
      let file = try await finishing(sourceLocation: sourceLocation, download)
      Issue.record("downloaded \(file.byteCount) bytes; expected untrustedFile", sourceLocation: sourceLocation)
    } catch let error as DownloadError {
      #expect(error.code == .untrustedFile, "\(error)", sourceLocation: sourceLocation)
      #expect(error.message.contains(name), "\(error)", sourceLocation: sourceLocation)
      #expect(error.message.contains("nothing was sent"), "\(error)", sourceLocation: sourceLocation)
    } catch {
      Issue.record("expected untrustedFile, got \(error)", sourceLocation: sourceLocation)
    }
  }

  /// A FIFO planted as the record used to block `open(2)` before the request was sent. It is refused at once with a
  /// clear error, nothing sent, and left as it is; once it is gone, the download starts from the first byte.
  @Test func aFIFOPlantedAsTheRecordEndsAtOnceWithAClearError() async throws {
    let folder = try Folder()
    try Self.version1.prefix(60_000).write(to: folder.partial)
    #expect(mkfifo(folder.record.path, 0o600) == 0)
    let server = RangeServerTransport(content: Self.version1)
    let destination = folder.destination
    let request = get()
    await expectRefusal(naming: folder.record.lastPathComponent) {
      try await server.download(request, to: destination, resume: true)
    }
    #expect(server.requests.isEmpty)
    #expect(folder.names == ["data.bin.partial", "data.bin.partial.resume"])

    try FileManager.default.removeItem(at: folder.record)
    let file = try await server.download(request, to: destination, resume: true)
    #expect(!file.isResumed)
    #expect(server.requests.first?.headerFields[.range] == nil)
    #expect(try Data(contentsOf: folder.destination) == Self.version1)
    #expect(folder.names == ["data.bin"])
  }

  @Test func aFIFOPlantedAsThePartialFileEndsAtOnceWithAClearError() async throws {
    let folder = try Folder()
    #expect(mkfifo(folder.partial.path, 0o600) == 0)
    try saveRecord(in: folder)
    let server = RangeServerTransport(content: Self.version1)
    let destination = folder.destination
    let request = get()
    await expectRefusal(naming: folder.partial.lastPathComponent) {
      try await server.download(request, to: destination, resume: true)
    }
    #expect(server.requests.isEmpty)
    var status = stat()
    #expect(lstat(folder.partial.path, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "left as it is")
  }

  /// A hard link planted as the partial file shares its inode with a victim: appending to it would grow the victim
  /// (6 B to 100,000 in the attack). The download is refused instead, and the victim is left as it was.
  @Test func aHardLinkPlantedAsThePartialFileIsNeverAppendedThrough() async throws {
    let folder = try Folder()
    let victim = folder.url.appendingPathComponent("victim.txt")
    try Data("victim".utf8).write(to: victim)
    #expect(link(victim.path, folder.partial.path) == 0)
    try saveRecord(in: folder)
    let server = RangeServerTransport(content: Self.version1)
    let destination = folder.destination
    let request = get()
    await expectRefusal(naming: folder.partial.lastPathComponent) {
      try await server.download(request, to: destination, resume: true)
    }
    #expect(server.requests.isEmpty)
    #expect(try Data(contentsOf: victim) == Data("victim".utf8))
    #expect(folder.names == ["data.bin.partial", "data.bin.partial.resume", "victim.txt"])
  }

  @Test func aSymbolicLinkPlantedAsTheRecordIsNeverFollowed() async throws {
    let folder = try Folder()
    try Self.version1.prefix(60_000).write(to: folder.partial)
    let elsewhere = folder.url.appendingPathComponent("elsewhere.json")
    try ResumeRecord(url: Self.url.absoluteString, validator: "\"v1\"", length: nil).save(to: elsewhere)
    try FileManager.default.createSymbolicLink(at: folder.record, withDestinationURL: elsewhere)
    let server = RangeServerTransport(content: Self.version1)
    let destination = folder.destination
    let request = get()
    await expectRefusal(naming: folder.record.lastPathComponent) {
      try await server.download(request, to: destination, resume: true)
    }
    #expect(server.requests.isEmpty)
    #expect(folder.names == ["data.bin.partial", "data.bin.partial.resume", "elsewhere.json"])
  }

  @Test func aWeakValidatorInARecordIsNeverSent() async throws {
    let folder = try Folder()
    try Self.version1.prefix(60_000).write(to: folder.partial)
    let digest = ResumeRecord.digest(of: Self.url.absoluteString)
    try Data(#"{"version":1,"resource":"\#(digest)","validator":"W/\"v1\""}"#.utf8).write(to: folder.record)
    let server = RangeServerTransport(content: Self.version1)
    let file = try await server.download(get(), to: folder.destination, resume: true)
    #expect(!file.isResumed)
    #expect(server.requests.first?.headerFields[.ifRange] == nil)
    #expect(try Data(contentsOf: folder.destination) == Self.version1)
  }

  /// The partial file is checked before the request and opened again to be appended to: a hard link swapped in
  /// while the request was in flight fails the download with `untrustedFile`, the victim unchanged, and the next
  /// download starts from the first byte.
  @Test func aPartialFileReplacedDuringTheRequestIsNeverAppendedThrough() async throws {
    let folder = try Folder()
    try Self.version1.prefix(60_000).write(to: folder.partial)
    try saveRecord(in: folder)
    let victim = folder.url.appendingPathComponent("victim.txt")
    try Data("victim".utf8).write(to: victim)
    let swapping = SwappingTransport(
      base: RangeServerTransport(content: Self.version1),
      partial: folder.partial,
      victim: victim
    )
    await #expect {
      try await swapping.download(get(), to: folder.destination, resume: true)
    } throws: {
      guard let error = $0 as? DownloadError else { return false }
      return error.code == .untrustedFile && error.message.contains("hard links")
    }
    #expect(try Data(contentsOf: victim) == Data("victim".utf8))
    #expect(folder.names == ["victim.txt"])
    let file = try await swapping.base.download(get(), to: folder.destination, resume: true)
    #expect(!file.isResumed)
    #expect(try Data(contentsOf: folder.destination) == Self.version1)
  }

  // MARK: - A server that ignores If-Range

  /// Try 1 left version 1's first 60,000 bytes; the resource is now version 2, and the server answers the resumed
  /// request with a `206` of version 2 whatever `If-Range` says. The file is version 2 whole, fetched again.
  @Test func aPartialResponseOfAnotherVersionRestartsInsteadOfSplicing() async throws {
    let folder = try Folder()
    try Self.version1.prefix(60_000).write(to: folder.partial)
    try saveRecord(in: folder, length: Int64(Self.version1.count))
    let server = RangeServerTransport(content: Self.version2)
    let count = Self.version2.count
    let fields: HTTPFields = [.eTag: "\"v2\"", .contentRange: "bytes 60000-\(count - 1)/\(count)"]
    server.state.withLock {
      $0.etag = "\"v2\""
      $0.scripted = (
        HTTPResponse(status: .partialContent, headerFields: fields), Self.version2.subdata(in: 60_000..<count)
      )
    }
    let file = try await server.download(get(), to: folder.destination, resume: true)
    #expect(server.requests.count == 2)
    #expect(server.requests.first?.headerFields[.ifRange] == "\"v1\"")
    #expect(server.requests.last?.headerFields[.range] == nil)
    #expect(server.requests.last?.headerFields[.ifRange] == nil)
    #expect(!file.isResumed)
    #expect(file.byteCount == Int64(count))
    #expect(try Data(contentsOf: folder.destination) == Self.version2)
    #expect(folder.names == ["data.bin"])
  }

  // MARK: - The size limit

  @Test func anAnnouncedLengthPastTheLimitIsRefusedBeforeWriting() async throws {
    let folder = try Folder()
    let server = RangeServerTransport(content: Self.version1)
    await #expect {
      try await server.download(get(), to: folder.destination, maxBytes: 1000)
    } throws: {
      guard let error = $0 as? DownloadError else { return false }
      return error.code == .bodyTooLarge && error.message.contains("1000")
    }
    #expect(folder.names.isEmpty)
    // The same download under a limit it fits works.
    let file = try await server.download(get(), to: folder.destination, maxBytes: Int64(Self.version1.count))
    #expect(try Data(contentsOf: file.location) == Self.version1)
  }

  @Test(arguments: [false, true])
  func aBodyThatNeverEndsStopsAtTheLimit(resume: Bool) async throws {
    let folder = try Folder()
    let endless = EndlessTransport()
    let destination = folder.destination
    let request = get()
    await #expect {
      try await finishing { try await endless.download(request, to: destination, resume: resume, maxBytes: 100_000) }
    } throws: {
      ($0 as? DownloadError)?.code == .bodyTooLarge
    }
    #expect(!FileManager.default.fileExists(atPath: folder.destination.path))
    if resume {
      // The bytes kept stay within the limit.
      let size = try FileManager.default.attributesOfItem(atPath: folder.partial.path)[.size] as? Int
      #expect((size ?? .max) <= 100_000)
    } else {
      #expect(folder.names.isEmpty)
    }
    let file = try await RangeServerTransport(content: Self.version1).download(get(), to: folder.destination)
    #expect(try Data(contentsOf: file.location) == Self.version1)
  }

  /// The resumed offset counts: 60,000 bytes kept and a `206` for the remaining 140,000 of a 200,000-byte resource
  /// is past a 100,000-byte limit, refused before a byte is appended; the partial file is kept as it was.
  @Test func aResumedDownloadCountsThePartialFile() async throws {
    let folder = try Folder()
    try Self.version1.prefix(60_000).write(to: folder.partial)
    try saveRecord(in: folder)
    let server = RangeServerTransport(content: Self.version1)
    await #expect {
      try await server.download(get(), to: folder.destination, resume: true, maxBytes: 100_000)
    } throws: {
      ($0 as? DownloadError)?.code == .bodyTooLarge
    }
    #expect(server.requests.first?.headerFields[.range] == "bytes=60000-")
    #expect(try Data(contentsOf: folder.partial) == Self.version1.prefix(60_000))
    let file = try await server.download(get(), to: folder.destination, resume: true, maxBytes: 200_000)
    #expect(file.resumedFrom == 60_000)
    #expect(try Data(contentsOf: file.location) == Self.version1)
  }
}

/// Answers every request with a `200` whose body never ends (64 KiB chunks, no length announced).
struct EndlessTransport: Transport {
  func send(_ request: HTTPRequest, body: RequestBody?, options: TransferOptions) async throws -> TransportResponse {
    let chunk = Data(repeating: 0x65, count: 64 * 1024)
    let chunks = AsyncThrowingStream<Data, any Error>(unfolding: {
      try Task.checkCancellation()
      return chunk
    })
    return TransportResponse(
      head: HTTPResponse(status: .ok, headerFields: [.eTag: "\"endless\""]),
      url: request.url,
      body: ResponseBody(chunks: chunks, expectedLength: nil)
    )
  }
}

/// Forwards to `base`, but first replaces `partial` with a hard link to `victim`, as an attacker racing the request.
struct SwappingTransport: Transport {
  let base: RangeServerTransport
  let partial: URL
  let victim: URL

  func send(_ request: HTTPRequest, body: RequestBody?, options: TransferOptions) async throws -> TransportResponse {
    unlink(partial.path)
    link(victim.path, partial.path)
    return try await base.send(request, body: body, options: options)
  }
}
