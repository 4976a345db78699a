#if OpenAPI
import Foundation
import HTTPTypes
import MalibuOpenAPI
import MalibuOpenAPIExampleClient
import MalibuTransport
import OpenAPIRuntime
import Testing

/// 100 MiB down and 64 MiB up through the generated client, streamed with flat memory: the `HTTPBody` on either side
/// is read chunk by chunk as the transport moves the bytes.
@Suite("OpenAPI large transfers", .serialized)
struct OpenAPILargeTransferTests {
  static let memoryBudget = 40 << 20
  static let uploadSize = 64 << 20

  @Test(arguments: Backend.allCases)
  func streamedDownload(_ backend: Backend) async throws {
    let client = try await backend.openAPIClient(LocalServers.shared.nginx())
    let size = StaticContent.large.size
    let ((received, tail), growth) = try await peakMemoryGrowth {
      let body = try await client.downloadFile(path: .init(file: StaticContent.large.name)).ok.body.binary
      #expect(body.length == .known(Int64(size)))
      var received = 0
      var tail = ArraySlice<UInt8>()
      for try await chunk in body {
        received += chunk.count
        tail = (tail + chunk).suffix(4096)
      }
      return (received, tail)
    }
    #expect(received == size)
    #expect(Array(tail) == StaticContent.bytes(in: (size - 4096)..<size))
    if backend == .urlSession {
      // As in LargeTransferTests: FoundationNetworking cannot pause a task, so a slow reader buffers the difference.
      withKnownIssue("URLSession on Linux has no back-pressure", isIntermittent: true) {
        #expect(growth < Self.memoryBudget, "peak RSS growth \(growth >> 20) MiB")
      }
    } else {
      #expect(growth < Self.memoryBudget, "peak RSS growth \(growth >> 20) MiB")
    }
  }

  @Test(arguments: Backend.allCases)
  func streamedUpload(_ backend: Backend) async throws {
    let client = try await backend.openAPIClient(LocalServers.shared.nginx())
    let size = Self.uploadSize
    let (receipt, growth) = try await peakMemoryGrowth {
      // Made as it is read, never whole: 64 KiB chunks, each of one byte value.
      let body = HTTPBody(GeneratedBytes(count: size), length: .known(Int64(size)), iterationBehavior: .single)
      return try await client.upload(body: .binary(body)).ok.body.json
    }
    #expect(receipt.method == "PUT")
    #expect(receipt.received == Int64(size))
    #expect(growth < Self.memoryBudget, "peak RSS growth \(growth >> 20) MiB")
  }
}

/// `count` bytes in 64 KiB chunks, each made when the reader asks for it.
struct GeneratedBytes: AsyncSequence, Sendable {
  typealias Element = ArraySlice<UInt8>
  let count: Int

  struct AsyncIterator: AsyncIteratorProtocol {
    var remaining: Int

    mutating func next() async throws -> ArraySlice<UInt8>? {
      guard remaining > 0 else { return nil }
      let size = Swift.min(remaining, 64 << 10)
      remaining -= size
      return ArraySlice(repeating: UInt8(truncatingIfNeeded: remaining >> 16), count: size)
    }
  }

  func makeAsyncIterator() -> AsyncIterator {
    AsyncIterator(remaining: count)
  }
}
#endif
