import Malibu
import Testing

/// The folder every offline store of this test process lives in; removed when the process exits.
private let offlineTestRoot: URL = {
  atexit {
    let root = FileManager.default.temporaryDirectory
      .appendingPathComponent("malibu-offline-tests-\(ProcessInfo.processInfo.processIdentifier)", isDirectory: true)
    try? FileManager.default.removeItem(at: root)
  }
  return FileManager.default.temporaryDirectory
    .appendingPathComponent("malibu-offline-tests-\(ProcessInfo.processInfo.processIdentifier)", isDirectory: true)
}()

/// A fresh store in a temporary directory of its own.
func makeOfflineStore() -> OfflineRequestStore {
  OfflineRequestStore(directory: offlineTestRoot.appendingPathComponent(UUID().uuidString, isDirectory: true))
}

/// A networking on a mock transport and an offline store in a temporary directory.
func makeOfflineNetworking(
  _ transport: MockTransport,
  store: OfflineRequestStore = makeOfflineStore()
) -> Networking<Probe> {
  Networking<Probe>(transport: .custom(transport), offlineStore: store)
}

/// An error logger that keeps what it was given.
struct RecordingErrorLogger: ErrorLogging {
  let errors = Box<[String]>([])

  func log(error: any Error, request: LoggedRequest?, duration: Duration?, level: LogLevel) {
    errors.update { $0.append("\(error)") }
  }
}

let refused = TransportError(code: .connectionRefused, message: "connection refused")

@Suite("Offline store")
struct OfflineStoreTests {
  @Test func anOfflineRequestIsStoredWhenTheHostCannotBeReached() async throws {
    let transport = makeTransport()
    transport.stub(.post, "/api/boards", error: refused)
    let networking = makeOfflineNetworking(transport)
    let request = Request.post("boards", parameters: ["title": "Balsa"], storePolicy: .offline)
    let error = await networkError(networking.request(Probe(request)))
    #expect(error?.code == .transportFailed)
    let stored = try networking.offlineStore.all()
    try #require(stored.count == 1)
    #expect(stored[0].url?.absoluteString == "http://127.0.0.1:8080/api/boards")
    #expect(stored[0].parameters == ["title": .string("Balsa")])
  }

  @Test(arguments: [TransportError.Code.dnsFailure, .connectTimeout])
  func otherUnreachableCodesStoreToo(code: TransportError.Code) async throws {
    let transport = makeTransport()
    transport.stub(.delete, "/api/boards/1", error: TransportError(code: code, message: "unreachable"))
    let networking = makeOfflineNetworking(transport)
    _ = await outcome(networking.request(Probe(.delete("boards/1", storePolicy: .offline))))
    #expect(try networking.offlineStore.all().count == 1)
  }

  @Test func aRequestWithoutTheOfflinePolicyIsNotStored() async throws {
    let transport = makeTransport()
    transport.stub(.post, "/api/boards", error: refused)
    let networking = makeOfflineNetworking(transport)
    let error = await networkError(networking.request(Probe(.post("boards"))))
    #expect(error?.code == .transportFailed)
    #expect(try networking.offlineStore.all().isEmpty)
  }

  @Test func aServerErrorIsNotStored() async throws {
    let transport = makeTransport()
    transport.stub(.post, "/api/boards", status: .internalServerError)
    let networking = makeOfflineNetworking(transport)
    let response = try await networking.request(Probe(.post("boards", storePolicy: .offline))).value
    #expect(response.statusCode == 500)
    #expect(try networking.offlineStore.all().isEmpty)
  }

  @Test(arguments: [
    (TransportError.Code.connectionReset, NetworkError.Code.transportFailed), (.tls, .transportFailed),
    (.idleTimeout, .timedOut), (.other, .transportFailed),
  ])
  func otherTransportErrorsAreNotStored(code: TransportError.Code, expected: NetworkError.Code) async throws {
    let transport = makeTransport()
    transport.stub(.post, "/api/boards", error: TransportError(code: code, message: "failed"))
    let networking = makeOfflineNetworking(transport)
    let error = await networkError(networking.request(Probe(.post("boards", storePolicy: .offline))))
    #expect(error?.code == expected)
    #expect(try networking.offlineStore.all().isEmpty)
  }

