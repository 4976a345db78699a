import Foundation
import HTTPTypes
import Malibu
@_spi(Malibu) import MalibuCore
import MalibuTestSupport
import MalibuTransport
import Testing

/// Downloads to a file (with resume) and streams, on both transports, against nginx (static files with `ETag`,
/// `Range` and `If-Range`), the in-process test server (slow bodies, to see the connection close) and the fault server.
@Suite("Downloads and streams", .serialized)
struct DownloadAndStreamTests {
  static let largeSize = 64 << 20
  static let memoryBudget = 40 << 20

  /// A fresh directory for destinations, removed at the end of the test.
  final class Folder: Sendable {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("malibu-integration-dl-\(UUID())")
    var destination: URL { url.appendingPathComponent("file.bin") }
    var partial: URL { url.appendingPathComponent("file.bin.partial") }
    var names: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted() }

    init() throws {
      try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
      try? FileManager.default.removeItem(at: url)
    }
  }

  /// The 64 MiB file served by nginx for this test, removed with `defer` by the caller.
  private func largeSource(_ backend: Backend) async throws -> (file: URL, url: URL) {
    let name = "download-\(backend.rawValue)-\(UUID()).bin"
    let file = try await ServedFiles.writePrefixOfLarge(Self.largeSize, named: name)
    return (file, try await Servers.nginx("/identity/\(name)"))
  }

  @Test(arguments: Backend.allCases)
  func aLargeDownloadThroughNetworkingKeepsMemoryFlat(_ backend: Backend) async throws {
    let folder = try Folder()
    let (source, url) = try await largeSource(backend)
    defer { try? FileManager.default.removeItem(at: source) }
    let networking = Networking<AbsoluteEndpoint>(transport: .custom(backend.transport))
    let destination = folder.destination
    let (file, growth) = try await peakMemoryGrowth {
      try await networking.download(AbsoluteEndpoint(url), to: destination).value
    }
    print("[\(backend.rawValue)] 64 MiB download through Networking: peak RSS growth \(growth >> 10) KiB")
    #expect(file.byteCount == Int64(Self.largeSize))
    #expect(try sameBytes(file.location, source))
    #expect(folder.names == ["file.bin"])
    if backend == .urlSession {
      // FoundationNetworking cannot pause a task (see LargeTransferTests): a slow disk lets it buffer ahead.
      withKnownIssue("URLSession on Linux has no back-pressure", isIntermittent: true) {
        #expect(growth < Self.memoryBudget, "peak RSS growth \(growth >> 20) MiB")
      }
    } else {
      #expect(growth < Self.memoryBudget, "peak RSS growth \(growth >> 20) MiB")
    }
  }

  @Test(arguments: Backend.allCases)
  func aResumeAfterACutContinuesThePartialFile(_ backend: Backend) async throws {
    let folder = try Folder()
    let (source, url) = try await largeSource(backend)
    defer { try? FileManager.default.removeItem(at: source) }
    let cut = 8 << 20
    // Cut through the transport: the partial file holds the first 8 MiB.
    let cutting = CuttingTransport(base: backend.transport, limit: cut)
    await #expect {
      try await cutting.download(HTTPRequest(method: .get, url: url), to: folder.destination, resume: true)
    } throws: { ($0 as? TransportError)?.code == .connectionReset }
    #expect(fileSize(folder.partial) == cut)
    #expect(!FileManager.default.fileExists(atPath: folder.destination.path))
    // Through Networking, which resumes with Range and If-Range after every hook.
    let networking = Networking<AbsoluteEndpoint>(transport: .custom(backend.transport))
    let file = try await networking.download(AbsoluteEndpoint(url), to: folder.destination, resume: true).value
    #expect(file.head.status == .partialContent)
    #expect(file.resumedFrom == Int64(cut))
    #expect(file.byteCount == Int64(Self.largeSize))
    #expect(try sameBytes(file.location, source))
    #expect(folder.names == ["file.bin"])
  }

  @Test(arguments: Backend.allCases)
  func aResumeWhoseValidatorChangedRestartsWithTheNewContent(_ backend: Backend) async throws {
    let folder = try Folder()
    let name = "changing-\(backend.rawValue)-\(UUID()).bin"
    let version1 = Data(StaticContent.bytes(in: 0..<(1 << 20)))
    let version2 = Data(StaticContent.bytes(in: 5000..<(5000 + (3 << 19))))
    let source = try await ServedFiles.write(version1, named: name)
    defer { try? FileManager.default.removeItem(at: source) }
    let url = try await Servers.nginx("/identity/\(name)")
    let networking = Networking<AbsoluteEndpoint>(
      transport: .custom(CuttingTransport(base: backend.transport, limit: 300_000))
    )
    let cutResult = await networkError(networking.download(AbsoluteEndpoint(url), to: folder.destination, resume: true))
    #expect(cutResult?.code == .transportFailed)
    #expect(fileSize(folder.partial) == 300_000)
    // The resource changes (another size, so another ETag); the resume's If-Range no longer matches.
    _ = try await ServedFiles.write(version2, named: name)
    let file = try await backend.transport.download(
      HTTPRequest(method: .get, url: url),
      to: folder.destination,
      resume: true
    )
    #expect(file.head.status == .ok)
    #expect(!file.isResumed)
    #expect(try Data(contentsOf: folder.destination) == version2)
    #expect(folder.names == ["file.bin"])
  }

  @Test(arguments: Backend.allCases)
  func aCancelledDownloadLeavesTheDestinationAndNoTemporaryFile(_ backend: Backend) async throws {
    let server = try TestServer()
    defer { server.stop() }
    let folder = try Folder()
    try Data("old".utf8).write(to: folder.destination)
    let url = server.url("/drip?chunks=400&size=5000&delay=10")
    // Through the transport, cancelling the task.
    let destination = folder.destination
    let task = Task { try await backend.transport.download(HTTPRequest(method: .get, url: url), to: destination) }
    await waitUntil("the temporary file has bytes") { folder.names.count == 2 }
    task.cancel()
    await #expect { try await task.value } throws: { ($0 as? TransportError)?.code == .cancelled }
    #expect(folder.names == ["file.bin"])
    #expect(try Data(contentsOf: folder.destination) == Data("old".utf8))
    // Through Networking, with cancelAllRequests.
    let networking = Networking<AbsoluteEndpoint>(transport: .custom(backend.transport))
    let promise = networking.download(AbsoluteEndpoint(url), to: folder.destination)
    await waitUntil("the temporary file has bytes") { folder.names.count == 2 }
    networking.cancelAllRequests()
    #expect(await networkError(promise)?.code == .cancelled)
    await waitUntil("the temporary file is removed") { folder.names == ["file.bin"] }
    #expect(try Data(contentsOf: folder.destination) == Data("old".utf8))
    await waitUntil("the server saw both connections closed") { server.openConnections == 0 }
  }

  @Test(arguments: Backend.allCases)
  func aStreamConsumerThatStopsEarlyClosesTheConnection(_ backend: Backend) async throws {
    let server = try TestServer()
    defer { server.stop() }
    let networking = Networking<AbsoluteEndpoint>(transport: .custom(backend.transport))
    let url = server.url("/drip?chunks=400&size=5000&delay=10")
    let firstChunk = Locked(false)
    let reader = Task {
      let response = try await networking.stream(AbsoluteEndpoint(url))
      for try await _ in response.body { firstChunk.withLock { $0 = true } }
    }
    await waitUntil("a chunk arrived") { firstChunk.withLock { $0 } }
    reader.cancel()
    await #expect { try await reader.value } throws: { ($0 as? NetworkError)?.code == .cancelled }
    // The server's write fails once the client has closed: it drops the connection long before the 2 MB are sent.
    await waitUntil("the server saw the connection closed") { server.openConnections == 0 }
    #expect(server.requests.count == 1)
    // The networking then streams a whole body.
    let whole = try await networking.stream(AbsoluteEndpoint(server.url("/bytes?size=100000")))
    var received = Data()
    for try await chunk in whole.body { received.append(chunk) }
    #expect(received == pattern(100_000))
  }

  @Test(arguments: Backend.allCases)
  func anErrorMidStreamReachesTheConsumer(_ backend: Backend) async throws {
    let networking = Networking<AbsoluteEndpoint>(transport: .custom(backend.transport))
    let response = try await networking.stream(AbsoluteEndpoint(Servers.faults("/reset/mid-body")))
    #expect(response.statusCode == 200)
    var received = 0
    do {
      for try await chunk in response.body { received += chunk.count }
      Issue.record("the body ended normally after \(received) bytes")
    } catch let error as NetworkError {
      #expect(error.code == .transportFailed, "\(error)")
      #expect(error.underlyingError is TransportError)
    }
    #expect(received <= 1000)
    let good = try await networking.stream(AbsoluteEndpoint(Servers.faults("/ok")))
    var body = Data()
    for try await chunk in good.body { body.append(chunk) }
    #expect(String(decoding: body, as: UTF8.self) == "ok")
  }

  @Test(arguments: Backend.allCases)
  func aStreamOfALargeFileDeliversEveryByteInOrder(_ backend: Backend) async throws {
    let networking = Networking<AbsoluteEndpoint>(transport: .custom(backend.transport))
    let response = try await networking.stream(
      AbsoluteEndpoint(Servers.nginx("/identity/\(StaticContent.medium.name)"))
    )
    var received = Data()
    for try await chunk in response.body { received.append(chunk) }
    #expect(received == StaticContent.data(of: StaticContent.medium))
  }
}

/// Waits (up to 20 s, no speed asserted) until `condition` holds.
private func waitUntil(_ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool) async
{
  for _ in 0..<4000 {
    if condition() { return }
    try? await Task.sleep(for: .milliseconds(5))
  }
  Issue.record("\(what) never held", sourceLocation: sourceLocation)
}
