import Foundation
import HTTPTypes
import MalibuTestSupport
import MalibuTransport
import Testing

@testable import MalibuCurl

extension CurlTests {
  @Suite struct Resources {
    @Test func sequentialRequestsLeaveDescriptorsAndThreadsAtBaseline() async throws {
      let server = try TestServer(echo: .body)
      defer { server.stop() }
      // Warm up the process (the cooperative pool, libcurl's global state) with a transport of its own.
      let warmUp = CurlTransport()
      try await expectServes(warmUp, server)
      warmUp.shutdown()
      await server.waitForIdle()
      let baselineDescriptors = await descriptorBaseline()
      let baselineThreads = threadCounts().all

      let transport = CurlTransport()
      var afterFirstHundred = 0
      for index in 0..<2_000 {
        let (head, data, _) = try await transport.data(
          for: request(server.url("/bytes?size=100")),
          body: nil,
          options: .init(),
          upTo: 1000
        )
        #expect(head.status.code == 200 && data.count == 100)
        if index == 99 { afterFirstHundred = openFileDescriptors() }
      }
      #expect(openFileDescriptors() == afterFirstHundred)
      #expect(server.acceptedConnections == 2)  // the warm-up's and this transport's: kept alive throughout
      transport.shutdown()
      #expect(threadCounts().loops == 0)
      await server.waitForIdle()
      // Earlier tests of the serial run may still be closing a descriptor of their own: wait, as for threads, for
      // the process to settle; a descriptor this transport leaked never goes.
      for _ in 0..<200 where openFileDescriptors() != baselineDescriptors {
        try await Task.sleep(for: .milliseconds(10))
      }
      #expect(openFileDescriptors() == baselineDescriptors)
      for _ in 0..<200 where threadCounts().all > baselineThreads {
        try await Task.sleep(for: .milliseconds(10))
      }
      #expect(threadCounts().all <= baselineThreads)
    }

    @Test func releasingTheTransportEndsItsThread() async throws {
      let server = try TestServer(echo: .body)
      defer { server.stop() }
      var transport: CurlTransport? = CurlTransport()
      try await expectServes(transport!, server)
      #expect(threadCounts().loops == 1)
      transport = nil
      for _ in 0..<200 where threadCounts().loops > 0 {
        try await Task.sleep(for: .milliseconds(10))
      }
      #expect(threadCounts().loops == 0)
      await server.waitForIdle()
      #expect(server.openConnections == 0)
    }

    @Test func manyConcurrentRequestsAllCorrect() async throws {
      try await withServer { server, transport in
        let total = 200
        let inFlight = 32
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
          var next = 0
          var correct = 0
          func add() {
            let size = 1000 + next * 37
            let path = next % 2 == 0 ? "/bytes?size=\(size)" : "/gzip?size=\(size)"
            next += 1
            group.addTask {
              let (head, data, _) = try await transport.data(
                for: request(server.url(path)),
                body: nil,
                options: .init(),
                upTo: 1 << 20
              )
              return head.status.code == 200 && data == pattern(size)
            }
          }
          for _ in 0..<inFlight { add() }
          while let ok = try await group.next() {
            if ok { correct += 1 }
            if next < total { add() }
          }
          return correct
        }
        #expect(results == total)
        #expect(server.acceptedConnections <= inFlight)
      }
    }
  }
}
