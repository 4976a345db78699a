import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuCore
import MalibuTestSupport
import MalibuTransport
import Testing

@testable import MalibuURLSession

extension URLSessionTransportTests {
  @Suite struct Resources {
    /// Hundreds of requests leave the process's file descriptors and threads where they were.
    @Test func sequentialRequestsLeaveFDsAndThreadsAtBaseline() async throws {
      let fixture = try Fixture()
      let plain = fixture.request(.get, "/bytes?size=2000")
      let streamed = fixture.request(.post, "/echo")
      // Warm up: the pooled connection, URLSession's and libdispatch's threads.
      for _ in 0..<20 { _ = try await fixture.fetch(plain) }
      _ = try await fixture.fetch(streamed, body: .stream(chunks(of: pattern(10), size: 5), length: nil))
      try await Task.sleep(for: .milliseconds(300))
      let before = processResources()
      for index in 0..<500 {
        switch index % 10 {
        case 0:
          _ = try await fixture.fetch(streamed, body: .stream(chunks(of: pattern(100), size: 30), length: nil))
        case 1:
          _ = try await fixture.fetch(fixture.request(.get, "/gzip?size=5000"))
        case 2:
          _ = try await fixture.fetch(fixture.request(.get, "/redirect?status=302&to=/bytes"))
        default:
          let response = try await fixture.fetch(plain)
          #expect(response.body.count == 2000)
        }
      }
      // Threads and sockets wind down asynchronously; allow them a moment, then compare.
      var after = processResources()
      for _ in 0..<100 where after.fds > before.fds || after.threads > before.threads {
        try await Task.sleep(for: .milliseconds(50))
        after = processResources()
      }
      #expect(after.fds <= before.fds)
      #expect(after.threads <= before.threads)
    }

    /// A 100 MiB upload from a file does not hold the file in memory.
    @Test func largeFileUploadKeepsMemoryFlat() async throws {
      let fixture = try Fixture()
      let url = FileManager.default.temporaryDirectory.appendingPathComponent("malibu-big-\(UUID().uuidString)")
      let size = 100 << 20
      #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
      let handle = try FileHandle(forWritingTo: url)
      let block = pattern(1 << 20)
      for _ in 0..<100 { try handle.write(contentsOf: block) }
      try handle.close()
      defer { try? FileManager.default.removeItem(at: url) }
      // Reset the peak-RSS counter (Linux: writing 5 to clear_refs), then compare the peak with where we started.
      try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
      let baseline = memoryStatus("VmRSS")
      let seen = Locked(Int64(0))
      var options = TransferOptions()
      options.progress = { progress in seen.withLock { $0 = max($0, progress.uploaded) } }
      let response = try await fixture.fetch(fixture.request(.put, "/sink"), body: try .file(url), options: options)
      #expect(response.body == Data(String(size).utf8))
      #expect(seen.withLock { $0 } == Int64(size))
      let peak = memoryStatus("VmHWM")
      #expect(peak - baseline < 48 * 1024, "peak RSS grew by \(peak - baseline) KiB")
    }
  }
}
