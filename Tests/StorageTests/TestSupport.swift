import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuCore
import MalibuTransport

/// The one folder every test directory of this process lives in; removed when the process exits.
private let temporaryRoot: URL = {
  let root = FileManager.default.temporaryDirectory.appendingPathComponent(
    "malibu-storage-tests-\(ProcessInfo.processInfo.processIdentifier)",
    isDirectory: true
  )
  atexit {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent(
      "malibu-storage-tests-\(ProcessInfo.processInfo.processIdentifier)",
      isDirectory: true
    )
    try? FileManager.default.removeItem(at: root)
  }
  return root
}()

/// A fresh, empty directory under this process's temporary root.
func makeTemporaryDirectory() -> URL {
  let url = temporaryRoot.appendingPathComponent(UUID().uuidString, isDirectory: true)
  try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  return url
}

/// A clock the tests move by hand.
final class TestClock: Sendable {
  private let current = Locked(Date(timeIntervalSince1970: 1_800_000_000))

  var now: Date { current.withLock { $0 } }

  func advance(by seconds: TimeInterval) {
    current.withLock { $0 = $0.addingTimeInterval(seconds) }
  }
}

/// A transport that answers with a closure and records every request head it was sent.
final class FakeTransport: Transport {
  typealias Handler = @Sendable (HTTPRequest) -> (HTTPResponse, Data)

  private let handler: Handler
  private let recorded = Locked<[HTTPRequest]>([])

  init(handler: @escaping Handler) {
    self.handler = handler
  }

  var requests: [HTTPRequest] { recorded.withLock { $0 } }

  func send(_ request: HTTPRequest, body: RequestBody?, options: TransferOptions) async throws -> TransportResponse {
    recorded.withLock { $0.append(request) }
    let (head, data) = handler(request)
    return TransportResponse(head: head, url: nil, body: ResponseBody(data: data))
  }
}

/// A response head with the given status and fields.
func responseHead(_ status: HTTPResponse.Status, _ fields: [(String, String)] = []) -> HTTPResponse {
  var head = HTTPResponse(status: status)
  for (name, value) in fields {
    head.headerFields.append(HTTPField(name: HTTPField.Name(name)!, value: value))
  }
  return head
}
