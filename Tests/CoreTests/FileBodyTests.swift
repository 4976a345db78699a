import Foundation
import MalibuCore
import Testing

@Suite("FileBody")
struct FileBodyTests {
  private func temporaryFile(size: Int) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("malibu-filebody-\(UUID().uuidString)")
    let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    try Data(bytes).write(to: url)
    return url
  }

  private func readAll(_ reader: any BodyReader, bufferSize: Int) throws -> Data {
    var result = Data()
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 1)
    defer { buffer.deallocate() }
    while true {
      let count = try reader.read(into: buffer)
      if count == 0 { return result }
      result.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
    }
  }

  @Test(arguments: [(0, 7), (1, 1), (1000, 7), (300_000, 65_536)])
  func readsTheWholeFileInChunks(_ size: Int, _ bufferSize: Int) throws {
    let url = try temporaryFile(size: size)
    defer { try? FileManager.default.removeItem(at: url) }
    let body = try FileBody(url: url)
    #expect(body.length == UInt64(size))
    #expect(try readAll(body.makeReader(), bufferSize: bufferSize) == Data(contentsOf: url))
    // A second pass starts over, as a redirect that resends the body needs.
    #expect(try readAll(body.makeReader(), bufferSize: bufferSize).count == size)
  }

  @Test func missingFileIsAClearError() {
    #expect {
      try FileBody(url: URL(fileURLWithPath: "/nonexistent/malibu/file.bin"))
    } throws: { error in
      (error as? NetworkError)?.code == .encodingFailed
    }
  }

  @Test func directoryIsRejected() {
    #expect(throws: NetworkError.self) { try FileBody(url: FileManager.default.temporaryDirectory) }
  }

  @Test func fileThatGrowsIsAnError() throws {
    let url = try temporaryFile(size: 100)
    defer { try? FileManager.default.removeItem(at: url) }
    let body = try FileBody(url: url)
    let handle = try FileHandle(forWritingTo: url)
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(count: 10))
    try handle.close()
    #expect(throws: NetworkError.self) { try readAll(body.makeReader(), bufferSize: 64) }
  }

  @Test func fileThatShrinksIsAnError() throws {
    let url = try temporaryFile(size: 100)
    defer { try? FileManager.default.removeItem(at: url) }
    let body = try FileBody(url: url)
    try Data(count: 10).write(to: url)
    #expect(throws: NetworkError.self) { try readAll(body.makeReader(), bufferSize: 64) }
  }
}
