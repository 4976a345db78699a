import Foundation
import HTTPTypes
import MalibuCore
import MalibuTransport
import Testing

/// 100 MiB each way, with monotonic progress and flat memory.
@Suite("Large transfers", .serialized)
struct LargeTransferTests {
  static let size = StaticContent.large.size
  static let memoryBudget = 40 << 20

  @Test(arguments: Backend.allCases)
  func downloadWrittenToAFile(_ backend: Backend) async throws {
    let url = try await Servers.nginx("/identity/100m.bin")
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("malibu-integration-\(UUID()).bin")
    defer { try? FileManager.default.removeItem(at: file) }
    let progress = ProgressLog()
    let options = TransferOptions(progress: progress.handler)
    let (written, growth) = try await peakMemoryGrowth {
      _ = FileManager.default.createFile(atPath: file.path, contents: nil)
      let handle = try FileHandle(forWritingTo: file)
      defer { try? handle.close() }
      let response = try await backend.transport.send(HTTPRequest(method: .get, url: url), body: nil, options: options)
      var written = 0
      for try await chunk in response.body {
        try handle.write(contentsOf: chunk)
        written += chunk.count
      }
      return written
    }
    #expect(written == Self.size)
    if backend == .urlSession {
      // FoundationNetworking cannot pause a task, so a reader slower than the network buffers the difference
      // (README, "Transports"); on a busy machine the peak sometimes passes the budget.
      withKnownIssue("URLSession on Linux has no back-pressure", isIntermittent: true) {
        #expect(growth < Self.memoryBudget, "peak RSS growth \(growth >> 20) MiB")
      }
    } else {
      #expect(growth < Self.memoryBudget, "peak RSS growth \(growth >> 20) MiB")
    }
    #expect(progress.isMonotonic)
    #expect(progress.all.last?.downloaded == Int64(Self.size))
    let handle = try FileHandle(forReadingFrom: file)
    defer { try? handle.close() }
    try handle.seek(toOffset: UInt64(Self.size - 4096))
    #expect(try handle.readToEnd() == Data(StaticContent.bytes(in: (Self.size - 4096)..<Self.size)))
  }

  @Test(arguments: Backend.allCases)
  func uploadFromAFile(_ backend: Backend) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("malibu-integration-\(UUID())")
    defer { try? FileManager.default.removeItem(at: directory) }
    try StaticContent.materialize(in: directory)
    let source = directory.appendingPathComponent(StaticContent.large.name)
    let url = try await Servers.nginx("/upload")
    let progress = ProgressLog()
    let options = TransferOptions(progress: progress.handler)
    let (exchange, growth) = try await peakMemoryGrowth {
      try await backend.exchange(
        .put,
        url,
        headers: ["Content-Type": "application/octet-stream"],
        body: .file(source),
        options: options
      )
    }
    #expect(exchange.status == 200)
    #expect(try exchange.json()["received"] as? Int == Self.size)
    #expect(growth < Self.memoryBudget, "peak RSS growth \(growth >> 20) MiB")
    #expect(progress.isMonotonic)
    #expect(progress.all.last?.uploaded == Int64(Self.size))
  }

  @Test(arguments: Backend.allCases)
  func downloadCollected(_ backend: Backend) async throws {
    let exchange = try await backend.exchange(Servers.nginx("/identity/100m.bin"))
    #expect(exchange.data.count == Self.size)
    // The start, stretches across the 8 MiB windows the buffer is faulted in by (and the middle), the end.
    #expect(exchange.data.prefix(64) == Data(StaticContent.bytes(in: 0..<64)))
    for boundary in [8 << 20, 16 << 20, Self.size / 2, Self.size - (8 << 20)] {
      let stretch = boundary - 4096..<boundary + 4096
      #expect(exchange.data[stretch] == Data(StaticContent.bytes(in: stretch)), "bytes around offset \(boundary)")
    }
    #expect(exchange.data.suffix(64) == Data(StaticContent.bytes(in: (Self.size - 64)..<Self.size)))
  }
}
