import Foundation
import Malibu
import MalibuTestSupport
import Testing

/// Refusals, timeouts and download problems reach a promise as `NetworkError` codes a user can match, with the
/// transport's error kept as the cause and its message as the text a user reads.
@Suite("Errors: codes to match")
struct ErrorCodeTests {
  private enum Absolute: RequestConvertible {
    case get(String)

    static let baseUrl: (any URLStringConvertible)? = nil

    var request: Request {
      switch self {
      case .get(let url): return .get(url, cachePolicy: .reloadIgnoringLocalCacheData)
      }
    }
  }

  @Test func anHTTPSOnlyRefusalIsMatchedAsInsecureScheme() async throws {
    let server = try TestServer(echo: .body)
    let transport = CurlTransport()
    defer {
      transport.shutdown()
      server.stop()
    }
    let networking = Networking<Absolute>(transport: .custom(transport))
    networking.transferOptions.insecureHTTP = .refuse
    let url = server.url("/bytes?size=10")
    let error = await #expect(throws: NetworkError.self) {
      try await networking.request(.get(url.absoluteString)).value
    }
    #expect(error?.code == .insecureScheme)
    #expect((error?.underlyingError as? TransportError)?.code == .insecureScheme)
    let message =
      "the request to http://\(url.host ?? ""):\(url.port ?? 0) was refused before sending: the transfer is HTTPS "
      + "only (`TransferOptions.insecureHTTP` is `.refuse`): use an https:// URL, or `.upgrade`"
    #expect(error?.message == message)
    #expect(error?.localizedDescription == message)
    #expect(error?.description == "NetworkError.insecureScheme: \(message) (cause: TransportError.insecureScheme)")
    #expect(server.acceptedConnections == 0)
  }

  @Test(arguments: ["curl", "urlSession"])
  func aTotalTimeoutIsMatchedAsTimedOut(transportName: String) async throws {
    let server = try TestServer(echo: .body)
    let transport: any Transport = transportName == "curl" ? CurlTransport() : URLSessionTransport()
    defer {
      (transport as? CurlTransport)?.shutdown()
      (transport as? URLSessionTransport)?.shutdown()
      server.stop()
    }
    let networking = Networking<Absolute>(transport: .custom(transport))
    networking.transferOptions.timeouts.total = .milliseconds(300)
    let error = await #expect(throws: NetworkError.self) {
      try await networking.request(.get(server.url("/stall-head").absoluteString)).value
    }
    #expect(error?.code == .timedOut, "\(String(describing: error))")
    let cause = try #require(error?.underlyingError as? TransportError)
    #expect(cause.code == .totalTimeout)
    #expect(error?.message == cause.message)
    #expect(error?.localizedDescription == cause.message)
    #expect(error?.description.hasPrefix("NetworkError.timedOut: ") == true)
    #expect(
      error?.description.hasSuffix(" (cause: TransportError.totalTimeout)") == true,
      "\(String(describing: error))"
    )
  }

  /// Every transport failure, and the code it is matched by.
  @Test(arguments: [
    (TransportError.Code.connectTimeout, NetworkError.Code.timedOut),
    (.idleTimeout, .timedOut),
    (.totalTimeout, .timedOut),
    (.insecureScheme, .insecureScheme),
    (.addressNotAllowed, .addressNotAllowed),
    (.bodyTooLarge, .bodyTooLarge),
    (.cancelled, .cancelled),
    (.shutDown, .shutDown),
    (.connectionRefused, .transportFailed),
    (.connectionReset, .transportFailed),
    (.tls, .transportFailed),
    (.other, .transportFailed),
  ])
  func aTransportFailureHasACodeToMatch(code: TransportError.Code, expected: NetworkError.Code) async throws {
    let transport = makeTransport()
    transport.stub(.get, "/api/boards", error: TransportError(code: code, message: "it went wrong (\(code))"))
    let networking = Networking<Probe>(transport: .custom(transport))
    let error = try #require(await networkError(networking.request(Probe(.get("boards")))))
    #expect(error.code == expected)
    #expect((error.underlyingError as? TransportError)?.code == code)
    #expect(error.message == "it went wrong (\(code))")
    #expect(error.localizedDescription == "it went wrong (\(code))")
    #expect(error.description == "NetworkError.\(expected): it went wrong (\(code)) (cause: TransportError.\(code))")
  }

  /// A transport whose every send fails with `error`.
  private struct FailingTransport: Transport {
    let error: any Error & Sendable

    func send(_ request: HTTPRequest, body: RequestBody?, options: TransferOptions) async throws -> TransportResponse {
      throw error
    }
  }

  /// Every download problem, and the code it is matched by.
  @Test(arguments: [
    (DownloadError.Code.unacceptableStatus, NetworkError.Code.unacceptableStatusCode),
    (.missingDirectory, .missingDirectory),
    (.rangeMismatch, .rangeMismatch),
    (.lengthMismatch, .lengthMismatch),
    (.destinationBusy, .destinationBusy),
    (.bodyTooLarge, .bodyTooLarge),
    (.untrustedFile, .untrustedFile),
    (.fileSystem, .fileSystem),
  ])
  func aDownloadProblemHasACodeToMatch(code: DownloadError.Code, expected: NetworkError.Code) async throws {
    let directory = FileManager.default.temporaryDirectory
    let failure = DownloadError(code: code, message: "the download went wrong (\(code))")
    let networking = Networking<Probe>(transport: .custom(FailingTransport(error: failure)))
    let destination = directory.appendingPathComponent("malibu-download-code-\(UUID()).bin")
    let error = try #require(await networkError(networking.download(Probe(.get("files")), to: destination)))
    #expect(error.code == expected)
    #expect((error.underlyingError as? DownloadError)?.code == code)
    #expect(error.message == "the download went wrong (\(code))")
    #expect(error.localizedDescription == "the download went wrong (\(code))")
    #expect(
      error.description == "NetworkError.\(expected): the download went wrong (\(code)) (cause: DownloadError.\(code))"
    )
    #expect(!FileManager.default.fileExists(atPath: destination.path))
  }

  @Test func aDownloadIntoAMissingDirectoryFailsBeforeSending() async throws {
    let transport = makeTransport()
    let networking = Networking<Probe>(transport: .custom(transport))
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("malibu-missing-\(UUID())")
    let destination = directory.appendingPathComponent("file.bin")
    let error = try #require(await networkError(networking.download(Probe(.get("files")), to: destination)))
    #expect(error.code == .missingDirectory)
    #expect((error.underlyingError as? DownloadError)?.code == .missingDirectory)
    let message = "the directory \(directory.path) does not exist: nothing was sent; create it to download file.bin"
    #expect(error.message == message)
    #expect(error.localizedDescription == message)
    #expect(error.description == "NetworkError.missingDirectory: \(message) (cause: DownloadError.missingDirectory)")
    #expect(transport.recordedRequests.isEmpty)
    #expect(!FileManager.default.fileExists(atPath: directory.path))
  }

  @Test func aDownloadIntoAFileThatIsNotADirectoryFailsBeforeSending() async throws {
    let transport = makeTransport()
    let networking = Networking<Probe>(transport: .custom(transport))
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("malibu-not-a-directory-\(UUID())")
    try Data("x".utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let destination = file.appendingPathComponent("file.bin")
    let error = try #require(await networkError(networking.download(Probe(.get("files")), to: destination)))
    #expect(error.code == .missingDirectory)
    #expect(
      error.message
        == "\(file.path) is not a directory: nothing was sent (the destination's directory must exist)"
    )
    #expect(transport.recordedRequests.isEmpty)
  }

  @Test func aPartialResponseToAWholeDownloadIsMatchedAsRangeMismatch() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("malibu-range-\(UUID())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let transport = makeTransport()
    transport.stub(
      .get,
      "/api/files",
      status: .partialContent,
      headerFields: [.contentRange: "bytes 0-3/10"],
      body: Data("abcd".utf8)
    )
    let networking = Networking<Probe>(transport: .custom(transport))
    let destination = directory.appendingPathComponent("file.bin")
    let error = try #require(await networkError(networking.download(Probe(.get("files")), to: destination)))
    #expect(error.code == .rangeMismatch)
    let cause = try #require(error.underlyingError as? DownloadError)
    #expect(cause.code == .rangeMismatch)
    #expect(error.message == cause.message)
    #expect(error.localizedDescription == cause.message)
    #expect(error.description.hasPrefix("NetworkError.rangeMismatch: \(cause.message)"), "\(error)")
    #expect(!FileManager.default.fileExists(atPath: destination.path))
  }
}
