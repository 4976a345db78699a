import Foundation
import Malibu
import Testing

/// A transport that records each request and answers with a body it feeds by hand: one chunk at once, more when a
/// test asks, an error when a test asks; it notes when the reader stopped the transfer.
final class FeedTransport: Transport {
  private struct State {
    var requests: [HTTPRequest] = []
    var feeds: [AsyncThrowingStream<Data, any Error>.Continuation] = []
    var stopped = 0
  }

  private let state = Box(State())
  let status: HTTPResponse.Status

  init(status: HTTPResponse.Status = .ok) {
    self.status = status
  }

  var requests: [HTTPRequest] { state.value.requests }
  /// How many bodies were stopped by their reader before they ended.
  var stopped: Int { state.value.stopped }

  /// Sends `chunk` on the latest body, or ends it (`nil`), or fails it.
  func feed(_ chunk: Data?, error: TransportError? = nil) {
    guard let continuation = state.value.feeds.last else { return }
    if let error {
      continuation.finish(throwing: error)
    } else if let chunk {
      continuation.yield(chunk)
    } else {
      continuation.finish()
    }
  }

  func send(_ request: HTTPRequest, body: RequestBody?, options: TransferOptions) async throws -> TransportResponse {
    let (chunks, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
    continuation.onTermination = { [state] termination in
      if case .cancelled = termination { state.update { $0.stopped += 1 } }
    }
    state.update {
      $0.requests.append(request)
      $0.feeds.append(continuation)
    }
    continuation.yield(Data("first".utf8))
    return TransportResponse(
      head: HTTPResponse(status: status, headerFields: [.eTag: "\"feed\""]),
      url: request.url,
      body: ResponseBody(chunks: chunks)
    )
  }
}

@Suite("Networking: downloads and streams")
struct NetworkingTransferTests {
  /// A fresh directory, removed at the end of the test.
  final class Folder: Sendable {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("malibu-facade-download-\(UUID())")
    var destination: URL { url.appendingPathComponent("file.bin") }
    var names: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted() }

    init() throws {
      try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
      try? FileManager.default.removeItem(at: url)
    }
  }

  /// A networking with every request hook set, each leaving a mark in the request.
  private func hookedNetworking(_ transport: any Transport, mode: NetworkingMode = .async) -> Networking<Probe> {
    let networking = Networking<Probe>(mode: mode, transport: .custom(transport))
    networking.beforeEach = { $0.adding(parameters: ["from": "beforeEach"], headers: [:]) }
    networking.middleware = { $0.resolve() }
    networking.preProcessRequest = { head in
      var head = head
      head.headerFields[HTTPField.Name("X-Pre")!] = "yes"
      return head
    }
    networking.authenticate(bearerToken: "secret-token")
    return networking
  }

  @Test func aDownloadPassesEveryHookAndWritesTheFile() async throws {
    let folder = try Folder()
    let transport = makeTransport()
    transport.stub(.get, "/api/files", reply: .init(status: .ok, body: Data("file body".utf8)))
    let networking = hookedNetworking(transport)
    let file = try await networking.download(Probe(.get("files")), to: folder.destination).value
    #expect(try Data(contentsOf: file.location) == Data("file body".utf8))
    #expect(file.byteCount == 9)
    #expect(folder.names == ["file.bin"])
    let sent = try #require(transport.recordedRequests.first)
    #expect(sent.head.url?.query == "from=beforeEach")
    #expect(sent.headerFields[HTTPField.Name("X-Pre")!] == "yes")
    #expect(sent.headerFields[.authorization] == "Bearer secret-token")
    #expect(sent.headerFields[.acceptEncoding] == "identity")
    #expect(sent.headerFields[.range] == nil)
  }

  @Test func aDownloadIsAnsweredByTheEndpointsMock() async throws {
    let folder = try Folder()
    let provider = MockProvider<Probe> { _ in Mock(json: ["mocked": true]) }
    let transport = makeTransport()
    let networking = Networking<Probe>(mockProvider: provider, transport: .custom(transport))
    let file = try await networking.download(Probe(.get("files")), to: folder.destination).value
    let json = try JSONSerialization.jsonObject(with: Data(contentsOf: file.location)) as? [String: Bool]
    #expect(json == ["mocked": true])
    #expect(transport.recordedRequests.isEmpty)
  }

