import Foundation
import HTTPTypes
import MalibuCore
import Testing

@testable import MalibuStorage

/// One owner per store directory: a second instance or process is refused at once with `directoryInUse`, and the
/// owner loses nothing.
@Suite struct OfflineStoreOwnershipTests {
  static let ownerVariable = "MALIBU_STORAGE_OWNER_DIR"
  static let intruderVariable = "MALIBU_STORAGE_INTRUDER_DIR"
  static let savesPerProcess = 300

  static func request(_ index: Int, by writer: String) -> Request {
    Request.post("https://example.com/\(writer)/\(index)", parameters: ["index": index], storePolicy: .offline)
  }

  static func isDirectoryInUse(_ error: any Error) -> Bool {
    (error as? StorageError)?.code == .directoryInUse
  }

  @Test func aSecondInstanceIsRefusedAtOnceAndTheFirstKeepsWorking() throws {
    let directory = makeTemporaryDirectory()
    let owner = OfflineRequestStore(directory: directory)
    var saved: [StoredRequest] = []
    for index in 1...3 { saved.append(try owner.save(Self.request(index, by: "owner"))) }

    let second = OfflineRequestStore(directory: directory)
    let error = #expect(throws: StorageError.self) { try second.save(Self.request(1, by: "second")) }
    #expect(error?.code == .directoryInUse)
    #expect(error?.message.contains(directory.path) == true)
    #expect(error?.message.contains("one instance owns a directory at a time") == true)
    #expect(throws: StorageError.self, performing: { try second.load() })
    #expect(throws: StorageError.self, performing: { try second.all() })
    #expect(throws: StorageError.self, performing: { try second.remove(saved[0]) })
    #expect(throws: StorageError.self, performing: { try second.removeAll() })

    // The owner goes on, and nothing of it was touched.
    for index in 4...6 { saved.append(try owner.save(Self.request(index, by: "owner"))) }
    let contents = try owner.load()
    #expect(contents.requests == saved)
    #expect(contents.problems.isEmpty)
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
    #expect(!names.contains { $0.hasPrefix(".tmp-") })
  }

  @Test func theDirectoryOpensAgainOnceTheOwnerClosesOrGoesAway() throws {
    let directory = makeTemporaryDirectory()
    let first = OfflineRequestStore(directory: directory)
    let saved = try first.save(Self.request(1, by: "first"))
    let second = OfflineRequestStore(directory: directory)
    #expect(throws: StorageError.self, performing: { try second.load() })

    first.close()
    #expect(try second.all() == [saved])
    // Now the first one is the intruder, until the second goes away.
    #expect(throws: StorageError.self, performing: { try first.load() })
    let added = try second.save(Self.request(2, by: "second"))

    second.close()
    #expect(try first.all() == [saved, added])
  }

  @Test func releasedOnDeinit() throws {
    let directory = makeTemporaryDirectory()
    do {
      let store = OfflineRequestStore(directory: directory)
      try store.save(Self.request(1, by: "gone"))
    }
    #expect(try OfflineRequestStore(directory: directory).all().count == 1)
  }

  @Test func twoInstancesInOneProcessSavingTogetherLoseNothing() async throws {
    // The second case: 2 × 400 saves from two instances of one process acknowledged 800 and loaded 799.
    let directory = makeTemporaryDirectory()
    let stores = [OfflineRequestStore(directory: directory), OfflineRequestStore(directory: directory)]
    let outcomes = await withTaskGroup(of: (acknowledged: [String], refused: Int).self) { group in
      for (number, store) in stores.enumerated() {
        group.addTask {
          var acknowledged: [String] = []
          var refused = 0
          for index in 1...400 {
            do {
              acknowledged.append(try store.save(Self.request(index, by: "instance\(number)")).resource)
            } catch {
              if Self.isDirectoryInUse(error) { refused += 1 }
            }
          }
          return (acknowledged, refused)
        }
      }
      return await group.reduce(into: []) { $0.append($1) }
    }
    let acknowledged = outcomes.flatMap(\.acknowledged)
    #expect(acknowledged.count + outcomes.map(\.refused).reduce(0, +) == 800, "every refusal is directoryInUse")
    #expect(acknowledged.count >= 400)
    for store in stores { store.close() }
    let contents = try OfflineRequestStore(directory: directory).load()
    #expect(contents.problems.isEmpty, "\(contents.problems)")
    #expect(Set(contents.requests.map(\.resource)) == Set(acknowledged))
  }

