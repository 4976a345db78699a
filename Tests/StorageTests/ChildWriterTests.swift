import Foundation
import HTTPTypes
import MalibuCore
import Testing

@testable import MalibuStorage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Kills a writer process with SIGKILL in the middle of saving and checks every acknowledged entry.
///
/// The writer is this test binary run again with an environment variable and a filter that selects only
/// ``childWriter()``; in a normal run that test does nothing.
@Suite struct ChildWriterTests {
  static let directoryVariable = "MALIBU_STORAGE_CHILD_WRITER_DIR"
  static let acknowledgementsBeforeKill = 25

  static func payload(_ index: Int) -> Data {
    Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) })
  }

  static func request(_ index: Int) -> Request {
    Request(
      method: .post,
      resource: "https://example.com/items/\(index)",
      task: .uploadData(payload(index)),
      storePolicy: .offline
    )
  }

  /// The writer: active only in the child process.
  @Test func childWriter() throws {
    guard let path = ProcessInfo.processInfo.environment[Self.directoryVariable] else { return }
    let store = OfflineRequestStore(directory: URL(fileURLWithPath: path, isDirectory: true))
    for index in 1...20_000 {
      try store.save(Self.request(index))
      FileHandle.standardOutput.write(Data("ACK \(index)\n".utf8))
    }
  }

  @Test func everyAcknowledgedSaveSurvivesSIGKILL() throws {
    guard ProcessInfo.processInfo.environment[Self.directoryVariable] == nil else { return }
    let directory = makeTemporaryDirectory()
    let child = Process()
    child.executableURL = try Self.testExecutable()
    child.arguments = Self.childArguments()
    var environment = ProcessInfo.processInfo.environment
    environment[Self.directoryVariable] = directory.path
    child.environment = environment
    let output = Pipe()
    child.standardOutput = output
    child.standardError = FileHandle.nullDevice
    try child.run()

    var text = ""
    let reader = output.fileHandleForReading
    while Self.acknowledged(in: text).count < Self.acknowledgementsBeforeKill {
      let chunk = reader.availableData
      if chunk.isEmpty { break }  // the child ended on its own
      text += String(decoding: chunk, as: UTF8.self)
    }
    kill(child.processIdentifier, SIGKILL)
    child.waitUntilExit()
    text += String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)

    let acknowledged = Self.acknowledged(in: text)
    #expect(child.terminationReason == .uncaughtSignal, "the writer was killed in the middle of its loop")
    try #require(
      acknowledged.count >= Self.acknowledgementsBeforeKill,
      "the child writer did not start: \(text.prefix(500))"
    )
    let contents = try OfflineRequestStore(directory: directory).load()
    #expect(contents.problems.isEmpty, "\(contents.problems)")
    let stored = Dictionary(
      contents.requests.map { ($0.resource, $0) },
      uniquingKeysWith: { first, _ in first }
    )
    for index in acknowledged {
      let entry = try #require(stored["https://example.com/items/\(index)"], "entry \(index) was acknowledged")
      #expect(entry.task == .uploadData(Self.payload(index)))
    }
    // At most one save was under way, unacknowledged, when the child was killed.
    #expect(contents.requests.count <= acknowledged.count + 1)
    #expect(contents.requests.map(\.sequence) == contents.requests.map(\.sequence).sorted())
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
    #expect(!names.contains { $0.hasPrefix(".tmp-") })
  }

  private static func acknowledged(in text: String) -> [Int] {
    text.split(separator: "\n").compactMap { line in
      line.hasPrefix("ACK ") ? Int(line.dropFirst(4)) : nil
    }
  }

  static func testExecutable() throws -> URL {
    #if os(Linux)
    let path = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    return URL(fileURLWithPath: path)
    #else
    return URL(fileURLWithPath: CommandLine.arguments[0])
    #endif
  }

  /// The parent's own arguments with any filters replaced by one that selects only `test` (the writer by default).
  static func childArguments(selecting test: String = "ChildWriterTests/childWriter") -> [String] {
    var arguments: [String] = []
    var iterator = CommandLine.arguments.dropFirst().makeIterator()
    while let argument = iterator.next() {
      if argument == "--filter" || argument == "--skip" || argument == "--xunit-output"
        || argument == "--event-stream-output-path" || argument == "--configuration-path"
      {
        _ = iterator.next()
        continue
      }
      arguments.append(argument)
    }
    return arguments + ["--filter", test]
  }
}
