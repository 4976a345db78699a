import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuCore
import MalibuTransport
import Testing

@testable import MalibuStorage

@Suite struct OfflineStoreMiddlewareTests {
  /// A transport that fails every request with one `TransportError` code until told to answer.
  private final class FailingTransport: Transport {
    let failure = Locked<TransportError.Code?>(.connectionRefused)
    let sent = Locked(0)

    func send(_ request: HTTPRequest, body: RequestBody?, options: TransferOptions) async throws -> TransportResponse {
      sent.withLock { $0 += 1 }
      if let code = failure.withLock({ $0 }) { throw TransportError(code: code, message: "\(code)") }
      return TransportResponse(head: HTTPResponse(status: .ok), url: nil, body: ResponseBody(data: Data("ok".utf8)))
    }
  }

  private let head = HTTPRequest(method: .delete, scheme: "http", authority: "127.0.0.1:9", path: "/api/boards/1")

  private func send(_ transport: any Transport, _ request: Request?) async throws -> TransportResponse {
    guard let request else { return try await transport.send(head, body: nil, options: TransferOptions()) }
    return try await SourceRequest.$current.withValue(SourceRequest(request, baseUrl: "http://127.0.0.1:9/api")) {
      try await transport.send(head, body: nil, options: TransferOptions())
    }
  }

  /// Only an `.offline` request failing with a host-unreachable code is saved, with its final URL; the error reaches
  /// the caller unchanged either way, and the same chain then serves a request that gets through.
  @Test(arguments: [
    (TransportError.Code.connectionRefused, StorePolicy.offline, true),
    (.dnsFailure, .offline, true),
    (.connectTimeout, .offline, true),
    (.idleTimeout, .offline, false),
    (.connectionReset, .offline, false),
    (.connectionRefused, .unspecified, false),
  ])
  func savesOnlyOfflineRequestsTheHostCouldNotBeReachedFor(
    code: TransportError.Code,
    policy: StorePolicy,
    saved: Bool
  )
    async throws
  {
    let store = OfflineRequestStore(directory: makeTemporaryDirectory())
    let base = FailingTransport()
    base.failure.withLock { $0 = code }
    let transport = base.with(middleware: [OfflineStoreMiddleware(store: store)])
    let request = Request.delete("boards/1", parameters: ["force": 1], storePolicy: policy)
    await #expect {
      _ = try await send(transport, request)
    } throws: { error in
      (error as? TransportError)?.code == code
    }
    let stored = try store.all()
    #expect(stored.count == (saved ? 1 : 0))
    if saved {
      #expect(stored[0].url?.absoluteString == "http://127.0.0.1:9/api/boards/1")
      #expect(stored[0].parameters == ["force": .int(1)])
    }
    base.failure.withLock { $0 = nil }
    let response = try await send(transport, request)
    #expect(response.head.status == .ok)
    #expect(try store.all().count == (saved ? 1 : 0))
  }

  /// Without a `SourceRequest` the step has nothing to save and passes the error on.
  @Test func withoutASourceRequestNothingIsSaved() async throws {
    let store = OfflineRequestStore(directory: makeTemporaryDirectory())
    let transport = FailingTransport().with(middleware: [OfflineStoreMiddleware(store: store)])
    await #expect(throws: TransportError.self) { _ = try await send(transport, nil) }
    #expect(try store.all().isEmpty)
  }

  /// A request the store cannot keep (an unsupported parameter) is reported through `onSaveFailure`; the caller still
  /// gets the transport's error.
  @Test func aFailedSaveIsReportedAndTheTransportErrorThrown() async throws {
    let store = OfflineRequestStore(directory: makeTemporaryDirectory())
    let failures = Locked<[StorageError]>([])
    let middleware = OfflineStoreMiddleware(store: store) { error in failures.withLock { $0.append(error) } }
    let transport = FailingTransport().with(middleware: [middleware])
    let request = Request.delete("boards/1", parameters: ["bad": Set([1])], storePolicy: .offline)
    await #expect {
      _ = try await send(transport, request)
    } throws: { error in
      (error as? TransportError)?.code == .connectionRefused
    }
    #expect(failures.withLock { $0.map(\.code) } == [.unsupportedRequest])
    #expect(try store.all().isEmpty)
  }
}
