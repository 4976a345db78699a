import Foundation
import Malibu

/// `download(_:to:)` writes a body into a file as it arrives (renamed into place once complete); `stream(_:)` hands
/// back the response head at once and the body as an `AsyncSequence` of chunks, read as they arrive.
enum DownloadStep {
  static func run(_ options: DemoOptions) async throws {
    let networking = Networking<HttpbinEndpoint>()
    let directory = try TemporaryDirectory(prefix: "malibu-demo-download")
    defer { directory.remove() }

    let destination = directory.url.appendingPathComponent("bytes.bin")
    let size = 100 * 1024  // httpbin's largest /bytes answer
    let (file, elapsed) = try await timed { try await networking.download(.bytes(size), to: destination).value }
    let onDisk = try FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? Int
    try expect(
      file.byteCount == Int64(size) && onDisk == size,
      "the download wrote \(file.byteCount) bytes, \(String(describing: onDisk)) on disk"
    )
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0 != "bytes.bin" }
    try expect(leftovers.isEmpty, "the download left \(leftovers) beside the file")
    report(
      "GET /bytes/\(size) downloaded to \(destination.lastPathComponent): \(size.byteCount) on disk "
        + "in \(elapsed.shortDescription), nothing left beside it"
    )

    let start = ContinuousClock.now
    let response = try await networking.stream(.drip(bytes: 5, seconds: 2))
    let headAfter = ContinuousClock.now - start
    try expect(response.statusCode == 200, "GET /drip answered \(response.statusCode)")
    var arrivals: [String] = []
    var received = 0
    for try await chunk in response.body {
      received += chunk.count
      arrivals.append("\(chunk.count) B at \((ContinuousClock.now - start).shortDescription)")
    }
    try expect(received == 5, "GET /drip streamed \(received) bytes")
    report(
      "GET /drip (5 bytes over 2 s) streamed: head after \(headAfter.shortDescription), then "
        + arrivals.joined(separator: ", ")
    )
  }
}