  @Test func replaySendsInInsertionOrderRemovesAndReturnsOutcomes() async throws {
    let transport = makeTransport()
    transport.stub(.delete, "/api/boards/*", error: refused)
    let networking = makeOfflineNetworking(transport)
    for id in [3, 1, 2] {
      _ = await outcome(networking.request(Probe(.delete("boards/\(id)", storePolicy: .offline))))
    }
    #expect(try networking.offlineStore.all().count == 3)
    transport.reset()
    transport.stub(.delete, "/api/boards/*", status: .noContent)
    let outcomes = try await networking.replay().value
    #expect(transport.recordedPaths == ["/api/boards/3", "/api/boards/1", "/api/boards/2"])
    #expect(outcomes.count == 3)
    #expect(outcomes.allSatisfy { (try? $0.get().statusCode) == 204 })
    #expect(try networking.offlineStore.all().isEmpty)
    #expect(networking.mode == .async)
  }

  @Test func aRequestStillUnreachableIsKeptAndAnotherErrorRemoved() async throws {
    let transport = makeTransport()
    transport.stub(.delete, "/api/boards/*", error: refused)
    let networking = makeOfflineNetworking(transport)
    _ = await outcome(networking.request(Probe(.delete("boards/1", storePolicy: .offline))))
    _ = await outcome(networking.request(Probe(.delete("boards/2", storePolicy: .offline))))
    transport.reset()
    transport.stub(.delete, "/api/boards/1", error: refused)
    transport.stub(.delete, "/api/boards/2", error: TransportError(code: .tls, message: "bad certificate"))
    let outcomes = try await networking.replay().value
    try #require(outcomes.count == 2)
    #expect(throws: NetworkError.self) { try outcomes[0].get() }
    #expect(throws: NetworkError.self) { try outcomes[1].get() }
    let kept = try networking.offlineStore.all()
    #expect(kept.map(\.url?.path) == ["/api/boards/1"])
  }

  @Test func concurrentReplaysSendEachStoredRequestOnce() async throws {
    let transport = makeTransport()
    transport.stub(.delete, "/api/boards/*", error: refused)
    let store = makeOfflineStore()
    let networking = makeOfflineNetworking(transport, store: store)
    for id in 1...5 {
      _ = await outcome(networking.request(Probe(.delete("boards/\(id)", storePolicy: .offline))))
    }
    transport.reset()
    transport.stub(.delete, "/api/boards/*", status: .noContent, delay: .milliseconds(20))
    // Two networkings sharing the store (two parts of an app: one instance owns a directory), four replays at once.
    let other = makeOfflineNetworking(transport, store: store)
    let replays = [networking.replay(), other.replay(), networking.replay(), other.replay()]
    var replayed = 0
    for replay in replays { replayed += try await replay.value.count }
    #expect(replayed == 5)
    #expect(transport.recordedPaths.sorted() == (1...5).map { "/api/boards/\($0)" })
    #expect(try store.all().isEmpty)
  }

  @Test func cancelAllRequestsStopsAReplayAndKeepsWhatWasNotSent() async throws {
    let transport = makeTransport()
    transport.stub(.delete, "/api/boards/*", error: refused)
    let networking = makeOfflineNetworking(transport)
    for id in 1...3 {
      _ = await outcome(networking.request(Probe(.delete("boards/\(id)", storePolicy: .offline))))
    }
    transport.reset()
    transport.stub(.delete, "/api/boards/*", status: .noContent, delay: .seconds(30))
    let replay = networking.replay()
    await eventually("the first replayed request reached the transport") { transport.recordedRequests.count == 1 }
    networking.cancelAllRequests()
    let error = await networkError(replay)
    #expect(error?.code == .cancelled)
    await eventually("the replay task ended") { transport.recordedRequests.count == 1 }
    #expect(try networking.offlineStore.all().count == 3)
    // The networking keeps working: a later replay sends all three.
    transport.reset()
    transport.stub(.delete, "/api/boards/*", status: .noContent)
    #expect(try await networking.replay().value.count == 3)
    #expect(try networking.offlineStore.all().isEmpty)
  }

  @Test func anEmptyStoreResolvesAtOnce() async throws {
    let transport = makeTransport()
    let networking = makeOfflineNetworking(transport)
    let outcomes = try await networking.replay().value
    #expect(outcomes.isEmpty)
    #expect(transport.recordedRequests.isEmpty)
  }

