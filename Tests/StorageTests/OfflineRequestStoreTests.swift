import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuCore
import MalibuTransport
import Testing

@testable import MalibuStorage

@Suite struct OfflineRequestStoreTests {
  @Test func savesLoadsAndRemovesInInsertionOrder() throws {
    let store = OfflineRequestStore(directory: makeTemporaryDirectory())
    let first = try store.save(Request.delete("https://example.com/boards/1", storePolicy: .offline))
    let second = try store.save(Request.get("https://example.com/boards", parameters: ["page": 2]))
    let third = try store.save(Request.delete("https://example.com/boards/3", storePolicy: .offline))
    #expect(try store.all().map(\.key) == [first.key, second.key, third.key])
    #expect(first.sequence < second.sequence && second.sequence < third.sequence)

    try store.remove(second)
    #expect(try store.all().map(\.key) == [first.key, third.key])
    try store.remove(second)  // removing twice does nothing
    try store.removeAll()
    #expect(try store.all().isEmpty)
  }

  @Test func keepsEveryFieldNeededToResend() throws {
    let store = OfflineRequestStore(directory: makeTemporaryDirectory())
    let requests = [
      Request.post(
        "https://example.com/boards",
        contentType: .json,
        parameters: ["title": "Balsa", "tags": ["a", "b"], "size": ["length": 7, "width": 0.5], "new": true],
        headers: ["X-Trace": "1"],
        storePolicy: .offline,
        cachePolicy: .reloadIgnoringLocalCacheData
      ),
      Request(
        method: .put,
        resource: "boards/1",
        contentType: .custom("application/xml"),
        task: .uploadData(Data([0, 1, 2, 255])),
        storePolicy: .offline
      ),
      Request(
        method: .post,
        resource: "upload",
        contentType: .multipartFormData,
        task: .uploadFile(URL(fileURLWithPath: "/tmp/board.png")),
        cachePolicy: .returnCacheDataDontLoad
      ),
      Request(method: .post, resource: "form", contentType: .formURLEncoded, task: .uploadMultipart),
    ]
    for request in requests { try store.save(request) }
    store.close()
    let loaded = try OfflineRequestStore(directory: store.directory).all()
    #expect(loaded.map(\.request) == requests)
  }

  @Test func requestsDifferingOnlyInBodyAreBothKeptAndDuplicatesAreOneEntry() throws {
    let store = OfflineRequestStore(directory: makeTemporaryDirectory())
    let one = Request.post("https://example.com/boards", parameters: ["title": "one"], storePolicy: .offline)
    let two = Request.post("https://example.com/boards", parameters: ["title": "two"], storePolicy: .offline)
    let bytesA = Request(method: .post, resource: "https://example.com/raw", task: .uploadData(Data("a".utf8)))
    let bytesB = Request(method: .post, resource: "https://example.com/raw", task: .uploadData(Data("b".utf8)))
    let first = try store.save(one)
    try store.save(two)
    try store.save(bytesA)
    try store.save(bytesB)
    let again = try store.save(one)
    #expect(again.sequence == first.sequence)
    let all = try store.all()
    #expect(all.count == 4)
    #expect(Set(all.map(\.fileName)).count == 4)
    #expect(all.first?.request == one)
  }

  @Test func survivesARestart() throws {
    let directory = makeTemporaryDirectory()
    do {
      let store = OfflineRequestStore(directory: directory)
      try store.save(Request.delete("https://example.com/boards/1"))
      try store.save(Request.delete("https://example.com/boards/2"))
    }
    let reopened = OfflineRequestStore(directory: directory)
    try reopened.save(Request.delete("https://example.com/boards/3"))
    let resources = try reopened.all().map(\.resource)
    #expect(resources == (1...3).map { "https://example.com/boards/\($0)" })
  }

  @Test func corruptFileIsReportedAndSetAsideWithTheOthersIntact() throws {
    let problems = Locked<[OfflineStoreProblem]>([])
    let directory = makeTemporaryDirectory()
    let store = OfflineRequestStore(directory: directory) { problem in problems.withLock { $0.append(problem) } }
    let kept = try store.save(Request.delete("https://example.com/boards/1"))
    let moved = try store.save(Request.delete("https://example.com/boards/2"))
    try Data("{\"version\": 1, \"method\": ".utf8).write(to: directory.appendingPathComponent("garbage.json"))
    // A valid entry under a name that is not its own is corrupt too.
    try FileManager.default.moveItem(
      at: directory.appendingPathComponent(moved.fileName),
      to: directory.appendingPathComponent("renamed.json")
    )
    // Left by a write interrupted before this store took the directory: cleaned up.
    try Data("half".utf8).write(to: directory.appendingPathComponent(".tmp-interrupted"))
    try FileManager.default.setAttributes(
      [.modificationDate: Date().addingTimeInterval(-60)],
      ofItemAtPath: directory.appendingPathComponent(".tmp-interrupted").path
    )

    let contents = try store.load()
    #expect(contents.requests.map(\.key) == [kept.key])
    #expect(Set(contents.problems.map(\.fileName)) == ["garbage.json", "renamed.json"])
    #expect(Set(problems.withLock { $0 }.map(\.fileName)) == ["garbage.json", "renamed.json"])
    for problem in contents.problems {
      let destination = try #require(problem.movedTo)
      #expect(FileManager.default.fileExists(atPath: destination.path))
      #expect(destination.deletingLastPathComponent().lastPathComponent == "corrupt")
      #expect(!problem.reason.isEmpty)
    }
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
    #expect(Set(names) == [kept.fileName, "corrupt", ".key", ".lock"])
    #expect(try store.all().map(\.key) == [kept.key])
  }

  @Test func unsupportedParameterIsAClearError() throws {
    let store = OfflineRequestStore(directory: makeTemporaryDirectory())
    let request = Request.post("https://example.com/boards", parameters: ["set": Set([1, 2])])
    #expect {
      try store.save(request)
    } throws: { error in
      (error as? StorageError)?.code == .unsupportedRequest
    }
  }

  @Test func defaultDirectoryIsPerName() throws {
    let one = try OfflineRequestStore.defaultDirectory(name: "one")
    #expect(one.path.hasSuffix("malibu/offline/one"))
    #expect(one != OfflineRequestStore.defaultDirectory())
  }

  @Test(arguments: [
    ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    (
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    ),
  ])
  func sha256MatchesTheStandardVectors(input: String, digest: String) {
    #expect(SHA256Digest.hex(Array(input.utf8)) == digest)
  }
}
