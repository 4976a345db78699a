import Foundation
import HTTPTypes
import MalibuTestSupport
import MalibuTransport
import Testing

@testable import MalibuCurl

/// The name of the calling thread (`malibu-curl` on a transport's loop).
func currentThreadName() -> String {
  let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
  return name.trimmingCharacters(in: .whitespacesAndNewlines)
}

extension CurlTests {
  /// `CurlTransport.taskExecutor`: tasks that prefer it run on the loop thread, between its rounds.
  @Suite struct TaskExecutor {
    @Test func aTaskThatPrefersTheLoopRunsItsRequestsOnTheLoopThread() async throws {
      try await withServer { server, transport in
        let names = try await withTaskExecutorPreference(transport.taskExecutor) {
          var names: Set<String> = [currentThreadName()]
          for size in [0, 100, 70_000, 100, 0] {
            let (head, data, _) = try await transport.data(
              for: request(server.url("/bytes?size=\(size)")),
              body: nil,
              options: .init(),
              upTo: 1 << 20
            )
            #expect(head.status.code == 200)
            #expect(data == pattern(size))
            names.insert(currentThreadName())
          }
          // Streamed, with back-pressure: the reader drains the channel on the very thread that fills it.
          let response = try await transport.send(
            request(server.url("/bytes?size=3000000")),
            body: nil,
            options: .init()
          )
          var received = Data()
          for try await chunk in response.body {
            received.append(chunk)
            names.insert(currentThreadName())
          }
          #expect(received == pattern(3_000_000))
          // An upload streamed from an async sequence, echoed back.
          let upload = pattern(200_000)
          let pieces = stride(from: 0, to: upload.count, by: 10_000).map { upload[$0..<min($0 + 10_000, upload.count)] }
          let chunks = AsyncStream<Data> { continuation in
            for piece in pieces { continuation.yield(Data(piece)) }
            continuation.finish()
          }
          let (head, echoed, _) = try await transport.data(
            for: request(.post, server.url("/echo")),
            body: .stream(chunks, length: nil),
            options: .init(),
            upTo: 1 << 20
          )
          #expect(head.status.code == 200)
          #expect(echoed == upload)
          names.insert(currentThreadName())
          return names
        }
        #expect(names == ["malibu-curl"])
        // Without the preference, the caller is resumed on the global pool, as before.
        _ = try await transport.data(for: request(server.url("/bytes?size=10")), body: nil, options: .init(), upTo: 100)
        #expect(currentThreadName() != "malibu-curl")
      }
    }

    @Test func childTasksInheritThePreference() async throws {
      try await withServer { server, transport in
        let results = try await withTaskExecutorPreference(transport.taskExecutor) {
          try await withThrowingTaskGroup(of: (Bool, String).self) { group in
            for index in 0..<24 {
              group.addTask {
                let size = 1000 + index
                let (_, data, _) = try await transport.data(
                  for: request(server.url("/bytes?size=\(size)")),
                  body: nil,
                  options: .init(),
                  upTo: 1 << 20
                )
                return (data == pattern(size), currentThreadName())
              }
            }
            var results: [(Bool, String)] = []
            for try await result in group { results.append(result) }
            return results
          }
        }
        #expect(results.count == 24)
        #expect(results.allSatisfy { $0.0 && $0.1 == "malibu-curl" })
      }
    }

    @Test func aTaskCanStartTheLoopBeforeAnyRequest() async throws {
      let transport = CurlTransport()
      defer { transport.shutdown() }
      let name = await withTaskExecutorPreference(transport.taskExecutor) {
        await Task.yield()
        return currentThreadName()
      }
      #expect(name == "malibu-curl")
    }

    @Test func afterShutdownTasksRunOnTheGlobalPoolAndRequestsFailClearly() async throws {
      try await withServer { server, transport in
        try await expectServes(transport, server)
        transport.shutdown()
        let (name, code) = await withTaskExecutorPreference(transport.taskExecutor) {
          await Task.yield()
          let code = await errorCode {
            _ = try await transport.data(
              for: request(server.url("/bytes?size=1")),
              body: nil,
              options: .init(),
              upTo: 10
            )
          }
          return (currentThreadName(), code)
        }
        #expect(name != "malibu-curl")
        #expect(code == .cancelled)
      }
    }

    /// Tasks keep yielding on the loop while the transport is shut down from outside, and while requests are in
    /// flight: every task still ends (a job the loop can no longer run goes to the global pool, never dropped), and
    /// each request either succeeds or fails with `cancelled`.
    @Test(.timeLimit(.minutes(1))) func shuttingDownUnderRunningTasksLosesNoTask() async throws {
      let server = try TestServer(echo: .body)
      defer { server.stop() }
      for round in 0..<5 {
        let transport = CurlTransport()
        try await expectServes(transport, server)
        let outcomes = await withTaskExecutorPreference(transport.taskExecutor) {
          await withTaskGroup(of: String.self) { group in
            for index in 0..<8 {
              group.addTask {
                if index.isMultiple(of: 2) {
                  for _ in 0..<300 { await Task.yield() }
                  return "yielded"
                }
                let code = await errorCode {
                  let (_, data, _) = try await transport.data(
                    for: request(server.url("/bytes?size=50000")),
                    body: nil,
                    options: .init(),
                    upTo: 1 << 20
                  )
                  #expect(data == pattern(50_000))
                }
                return code.map { "\($0)" } ?? "ok"
              }
            }
            group.addTask {
              for _ in 0..<(round * 20) { await Task.yield() }
              transport.shutdown()  // on the loop thread itself in some rounds
              return "shut down"
            }
            var outcomes: [String] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
          }
        }
        #expect(outcomes.count == 9)
        #expect(outcomes.allSatisfy { ["yielded", "ok", "cancelled", "shut down"].contains($0) })
      }
    }
  }
}