  @Test func aStatusThatIsNotAFileRejectsWithTheHeadAndLeavesTheDestination() async throws {
    let folder = try Folder()
    try Data("old".utf8).write(to: folder.destination)
    let transport = makeTransport()
    transport.stub(.get, "/api/missing", reply: .init(status: .notFound, body: Data("no such file".utf8)))
    let networking = Networking<Probe>(transport: .custom(transport))
    let error = try #require(await networkError(networking.download(Probe(.get("missing")), to: folder.destination)))
    #expect(error.code == .unacceptableStatusCode)
    #expect(error.response?.statusCode == 404)
    #expect((error.underlyingError as? DownloadError)?.code == .unacceptableStatus)
    #expect(try Data(contentsOf: folder.destination) == Data("old".utf8))
    #expect(folder.names == ["file.bin"])
    // The same networking then serves a good download.
    _ = try await networking.download(Probe(.get("files")), to: folder.destination).value
    #expect(try Data(contentsOf: folder.destination) == Data("[]".utf8))
  }

  @Test func cancelAllRequestsStopsADownloadAndLeavesNoTemporaryFile() async throws {
    let folder = try Folder()
    try Data("old".utf8).write(to: folder.destination)
    let transport = FeedTransport()
    let networking = Networking<Probe>(transport: .custom(transport))
    let promise = networking.download(Probe(.get("files")), to: folder.destination)
    await eventually("the transfer started") { !transport.requests.isEmpty }
    networking.cancelAllRequests()
    #expect(await networkError(promise)?.code == .cancelled)
    await eventually("the body was stopped") { transport.stopped == 1 }
    await eventually("the temporary file was removed") { folder.names == ["file.bin"] }
    #expect(try Data(contentsOf: folder.destination) == Data("old".utf8))
  }

  @Test func aDownloadHoldsItsSlotUntilTheFileIsInPlace() async throws {
    let folder = try Folder()
    let transport = FeedTransport()
    let networking = Networking<Probe>(mode: .limited(1), transport: .custom(transport))
    let download = networking.download(Probe(.get("files")), to: folder.destination)
    await eventually("the download started") { transport.requests.count == 1 }
    let second = networking.request(Probe(.get("after")))
    transport.feed(Data(" and more".utf8))
    await eventually("the bytes were written") { folder.names.count == 1 && folder.names != ["file.bin"] }
    #expect(transport.requests.count == 1)
    transport.feed(nil)
    let file = try await download.value
    #expect(try Data(contentsOf: file.location) == Data("first and more".utf8))
    await eventually("the second request was sent") { transport.requests.count == 2 }
    transport.feed(nil)
    #expect(try await second.value.statusCode == 200)
  }

  @Test func aStreamPassesEveryHookAndDeliversTheHeadThenTheBody() async throws {
    let transport = FeedTransport()
    let networking = hookedNetworking(transport)
    let response = try await networking.stream(Probe(.get("log")))
    #expect(response.statusCode == 200)
    #expect(response.head.headerFields[.eTag] == "\"feed\"")
    let sent = try #require(transport.requests.first)
    #expect(sent.url?.query == "from=beforeEach")
    #expect(sent.headerFields[HTTPField.Name("X-Pre")!] == "yes")
    #expect(sent.headerFields[.authorization] == "Bearer secret-token")
    var chunks = response.body.makeAsyncIterator()
    #expect(try await chunks.next() == Data("first".utf8))
    transport.feed(Data("second".utf8))
    #expect(try await chunks.next() == Data("second".utf8))
    transport.feed(nil)
    #expect(try await chunks.next() == nil)
  }

  @Test func aStreamIsAnsweredByTheEndpointsMock() async throws {
    let provider = MockProvider<Probe> { _ in Mock(json: ["mocked": true]) }
    let networking = Networking<Probe>(mockProvider: provider, transport: .custom(makeTransport()))
    let response = try await networking.stream(Probe(.get("log")))
    var body = Data()
    for try await chunk in response.body { body.append(chunk) }
    #expect(try JSONSerialization.jsonObject(with: body) as? [String: Bool] == ["mocked": true])
  }

  @Test func anErrorMidStreamReachesTheConsumer() async throws {
    let transport = FeedTransport()
    let networking = Networking<Probe>(transport: .custom(transport))
    let response = try await networking.stream(Probe(.get("log")))
    var chunks = response.body.makeAsyncIterator()
    #expect(try await chunks.next() == Data("first".utf8))
    transport.feed(nil, error: TransportError(code: .connectionReset, message: "reset by the test"))
    do {
      _ = try await chunks.next()
      Issue.record("the error did not reach the consumer")
    } catch let error as NetworkError {
      #expect(error.code == .transportFailed)
      #expect((error.underlyingError as? TransportError)?.code == .connectionReset)
    }
    // The networking then serves another stream.
    let next = try await networking.stream(Probe(.get("log")))
    #expect(next.statusCode == 200)
  }