  @Test func cleanUpRemovesOnlyTemporaryFilesNoLiveWriterCanOwn() throws {
    let directory = makeTemporaryDirectory()
    let manager = FileManager.default
    let stale = directory.appendingPathComponent(".tmp-4242-left-by-a-crash")
    let fresh = directory.appendingPathComponent(".tmp-4243-still-being-written")
    let own = directory.appendingPathComponent(StoreFile.processTemporaryPrefix + "interrupted")
    for file in [stale, fresh, own] { #expect(manager.createFile(atPath: file.path, contents: Data("x".utf8))) }
    try manager.setAttributes([.modificationDate: Date().addingTimeInterval(-60)], ofItemAtPath: stale.path)
    // Written after this instance takes the lock (by something that is not a store: no store could be writing).
    try manager.setAttributes([.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: fresh.path)
    try manager.setAttributes([.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: own.path)

    let store = OfflineRequestStore(directory: directory)
    #expect(try store.load().requests.isEmpty)
    let names = Set(try manager.contentsOfDirectory(atPath: directory.path))
    #expect(!names.contains(stale.lastPathComponent))
    #expect(!names.contains(own.lastPathComponent))
    #expect(names.contains(fresh.lastPathComponent))
    #expect(names.contains(DirectoryLock.fileName))
  }

  @Test func aLockFileThatIsNotARegularFileIsRefusedClearly() throws {
    let directory = makeTemporaryDirectory()
    try FileManager.default.createSymbolicLink(
      atPath: directory.appendingPathComponent(DirectoryLock.fileName).path,
      withDestinationPath: "/dev/null"
    )
    let error = #expect(throws: StorageError.self) { try OfflineRequestStore(directory: directory).load() }
    #expect(error?.code == .ioFailed)
  }

  // MARK: - Two processes

  /// Process A: owns the directory, saves 300, then holds on until its standard input closes.
  @Test func ownerProcess() throws {
    guard let path = ProcessInfo.processInfo.environment[Self.ownerVariable] else { return }
    let store = OfflineRequestStore(directory: URL(fileURLWithPath: path, isDirectory: true))
    _ = try store.load()
    FileHandle.standardOutput.write(Data("OWNED\n".utf8))
    for index in 1...Self.savesPerProcess {
      try store.save(Self.request(index, by: "A"))
      FileHandle.standardOutput.write(Data("ACK \(index)\n".utf8))
    }
    _ = FileHandle.standardInput.readDataToEndOfFile()
  }

  /// Process B: tries to save 300 into A's directory and reports how each try ended.
  @Test func intruderProcess() {
    guard let path = ProcessInfo.processInfo.environment[Self.intruderVariable] else { return }
    let store = OfflineRequestStore(directory: URL(fileURLWithPath: path, isDirectory: true))
    for index in 1...Self.savesPerProcess {
      do {
        try store.save(Self.request(index, by: "B"))
        FileHandle.standardOutput.write(Data("ACK \(index)\n".utf8))
      } catch {
        FileHandle.standardOutput.write(
          Data("REFUSED \(Self.isDirectoryInUse(error) ? "directoryInUse" : "\(error)")\n".utf8)
        )
      }
    }
  }

  @Test func aSecondProcessIsRefusedAndTheOwnersSavesAllLoad() throws {
    guard ProcessInfo.processInfo.environment[Self.ownerVariable] == nil,
      ProcessInfo.processInfo.environment[Self.intruderVariable] == nil
    else { return }
    let directory = makeTemporaryDirectory()

    let owner = Process()
    owner.executableURL = try ChildWriterTests.testExecutable()
    owner.arguments = ChildWriterTests.childArguments(selecting: "OfflineStoreOwnershipTests/ownerProcess")
    var environment = ProcessInfo.processInfo.environment
    environment[Self.ownerVariable] = directory.path
    owner.environment = environment
    let ownerOutput = Pipe()
    let ownerInput = Pipe()
    owner.standardOutput = ownerOutput
    owner.standardInput = ownerInput
    owner.standardError = FileHandle.nullDevice
    try owner.run()
    defer { if owner.isRunning { kill(owner.processIdentifier, SIGKILL) } }

    var ownerText = ""
    let reader = ownerOutput.fileHandleForReading
    while !ownerText.contains("OWNED\n") {
      let chunk = reader.availableData
      if chunk.isEmpty { break }
      ownerText += String(decoding: chunk, as: UTF8.self)
    }
    try #require(ownerText.contains("OWNED\n"), "the owner process did not start: \(ownerText.prefix(500))")

    // B runs while A saves.
    let intruder = Process()
    intruder.executableURL = owner.executableURL
    intruder.arguments = ChildWriterTests.childArguments(selecting: "OfflineStoreOwnershipTests/intruderProcess")
    environment[Self.ownerVariable] = nil
    environment[Self.intruderVariable] = directory.path
    intruder.environment = environment
    let intruderOutput = Pipe()
    intruder.standardOutput = intruderOutput
    intruder.standardError = FileHandle.nullDevice
    let started = Date()
    try intruder.run()
    let intruderText = String(decoding: intruderOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    intruder.waitUntilExit()
    let intruderSeconds = Date().timeIntervalSince(started)

    while Self.acknowledged(in: ownerText).count < Self.savesPerProcess {
      let chunk = reader.availableData
      if chunk.isEmpty { break }
      ownerText += String(decoding: chunk, as: UTF8.self)
    }
    try ownerInput.fileHandleForWriting.close()
    owner.waitUntilExit()

    let refusals = intruderText.split(separator: "\n").filter { $0 == "REFUSED directoryInUse" }
    #expect(refusals.count == Self.savesPerProcess, "B: \(intruderText.prefix(300))")
    #expect(Self.acknowledged(in: intruderText).isEmpty)
    // Refused at once: no try waits for the lock (a generous bound that only proves B never blocks on A).
    #expect(intruderSeconds < 60)
    #expect(owner.terminationStatus == 0)
    let acknowledged = Self.acknowledged(in: ownerText)
    #expect(acknowledged == Array(1...Self.savesPerProcess))

    let contents = try OfflineRequestStore(directory: directory).load()
    #expect(contents.problems.isEmpty, "\(contents.problems)")
    #expect(contents.requests.map(\.resource) == acknowledged.map { "https://example.com/A/\($0)" })
    let corrupt =
      (try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("corrupt").path)) ?? []
    #expect(corrupt.isEmpty)
  }

  private static func acknowledged(in text: String) -> [Int] {
    text.split(separator: "\n").compactMap { line in line.hasPrefix("ACK ") ? Int(line.dropFirst(4)) : nil }
  }
}