  @Test func storedRequestsSurviveARestart() async throws {
    let transport = makeTransport()
    transport.stub(.post, "/api/boards", error: refused)
    let store = makeOfflineStore()
    let first = makeOfflineNetworking(transport, store: store)
    let request = Request.post("boards", parameters: ["title": "Balsa"], storePolicy: .offline)
    _ = await outcome(first.request(Probe(request)))
    transport.reset()
    transport.stub(.post, "/api/boards", status: .created)
    store.close()  // as the first process's exit would
    let second = makeOfflineNetworking(transport, store: OfflineRequestStore(directory: store.directory))
    let outcomes = try await second.replay().value
    #expect(outcomes.count == 1)
    #expect(try outcomes.first?.get().statusCode == 201)
    let sent = try #require(transport.recordedRequests.first)
    #expect(sent.body == Data(#"{"title":"Balsa"}"#.utf8))
    #expect(try second.offlineStore.all().isEmpty)
  }

  @Test func replayDoesNotRunBeforeEachAgainButRunsTheOtherHooks() async throws {
    let transport = makeTransport()
    transport.stub(.delete, "/api/boards/1", error: refused)
    let networking = makeOfflineNetworking(transport)
    let beforeEachCalls = Box(0)
    networking.beforeEach = { request in
      beforeEachCalls.update { $0 += 1 }
      return request.adding(parameters: [:], headers: ["X-Before": "yes"])
    }
    _ = await outcome(networking.request(Probe(.delete("boards/1", storePolicy: .offline))))
    transport.reset()
    transport.stub(.delete, "/api/boards/1", status: .ok)
    networking.preProcessRequest = { request in
      var request = request
      request.headerFields[HTTPField.Name("X-Pre")!] = "yes"
      return request
    }
    _ = try await networking.replay().value
    #expect(beforeEachCalls.value == 1)
    let sent = try #require(transport.recordedRequests.first)
    #expect(sent.headerFields[HTTPField.Name("X-Before")!] == "yes")
    #expect(sent.headerFields[HTTPField.Name("X-Pre")!] == "yes")
  }

  @Test func aCorruptEntryIsSetAsideReportedAndTheOthersReplayed() async throws {
    let transport = makeTransport()
    transport.stub(.delete, "/api/boards/*", error: refused)
    let networking = makeOfflineNetworking(transport)
    let errors = RecordingErrorLogger()
    let logger = NetworkLogger(level: .error)
    logger.errorLogger = errors
    networking.logger = logger
    _ = await outcome(networking.request(Probe(.delete("boards/1", storePolicy: .offline))))
    _ = await outcome(networking.request(Probe(.delete("boards/2", storePolicy: .offline))))
    let entries = try networking.offlineStore.all()
    try #require(entries.count == 2)
    let corrupt = networking.offlineStore.directory.appendingPathComponent(entries[0].fileName)
    try Data("{not json".utf8).write(to: corrupt)
    transport.reset()
    transport.stub(.delete, "/api/boards/*", status: .ok)
    let outcomes = try await networking.replay().value
    #expect(outcomes.count == 1)
    #expect(transport.recordedPaths == ["/api/boards/2"])
    let setAside = networking.offlineStore.corruptDirectory.appendingPathComponent(entries[0].fileName)
    #expect(FileManager.default.fileExists(atPath: setAside.path))
    // Bytes without the store's authentication header: not written by the store, so untrusted.
    #expect(errors.errors.value.contains { $0.contains("untrustedEntry") && $0.contains(entries[0].fileName) })
    #expect(try networking.offlineStore.all().isEmpty)
  }

