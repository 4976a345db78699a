import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuCore
import MalibuTransport
import Testing

@testable import MalibuStorage

/// Every file in a store directory is untrusted: each kind of bad file is set aside, reported by `load()` and by
/// `save()`, and the good entries next to it still load.
@Suite struct OfflineStoreUntrustedFilesTests {
  /// A bad file to plant next to a good entry, and the code it must be reported with.
  struct BadFile: Sendable, CustomTestStringConvertible {
    let name: String
    let code: StorageError.Code
    /// Writes the bad file into the store's directory and returns its name.
    let plant: @Sendable (OfflineRequestStore) throws -> String
    var testDescription: String { name }
  }

  /// The entry `DELETE https://example.com/boards/9`, whose file name the forged JSON below carries.
  static var boardNine: StoredRequest {
    get throws { try StoredRequest(Request.delete("https://example.com/boards/9")) }
  }

  /// The JSON of ``boardNine`` as an attacker would write it, with any text as its sequence number.
  static func forged(_ sequence: String) throws -> Data {
    var entry = try boardNine
    entry.sequence = 777
    let json = String(decoding: try JSONEncoder().encode(entry), as: UTF8.self)
    #expect(json.contains(#""sequence":777"#))
    return Data(json.replacingOccurrences(of: #""sequence":777"#, with: #""sequence":\#(sequence)"#).utf8)
  }

  /// An entry file for `json` under `name`, signed with the store's own key as the store would sign it.
  static func signed(_ json: Data, name: String, in store: OfflineRequestStore) throws -> Data {
    let key = try [UInt8](Data(contentsOf: store.directory.appendingPathComponent(".key")))
    let mac = SHA256Digest.hexString(SHA256Digest.hmac(key: key, Array(name.utf8) + [0x0a] + Array(json)))
    return Data("malibu-offline-entry hmac-sha256=\(mac)\n".utf8) + json
  }

  static func write(_ data: Data, _ name: String, _ store: OfflineRequestStore) throws -> String {
    try data.write(to: store.directory.appendingPathComponent(name))
    return name
  }

  static let badFiles: [BadFile] = [
    BadFile(name: "forged entry with the sequence UInt64.max, no authentication", code: .untrustedEntry) { store in
      try write(try forged("18446744073709551615"), try boardNine.fileName, store)
    },
    BadFile(name: "forged entry with a made-up authentication code", code: .untrustedEntry) { store in
      let header = Data("malibu-offline-entry hmac-sha256=\(String(repeating: "0", count: 64))\n".utf8)
      return try write(header + (try forged("5")), try boardNine.fileName, store)
    },
    BadFile(name: "bad JSON, signed", code: .corruptEntry) { store in
      try write(try signed(Data("{\"version\": 1, \"method\": ".utf8), name: "bad.json", in: store), "bad.json", store)
    },
    BadFile(name: "wrong fields, signed", code: .corruptEntry) { store in
      let json = String(decoding: try forged("5"), as: UTF8.self)
        .replacingOccurrences(of: #""method":"DELETE""#, with: #""method":"""#)
      #expect(json.contains(#""method":"""#))
      return try write(try signed(Data(json.utf8), name: "fields.json", in: store), "fields.json", store)
    },
    BadFile(name: "sequence past UInt64.max, signed", code: .corruptEntry) { store in
      let name = try boardNine.fileName
      return try write(try signed(try forged("18446744073709551616"), name: name, in: store), name, store)
    },
    BadFile(name: "sequence 0, signed", code: .corruptEntry) { store in
      let name = try boardNine.fileName
      return try write(try signed(try forged("0"), name: name, in: store), name, store)
    },
    BadFile(name: "wrong checksum: a signed entry altered afterwards", code: .untrustedEntry) { store in
      let name = try boardNine.fileName
      // The sequence is not part of the entry's name, so only the authentication code can tell.
      let altered = String(decoding: try signed(try forged("5"), name: name, in: store), as: UTF8.self)
        .replacingOccurrences(of: #""sequence":5"#, with: #""sequence":6"#)
      #expect(altered.contains(#""sequence":6"#))
      return try write(Data(altered.utf8), name, store)
    },
    BadFile(name: "wrong name: a genuine entry copied under another name", code: .corruptEntry) { store in
      var entry = try boardNine
      entry.sequence = 5
      return try write(try store.entryFile(for: entry), "0000.json", store)
    },
    BadFile(name: "duplicate sequence: a genuine entry numbered like the good one", code: .corruptEntry) { store in
      // A request whose file name sorts after the good entry's, so that the rule "the first by name keeps the
      // number" and "an entry already loaded keeps it" agree.
      let good = try StoredRequest(Request.delete("https://example.com/boards/1")).fileName
      var index = 0
      var entry = try StoredRequest(Request.delete("https://example.com/twin/0"))
      while entry.fileName < good {
        index += 1
        entry = try StoredRequest(Request.delete("https://example.com/twin/\(index)"))
      }
      entry.sequence = 1
      return try write(try store.entryFile(for: entry), entry.fileName, store)
    },
    BadFile(name: "parameters nested 100,000 deep, signed", code: .corruptEntry) { store in
      let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
      let json = String(decoding: try forged("5"), as: UTF8.self)
        .replacingOccurrences(of: #""parameters":{}"#, with: #""parameters":{"a":\#(deep)}"#)
      #expect(json.contains(#""parameters":{"a":[["#))
      return try write(try signed(Data(json.utf8), name: "deep.json", in: store), "deep.json", store)
    },
    BadFile(name: "a directory", code: .corruptEntry) { store in
      try FileManager.default.createDirectory(
        at: store.directory.appendingPathComponent("folder.json"),
        withIntermediateDirectories: false
      )
      return "folder.json"
    },
    BadFile(name: "a symbolic link to a file outside", code: .ioFailed) { store in
      try FileManager.default.createSymbolicLink(
        atPath: store.directory.appendingPathComponent("link.json").path,
        withDestinationPath: "/etc/passwd"
      )
      return "link.json"
    },
  ]

  /// A store holding one good entry (sequence 1), and that entry.
  static func storeWithOneEntry(
    onProblem: (@Sendable (OfflineStoreProblem) -> Void)? = nil
  ) throws -> (OfflineRequestStore, StoredRequest) {
    let store = OfflineRequestStore(directory: makeTemporaryDirectory(), onProblem: onProblem)
    let good = try store.save(Request.delete("https://example.com/boards/1"))
    #expect(good.sequence == 1)
    return (store, good)
  }

  @Test("a bad file is set aside and reported by load(), the good entry still loads", arguments: badFiles)
  func loadSetsAside(_ bad: BadFile) throws {
    let reported = Locked<[OfflineStoreProblem]>([])
    let (store, good) = try Self.storeWithOneEntry { problem in reported.withLock { $0.append(problem) } }
    let name = try bad.plant(store)

    let contents = try store.load()
    #expect(contents.requests == [good])
    try #require(contents.problems.count == 1, "\(contents.problems)")
    let problem = contents.problems[0]
    #expect(problem.fileName == name)
    #expect(problem.code == bad.code, "\(problem)")
    #expect(reported.withLock { $0.map(\.fileName) } == [name])
    let movedTo = try #require(problem.movedTo)
    #expect(movedTo.deletingLastPathComponent().lastPathComponent == "corrupt")
    var isDirectory: ObjCBool = false
    #expect(!FileManager.default.fileExists(atPath: store.directory.appendingPathComponent(name).path))
    #expect(
      (try? FileManager.default.destinationOfSymbolicLink(atPath: movedTo.path)) != nil
        || FileManager.default.fileExists(atPath: movedTo.path, isDirectory: &isDirectory)
    )

    // Set aside once: the next load finds nothing more, and the store keeps saving.
    #expect(try store.load().problems.isEmpty)
    let next = try store.save(Request.delete("https://example.com/boards/2"))
    #expect(try store.all() == [good, next])
  }

  @Test(
    "a bad file is set aside and reported by the save() that finds it, and again by the next load()",
    arguments: badFiles
  )
  func saveSetsAside(_ bad: BadFile) throws {
    let (first, good) = try Self.storeWithOneEntry()
    let name = try bad.plant(first)
    first.close()
    let reported = Locked<[OfflineStoreProblem]>([])
    let store = OfflineRequestStore(directory: first.directory) { problem in
      reported.withLock { $0.append(problem) }
    }

    let saved = try store.save(Request.delete("https://example.com/boards/2"))
    #expect(saved.sequence == 2)
    #expect(reported.withLock { $0.map(\.fileName) } == [name])
    #expect(reported.withLock { $0.map(\.code) } == [bad.code])
    let contents = try store.load()
    #expect(contents.requests == [good, saved])
    #expect(contents.problems.map(\.fileName) == [name])
    #expect(reported.withLock { $0.count } == 1, "load() does not call onProblem again for what save() reported")
  }

  @Test func aForgedFileUnderTheNameBeingSavedIsSetAsideAndTheRequestSaved() throws {
    let reported = Locked<[OfflineStoreProblem]>([])
    let (store, good) = try Self.storeWithOneEntry { problem in reported.withLock { $0.append(problem) } }
    // The store has scanned already; the forged file appears afterwards under the very name the next save uses.
    let name = try Self.boardNine.fileName
    try Self.forged("18446744073709551615").write(to: store.directory.appendingPathComponent(name))

    let saved = try store.save(Request.delete("https://example.com/boards/9"))
    #expect(saved.sequence == 2)
    #expect(reported.withLock { $0.map(\.fileName) } == [name])
    #expect(reported.withLock { $0.map(\.code) } == [.untrustedEntry])
    store.close()
    let contents = try OfflineRequestStore(directory: store.directory).load()
    #expect(contents.requests == [good, saved])
    #expect(contents.problems.isEmpty)
  }

  @Test func theForgedMaximumSequenceOfTheIssueNeitherTrapsLoadNorSave() throws {
    let directory = makeTemporaryDirectory()
    try Self.forged("18446744073709551615").write(to: directory.appendingPathComponent(try Self.boardNine.fileName))
    let store = OfflineRequestStore(directory: directory)
    let saved = try store.save(Request.delete("https://example.com/boards/1"))
    #expect(saved.sequence == 1)
    store.close()
    let contents = try OfflineRequestStore(directory: directory).load()
    #expect(contents.requests == [saved])
  }

  @Test func saveAfterAGenuineEntryNumberedUInt64MaxRenumbersInOrder() throws {
    let (store, good) = try Self.storeWithOneEntry()
    var last = try Self.boardNine
    last.sequence = .max
    try store.entryFile(for: last).write(to: store.directory.appendingPathComponent(last.fileName))
    store.close()

    let reopened = OfflineRequestStore(directory: store.directory)
    #expect(try reopened.all().map(\.sequence) == [1, .max])
    let saved = try reopened.save(Request.delete("https://example.com/boards/3"))
    reopened.close()
    let all = try OfflineRequestStore(directory: store.directory).all()
    #expect(all.map(\.key) == [good.key, last.key, saved.key])
    #expect(all.map(\.sequence) == [1, 2, 3])
    #expect(saved.sequence == 3)
  }

  @Test func aSecondLoadReadsOnlyTheFilesThatChanged() throws {
    let directory = makeTemporaryDirectory()
    let writer = OfflineRequestStore(directory: directory)
    var saved: [StoredRequest] = []
    for index in 1...20 { saved.append(try writer.save(Request.delete("https://example.com/boards/\(index)"))) }
    writer.close()

    let store = OfflineRequestStore(directory: directory)
    #expect(try store.all() == saved)
    #expect(store.entryFilesRead == 20)
    #expect(try store.all() == saved)
    #expect(store.entryFilesRead == 20, "an unchanged store is not read again")

    // Another writer, in its turn: one entry rewritten with a new number, one removed, one added.
    store.close()
    var moved = saved[0]
    moved.sequence = 100
    try writer.entryFile(for: moved).write(to: directory.appendingPathComponent(moved.fileName), options: .atomic)
    try writer.remove(saved[1])
    let added = try writer.save(Request.delete("https://example.com/boards/new"))
    writer.close()
    let expected = Array(saved[2...]) + [added, moved].sorted { $0.sequence < $1.sequence }
    #expect(try store.all() == expected)
    #expect(store.entryFilesRead == 22)

    // A file replaced by a bad one is read again and set aside.
    try Data("junk".utf8).write(to: directory.appendingPathComponent(saved[2].fileName))
    let contents = try store.load()
    #expect(contents.problems.map(\.fileName) == [saved[2].fileName])
    #expect(contents.requests == Array(expected.dropFirst()))
  }

  @Test func aKeyFileOthersCanReadIsReplacedAndItsEntriesNoLongerTrusted() throws {
    let (store, good) = try Self.storeWithOneEntry()
    let keyFile = store.directory.appendingPathComponent(".key")
    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: keyFile.path)
    store.close()

    let reopened = OfflineRequestStore(directory: store.directory)
    let contents = try reopened.load()
    #expect(contents.requests.isEmpty)
    #expect(Set(contents.problems.map(\.fileName)) == [".key", good.fileName])
    #expect(Set(contents.problems.map(\.code)) == [.untrustedEntry])
    let attributes = try FileManager.default.attributesOfItem(atPath: keyFile.path)
    #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    let saved = try reopened.save(Request.delete("https://example.com/boards/1"))
    reopened.close()
    #expect(try OfflineRequestStore(directory: store.directory).all() == [saved])
  }

  @Test func aStoreDirectoryIsCreatedWithItsParentsAndPrivate() throws {
    let directory = makeTemporaryDirectory().appendingPathComponent("a/b/store", isDirectory: true)
    let store = OfflineRequestStore(directory: directory)
    let saved = try store.save(Request.delete("https://example.com/boards/1"))
    #expect(try store.all() == [saved])
    let attributes = try FileManager.default.attributesOfItem(atPath: directory.path)
    #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
  }

  @Test(arguments: ["", ".", "..", "../x", "a/b", "/etc", "x\0y"])
  func defaultDirectoryRefusesANameThatIsNotOneComponent(name: String) throws {
    #expect {
      try OfflineRequestStore.defaultDirectory(name: name)
    } throws: { error in
      (error as? StorageError)?.code == .invalidName
    }
    let good = try OfflineRequestStore.defaultDirectory(name: "sharkywaters")
    #expect(good.lastPathComponent == "sharkywaters")
    #expect(good.deletingLastPathComponent() == OfflineRequestStore.defaultDirectory().deletingLastPathComponent())
  }

  /// Loads a store of 2,000 entries twice and prints both times; runs only when the variable names a number of
  /// entries (the figures go into notes, never into assertions).
  @Test func loadTiming() throws {
    guard let count = ProcessInfo.processInfo.environment["MALIBU_STORE_TIMING_ENTRIES"].flatMap(Int.init) else {
      return
    }
    let directory = makeTemporaryDirectory()
    let writer = OfflineRequestStore(directory: directory)
    for index in 1...count {
      var entry = try StoredRequest(
        Request.post("https://example.com/boards/\(index)", parameters: ["title": "Balsa \(index)", "size": index])
      )
      entry.sequence = UInt64(index)
      try writer.entryFile(for: entry).write(to: directory.appendingPathComponent(entry.fileName))
    }
    let store = OfflineRequestStore(directory: directory)
    let clock = ContinuousClock()
    var loaded = 0
    let first = try clock.measure { loaded = try store.all().count }
    let second = try clock.measure { loaded = try store.all().count }
    print("offline store of \(loaded) entries: first load \(first), second load \(second)")
    #expect(loaded == count)
    #expect(store.entryFilesRead == count)
  }
}
