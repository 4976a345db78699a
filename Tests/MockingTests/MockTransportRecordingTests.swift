import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuCore
import MalibuMocking
import MalibuTransport
import Synchronization
import Testing

@Suite("MockTransport recording, delays and concurrency")
struct MockTransportRecordingTests {
  enum BodyKind: String, Sendable, CaseIterable {
    case none
    case data
    case file
    case stream
  }

  @Test("requests are recorded in order with their bodies", arguments: BodyKind.allCases)
  func recordsBodies(_ kind: BodyKind) async throws {
    let transport = MockTransport()
    transport.stub(.post, "/upload", status: .ok)
    let payload = Data((0..<200_000).map { UInt8($0 % 251) })
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let body: RequestBody?
    switch kind {
    case .none:
      body = nil
    case .data:
      body = .data(payload)
    case .file:
      let file = directory.appendingPathComponent("payload.bin")
      try payload.write(to: file)
      body = try RequestBody.file(file)
    case .stream:
      let chunks = stride(from: 0, to: payload.count, by: 30_000).map {
        payload.subdata(in: $0..<min($0 + 30_000, payload.count))
      }
      body = .stream(
        AsyncStream { continuation in
          for chunk in chunks { continuation.yield(chunk) }
          continuation.finish()
        },
        length: nil
      )
    }
    let fields: HTTPFields = [.contentType: "application/octet-stream"]
    _ = try await transport.send(makeRequest(.post, "/upload", fields: fields), body: body, options: TransferOptions())
    _ = try await transport.send(makeRequest(.post, "/upload?second"), body: nil, options: TransferOptions())

    let recorded = transport.recordedRequests
    #expect(recorded.count == 2)
    #expect(recorded.map(\.path) == ["/upload", "/upload?second"])
    #expect(recorded[0].method == .post)
    #expect(recorded[0].headerFields[.contentType] == "application/octet-stream")
    #expect(recorded[0].url?.absoluteString == "http://127.0.0.1:8080/upload")
    #expect(recorded[0].body == (kind == .none ? nil : payload))
    #expect(recorded[1].body == nil)
  }

  @Test("a body that cannot be read fails with invalidRequest and is recorded without a body")
  func unreadableBody() async throws {
    let transport = MockTransport()
    transport.stub(.put, "/upload", status: .ok)
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("shrinking.bin")
    try Data(count: 1000).write(to: file)
    let body = try RequestBody.file(file)
    try Data(count: 10).write(to: file)  // shrinks after the length was taken
    let error = await caughtError {
      _ = try await transport.send(makeRequest(.put, "/upload"), body: body, options: TransferOptions())
    }
    #expect((error as? TransportError)?.code == .invalidRequest)
    #expect(transport.recordedRequests.count == 1)
    #expect(transport.recordedRequests.first?.body == nil)
  }

  @Test("reset forgets stubs and recordings; removeRecordedRequests keeps stubs")
  func resetting() async throws {
    let transport = MockTransport()
    transport.stub(.get, "/a", status: .ok)
    _ = try await transport.send(makeRequest(.get, "/a"), body: nil, options: TransferOptions())
    transport.removeRecordedRequests()
    #expect(transport.recordedRequests.isEmpty)
    _ = try await transport.send(makeRequest(.get, "/a"), body: nil, options: TransferOptions())
    #expect(transport.recordedRequests.count == 1)
    transport.reset()
    #expect(transport.recordedRequests.isEmpty)
    let error = await caughtError {
      _ = try await transport.send(makeRequest(.get, "/a"), body: nil, options: TransferOptions())
    }
    #expect((error as? TransportError)?.code == .other)
  }

  @Test("a handler can script a sequence of replies")
  func scriptedHandler() async throws {
    let transport = MockTransport()
    let calls = Locked(0)
    transport.stub(.get, "/me") { request in
      let call = calls.withLock { count in
        count += 1
        return count
      }
      let authorized = request.headerFields[.authorization] != nil
      return MockTransport.Reply(status: call == 1 || !authorized ? .unauthorized : .ok)
    }
    let first = try await transport.send(makeRequest(.get, "/me"), body: nil, options: TransferOptions())
    let fields: HTTPFields = [.authorization: "Bearer t"]
    let second = try await transport.send(
      makeRequest(.get, "/me", fields: fields),
      body: nil,
      options: TransferOptions()
    )
    #expect(first.head.status == .unauthorized)
    #expect(second.head.status == .ok)
  }

  @Test("data(for:upTo:) enforces the size limit")
  func bodyLimit() async throws {
    let transport = MockTransport()
    transport.stub(.get, "/big", body: Data(count: 2048))
    let error = await caughtError {
      _ = try await transport.data(for: makeRequest(.get, "/big"), body: nil, options: TransferOptions(), upTo: 1024)
    }
    #expect((error as? TransportError)?.code == .bodyTooLarge)
    let (_, data, _) = try await transport.data(
      for: makeRequest(.get, "/big"),
      body: nil,
      options: TransferOptions(),
      upTo: 4096
    )
    #expect(data.count == 2048)
  }

  @Test("a delayed reply still answers")
  func delayedReply() async throws {
    let transport = MockTransport()
    transport.stub(.get, "/slow", status: .accepted, delay: .milliseconds(20))
    let response = try await transport.send(makeRequest(.get, "/slow"), body: nil, options: TransferOptions())
    #expect(response.head.status == .accepted)
  }

  @Test("cancelling the task during a delay ends with a cancellation error", arguments: [false, true])
  func cancellationDuringDelay(_ failing: Bool) async throws {
    let transport = MockTransport()
    if failing {
      transport.stub(
        .get,
        "/slow",
        error: TransportError(code: .connectionReset, message: "late"),
        delay: .seconds(600)
      )
    } else {
      transport.stub(.get, "/slow", status: .ok, delay: .seconds(600))
    }
    let task = Task {
      try await transport.send(makeRequest(.get, "/slow"), body: nil, options: TransferOptions())
    }
    while transport.recordedRequests.isEmpty { await Task.yield() }
    task.cancel()
    let error = await caughtError { _ = try await task.value }
    #expect((error as? TransportError)?.code == .cancelled)
  }

  @Test("100 concurrent requests are all answered and recorded")
  func concurrentRequests() async throws {
    let transport = MockTransport()
    transport.stub(.get, "/items/*") { request in
      MockTransport.Reply(body: Data((request.path ?? "").utf8))
    }
    let bodies = try await withThrowingTaskGroup(of: (Int, String).self) { group in
      for index in 0..<100 {
        group.addTask {
          let (_, data, _) = try await transport.data(
            for: makeRequest(.get, "/items/\(index)"),
            body: .data(Data("\(index)".utf8)),
            options: TransferOptions(),
            upTo: 1024
          )
          return (index, String(decoding: data, as: UTF8.self))
        }
      }
      var results: [Int: String] = [:]
      for try await (index, body) in group { results[index] = body }
      return results
    }
    #expect(bodies.count == 100)
    #expect(bodies.allSatisfy { $0.value == "/items/\($0.key)" })
    let recorded = transport.recordedRequests
    #expect(recorded.count == 100)
    #expect(Set(recorded.compactMap(\.path)).count == 100)
    #expect(
      recorded.allSatisfy {
        String(decoding: $0.body ?? Data(), as: UTF8.self) == $0.path?.split(separator: "/").last.map(String.init)
      }
    )
  }
}