  @Test func aConsumerThatStopsEarlyStopsTheTransfer() async throws {
    let transport = FeedTransport()
    let networking = Networking<Probe>(transport: .custom(transport))
    let reader = Task {
      let response = try await networking.stream(Probe(.get("log")))
      for try await _ in response.body {}
    }
    await eventually("the transfer started") { !transport.requests.isEmpty }
    reader.cancel()
    _ = try? await reader.value
    await eventually("the body was stopped") { transport.stopped == 1 }
  }

  @Test func droppingAStreamUnreadStopsTheTransferAndFreesItsSlot() async throws {
    let transport = FeedTransport()
    let networking = Networking<Probe>(mode: .limited(1), transport: .custom(transport))
    do {
      let response = try await networking.stream(Probe(.get("log")))
      #expect(response.statusCode == 200)
    }
    await eventually("the body was stopped") { transport.stopped == 1 }
    let next = try await networking.stream(Probe(.get("log")))
    #expect(next.statusCode == 200)
    #expect(transport.requests.count == 2)
  }

  @Test func aStreamHoldsItsSlotUntilTheBodyEnds() async throws {
    let transport = FeedTransport()
    let networking = Networking<Probe>(mode: .limited(1), transport: .custom(transport))
    let response = try await networking.stream(Probe(.get("log")))
    let second = networking.request(Probe(.get("after")))
    // The queue holds the second request while the body is open (checked after the first body's chunk is read).
    var chunks = response.body.makeAsyncIterator()
    #expect(try await chunks.next() == Data("first".utf8))
    #expect(transport.requests.count == 1)
    transport.feed(nil)
    #expect(try await chunks.next() == nil)
    await eventually("the second request was sent") { transport.requests.count == 2 }
    transport.feed(nil)
    #expect(try await second.value.statusCode == 200)
  }

  @Test func cancelStopsAStreamBeingReadAndFreesItsSlot() async throws {
    let transport = FeedTransport()
    let networking = Networking<Probe>(mode: .limited(1), transport: .custom(transport))
    let response = try await networking.stream(Probe(.get("log")))
    let reader = Task {
      var chunks: [Data] = []
      do {
        for try await chunk in response.body { chunks.append(chunk) }
        Issue.record("the stream went on after cancel()")
        return (chunks, NetworkError?.none)
      } catch {
        return (chunks, error as? NetworkError)
      }
    }
    await eventually("the first chunk was read") { transport.requests.count == 1 }
    response.body.cancel()
    let (chunks, error) = await reader.value
    #expect(chunks.allSatisfy { $0 == Data("first".utf8) })
    #expect(error?.code == .cancelled)
    #expect(error?.isCancellation == true)
    #expect(error?.localizedDescription == error?.message)
    #expect(error?.description.hasPrefix("NetworkError.cancelled: ") == true, "\(String(describing: error))")
    await eventually("the body was stopped") { transport.stopped == 1 }
    response.body.cancel()  // again: nothing happens
    // The slot is free again, while the cancelled response is still held: the networking serves the next request.
    let next = try await networking.stream(Probe(.get("log")))
    #expect(next.statusCode == 200)
    #expect(transport.requests.count == 2)
    var more = next.body.makeAsyncIterator()
    #expect(try await more.next() == Data("first".utf8))
    withExtendedLifetime(response) {}
  }

  @Test func cancelBeforeReadingEndsTheFirstReadWithACancellation() async throws {
    let transport = FeedTransport()
    let networking = Networking<Probe>(transport: .custom(transport))
    let response = try await networking.stream(Probe(.get("log")))
    response.body.cancel()
    var chunks = response.body.makeAsyncIterator()
    do {
      while try await chunks.next() != nil {}
      Issue.record("a cancelled stream ended normally")
    } catch let error as NetworkError {
      #expect(error.code == .cancelled)
    }
    await eventually("the body was stopped") { transport.stopped == 1 }
  }

  @Test func cancelAllRequestsStopsAStreamBeingRead() async throws {
    let transport = FeedTransport()
    let networking = Networking<Probe>(mode: .limited(1), transport: .custom(transport))
    let response = try await networking.stream(Probe(.get("log")))
    var chunks = response.body.makeAsyncIterator()
    #expect(try await chunks.next() == Data("first".utf8))
    networking.cancelAllRequests()
    do {
      _ = try await chunks.next()
      Issue.record("the stream went on after cancelAllRequests")
    } catch let error as NetworkError {
      #expect(error.code == .cancelled)
    }
    await eventually("the body was stopped") { transport.stopped == 1 }
    // The slot is free again.
    let next = try await networking.stream(Probe(.get("log")))
    #expect(next.statusCode == 200)
  }
}
