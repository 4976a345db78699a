import Foundation
import Malibu
import Testing

/// README.md's "Downloads" and "Streaming" examples, run against the fixtures' `MockTransport`.
@Suite("README: downloads and streaming")
struct ReadmeTransferTests {
  @Test func downloadAndStreamingExamplesRun() async throws {
    let fixtures = ReadmeFixtures()
    let destination = FileManager.default.temporaryDirectory.appendingPathComponent("boards.json")
    defer { try? FileManager.default.removeItem(at: destination) }
    try await ReadmeFixtures.$current.withValue(fixtures) {
      try await readmeDownloads()
      try await readmeStreaming()
    }
    #expect(try Data(contentsOf: destination) == ReadmeFixtures.boards)
    #expect(fixtures.transport.recordedRequests.map(\.path) == ["/api/boards", "/api/boards"])
  }
}