  @Test func aSecondWorkerOnTheSameDirectoryIsRefusedAndBothKeepWorking() async throws {
    // Two workers of one app on one directory (as on the default one): the first owns it.
    let transport = makeTransport()
    transport.stub(.delete, "/api/boards/*", error: refused)
    let store = makeOfflineStore()
    let first = makeOfflineNetworking(transport, store: store)
    _ = await outcome(first.request(Probe(.delete("boards/1", storePolicy: .offline))))
    #expect(try store.all().count == 1)

    let second = makeOfflineNetworking(transport, store: OfflineRequestStore(directory: store.directory))
    let errors = RecordingErrorLogger()
    let logger = NetworkLogger(level: .error)
    logger.errorLogger = errors
    second.logger = logger
    // The caller still gets the transfer's own error; the refused save is logged with its clear code.
    let error = await networkError(second.request(Probe(.delete("boards/2", storePolicy: .offline))))
    #expect((error?.underlyingError as? TransportError)?.code == .connectionRefused)
    #expect(errors.errors.value.contains { $0.contains("directoryInUse") }, "\(errors.errors.value)")
    let replay = await outcome(second.replay())
    guard case .failure(let replayError) = replay else {
      Issue.record("the second worker's replay ran: \(replay)")
      return
    }
    #expect("\(replayError)".contains("directoryInUse"))

    // The second networking serves a normal request; the first still owns and replays its entry, and only it.
    transport.reset()
    transport.stub(.get, "/api/boards", status: .ok)
    transport.stub(.delete, "/api/boards/*", status: .noContent)
    #expect(try await second.request(Probe(.get("boards"))).value.statusCode == 200)
    #expect(try await first.replay().value.count == 1)
    #expect(transport.recordedPaths == ["/api/boards", "/api/boards/1"])
    #expect(try store.all().isEmpty)
  }

  /// An entry file the app never saved, as an attacker would write it: no authentication header, or a made-up one.
  static let forgeries: [String] = ["", "malibu-offline-entry hmac-sha256=\(String(repeating: "0", count: 64))\n"]

  @Test(arguments: forgeries)
  func aForgedUploadFileEntryIsRefusedByReplayAndNothingIsUploaded(header: String) async throws {
    let transport = makeTransport()
    transport.stub(.delete, "/api/boards/*", error: refused)
    let networking = makeOfflineNetworking(transport)
    let errors = RecordingErrorLogger()
    let logger = NetworkLogger(level: .error)
    logger.errorLogger = errors
    networking.logger = logger
    _ = await outcome(networking.request(Probe(.delete("boards/1", storePolicy: .offline))))

    // A local file outside the store, and an entry naming it for upload to the API.
    let secret = offlineTestRoot.appendingPathComponent("secret-\(UUID().uuidString).txt")
    let secretBytes = Data("not for upload".utf8)
    try secretBytes.write(to: secret)
    var forged = try StoredRequest(
      Request(
        method: .post,
        resource: "http://127.0.0.1:8080/api/upload",
        contentType: .custom("text/plain"),
        task: .uploadFile(secret)
      )
    )
    forged.sequence = 1
    let forgedFile = networking.offlineStore.directory.appendingPathComponent(forged.fileName)
    try (Data(header.utf8) + JSONEncoder().encode(forged)).write(to: forgedFile)

    transport.reset()
    transport.stub(.delete, "/api/boards/*", status: .noContent)
    transport.stub(.post, "/api/upload", status: .ok)
    let outcomes = try await networking.replay().value
    #expect(outcomes.count == 1)
    #expect(try outcomes.first?.get().statusCode == 204)
    #expect(transport.recordedPaths == ["/api/boards/1"], "the good entry replays, the forged one is not sent")
    #expect(!transport.recordedRequests.contains { $0.body == secretBytes })
    let logged = errors.errors.value
    #expect(logged.contains { $0.contains("untrustedEntry") && $0.contains(forged.fileName) }, "\(logged)")
    let setAside = networking.offlineStore.corruptDirectory.appendingPathComponent(forged.fileName)
    #expect(FileManager.default.fileExists(atPath: setAside.path))
    #expect(!FileManager.default.fileExists(atPath: forgedFile.path))
    #expect(try networking.offlineStore.all().isEmpty)

    // The networking keeps working: a new offline request is stored and replayed.
    transport.reset()
    transport.stub(.delete, "/api/boards/*", error: refused)
    _ = await outcome(networking.request(Probe(.delete("boards/2", storePolicy: .offline))))
    transport.reset()
    transport.stub(.delete, "/api/boards/*", status: .noContent)
    #expect(try await networking.replay().value.count == 1)
    #expect(transport.recordedPaths == ["/api/boards/2"])
  }

  @Test func clearOfflineRequestStorageEmptiesTheStore() async throws {
    let transport = makeTransport()
    transport.stub(.delete, "/api/boards/1", error: refused)
    let networking = makeOfflineNetworking(transport)
    _ = await outcome(networking.request(Probe(.delete("boards/1", storePolicy: .offline))))
    #expect(try networking.offlineStore.all().count == 1)
    try networking.clearOfflineRequestStorage()
    #expect(try networking.offlineStore.all().isEmpty)
  }
}
