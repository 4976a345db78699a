import Foundation
import HTTPTypes
import MalibuTestSupport
import MalibuTransport
import Testing

/// Long request loops leave no descriptors or threads behind.
@Suite("Resource hygiene", .serialized)
struct HygieneTests {
  @Test(arguments: Backend.allCases)
  func tenThousandRequestsLeaveDescriptorsAndThreadsWhereTheyWere(_ backend: Backend) async throws {
    let url = try await Servers.nginx("/1k.bin")
    let request = HTTPRequest(method: .get, url: url)
    // Warm up: the first requests open the pooled connection, the transport's threads and the worker threads of
    // Dispatch and Swift concurrency, which then come and go with load.
    for _ in 0..<1_000 { _ = try await backend.transport.data(for: request, body: nil, options: .init(), upTo: 4096) }
    try await Task.sleep(for: .milliseconds(200))
    let descriptors = openFileDescriptors()
    let threads = threadCount()
    for _ in 0..<10_000 {
      let (head, data, _) = try await backend.transport.data(for: request, body: nil, options: .init(), upTo: 4096)
      #expect(head.status == .ok && data.count == 1024)
    }
    // Idle pool threads retire after a few seconds; a leak does not.
    let deadline = ContinuousClock.now + .seconds(10)
    while (openFileDescriptors() > descriptors || threadCount() > threads) && ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(100))
    }
    #expect(openFileDescriptors() <= descriptors, "descriptors \(descriptors) → \(openFileDescriptors())")
    #expect(threadCount() <= threads, "threads \(threads) → \(threadCount())")
  }
}
