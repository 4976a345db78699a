import Foundation
import HTTPTypes
import MalibuMocking
import MalibuTransport
import Testing

/// A cassette is untrusted input: each hostile file gives its clear `CassetteError`, never a crash or a read outside
/// the directory, and the rest of the cassette still replays.
@Suite("CassetteTransport: hostile cassettes")
struct CassetteHostileTests {
  static let digestOfHello = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"

  /// A cassette with one good entry (`0001-GET-good.json`, body "hello") and the entry `entry` as
  /// `0002-GET-bad.json`.
  static func cassette(_ entry: String, prepare: (URL) throws -> Void = { _ in }) throws -> URL {
    let directory = try makeTemporaryDirectory()
    try Data(good.utf8).write(to: directory.appendingPathComponent("0001-GET-good.json"))
    try Data("hello".utf8).write(to: directory.appendingPathComponent("0001-GET-good.body"))
    try Data(entry.utf8).write(to: directory.appendingPathComponent("0002-GET-bad.json"))
    try prepare(directory)
    return directory
  }

  static func entry(path: String, body: String) -> String {
    """
    {"format":1,"request":{"headers":[],"method":"GET","url":"http://127.0.0.1:8080\(path)"},
     "response":{"headers":[],"reason":"OK","status":200,\(body)}}
    """
  }

  static let good = entry(
    path: "/good",
    body: #""body":{"file":"0001-GET-good.body","size":5,"sha256":"\#(digestOfHello)"}"#
  )

  static func replayError(_ directory: URL, path: String = "/bad") async -> CassetteError? {
    let replay = CassetteTransport(replaying: directory)
    let error = await caughtError {
      _ = try await replay.send(makeRequest(.get, path), body: nil, options: .init()).body.collect(upTo: 1 << 20)
    }
    return (error as? TransportError)?.underlyingError as? CassetteError
  }

  struct Case: Sendable, CustomTestStringConvertible {
    let testDescription: String
    let entry: String
    let code: CassetteError.Code
    let message: String
  }

  static let badEntries: [Case] = [
    Case(
      testDescription: "a body file that climbs out of the directory",
      entry: entry(path: "/bad", body: #""body":{"file":"../../etc/passwd","size":5,"sha256":"\#(digestOfHello)"}"#),
      code: .unsafeFile,
      message: "0002-GET-bad.json names the body file '../../etc/passwd'; an entry's body is the file 0002-GET-bad.body"
    ),
    Case(
      testDescription: "an absolute body file",
      entry: entry(path: "/bad", body: #""body":{"file":"/etc/passwd","size":5,"sha256":"\#(digestOfHello)"}"#),
      code: .unsafeFile,
      message: "names the body file '/etc/passwd'"
    ),
    Case(
      testDescription: "a body of 10 GiB declared",
      entry: entry(
        path: "/bad",
        body: #""body":{"file":"0002-GET-bad.body","size":10737418240,"sha256":"\#(digestOfHello)"}"#
      ),
      code: .tooLarge,
      message: "declares a body of 10737418240 bytes, more than the cassette reads (268435456)"
    ),
    Case(
      testDescription: "a truncated entry",
      entry: String(entry(path: "/bad", body: "").prefix(60)),
      code: .malformedEntry,
      message: "0002-GET-bad.json is not a cassette entry"
    ),
    Case(
      testDescription: "a field missing",
      entry:
        #"{"format":1,"request":{"headers":[],"url":"http://127.0.0.1:8080/bad"},"failure":{"code":"other","message":"x"}}"#,
      code: .malformedEntry,
      message: "the field 'method' is missing"
    ),
    Case(
      testDescription: "a header value with a line break",
      entry: entry(path: "/bad", body: #""headers":[{"name":"X-A","value":"a\r\nSet-Cookie: b"}]"#)
        .replacingOccurrences(of: #""headers":[],"reason""#, with: #""reason""#),
      code: .malformedEntry,
      message: "the header field 'X-A' has an invalid name or a value with CR, LF or NUL"
    ),
    Case(
      testDescription: "a format from the future",
      entry: entry(path: "/bad", body: "").replacingOccurrences(of: #""format":1"#, with: #""format":7"#),
      code: .malformedEntry,
      message: "format 7, and this library reads format 1"
    ),
    Case(
      testDescription: "chunks that do not add up",
      entry: entry(
        path: "/bad",
        body:
          #""body":{"file":"0002-GET-bad.body","size":5,"sha256":"\#(digestOfHello)"},"chunks":[{"size":2,"milliseconds":0}]"#
      ),
      code: .malformedEntry,
      message: "the chunks add up to 2 bytes, and the body has 5"
    ),
    Case(
      testDescription: "a timing before the transfer began",
      entry: entry(path: "/bad", body: #""timing":{"firstByte":-5,"total":12}"#),
      code: .malformedEntry,
      message: "a timing of -5 ms is out of range"
    ),
    Case(
      testDescription: "a timing of more than a day",
      entry: entry(path: "/bad", body: #""timing":{"firstByte":3,"total":86400001}"#),
      code: .malformedEntry,
      message: "a timing of 86400001 ms is out of range"
    ),
  ]

  @Test("a bad entry gives its clear error", arguments: badEntries)
  func badEntry(_ testCase: Case) async throws {
    let directory = try Self.cassette(testCase.entry)
    defer { try? FileManager.default.removeItem(at: directory) }
    let error = try #require(await Self.replayError(directory))
    #expect(error.code == testCase.code)
    #expect(error.message.contains(testCase.message), "\(error.message)")
    // The same parser is what a fuzzer calls.
    #expect(throws: CassetteError.self) {
      try CassetteRecording.decode(Data(testCase.entry.utf8), entryName: "0002-GET-bad.json")
    }
  }

  @Test("a symbolic link for an entry or a body is refused, never followed")
  func symbolicLinks() async throws {
    let outside = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: outside) }
    try Data("hello".utf8).write(to: outside.appendingPathComponent("secret"))
    try Data(Self.good.utf8).write(to: outside.appendingPathComponent("entry.json"))

    let linkedBody = try Self.cassette(
      Self.entry(path: "/bad", body: #""body":{"file":"0002-GET-bad.body","size":5,"sha256":"\#(Self.digestOfHello)"}"#)
    ) { directory in
      try FileManager.default.createSymbolicLink(
        at: directory.appendingPathComponent("0002-GET-bad.body"),
        withDestinationURL: outside.appendingPathComponent("secret")
      )
    }
    defer { try? FileManager.default.removeItem(at: linkedBody) }
    let bodyError = try #require(await Self.replayError(linkedBody))
    #expect(bodyError.code == .unsafeFile)
    #expect(bodyError.message == "0002-GET-bad.body is a symbolic link; a cassette's files are not followed")
    // The good entry still replays.
    let replay = CassetteTransport(replaying: linkedBody)
    let good = try await replay.send(makeRequest(.get, "/good"), body: nil, options: .init())
    #expect(try await good.body.collect(upTo: 100) == Data("hello".utf8))

    let linkedEntry = try Self.cassette(Self.good) { directory in
      try FileManager.default.removeItem(at: directory.appendingPathComponent("0002-GET-bad.json"))
      try FileManager.default.createSymbolicLink(
        at: directory.appendingPathComponent("0002-GET-bad.json"),
        withDestinationURL: outside.appendingPathComponent("entry.json")
      )
    }
    defer { try? FileManager.default.removeItem(at: linkedEntry) }
    let entryError = try #require(await Self.replayError(linkedEntry, path: "/good"))
    #expect(entryError.code == .unsafeFile)
    #expect(entryError.message.contains("0002-GET-bad.json is a symbolic link"))
  }

  @Test("a body file shorter than declared, missing, or not matching its digest")
  func badBodies() async throws {
    let entry = Self.entry(
      path: "/bad",
      body: #""body":{"file":"0002-GET-bad.body","size":5,"sha256":"\#(Self.digestOfHello)"}"#
    )
    for (contents, code, message) in [
      ("hel", CassetteError.Code.truncated, "0002-GET-bad.body has 3 bytes, and 0002-GET-bad.json declares 5"),
      ("HELLO", .malformedEntry, "0002-GET-bad.body does not match the sha256 of 0002-GET-bad.json"),
      ("hello, and more", .tooLarge, "0002-GET-bad.body has 15 bytes, more than the 5 its cassette allows"),
      (nil, .truncated, "0002-GET-bad.body is missing from the cassette"),
    ] as [(String?, CassetteError.Code, String)] {
      let directory = try Self.cassette(entry) { directory in
        if let contents { try Data(contents.utf8).write(to: directory.appendingPathComponent("0002-GET-bad.body")) }
      }
      defer { try? FileManager.default.removeItem(at: directory) }
      let error = try #require(await Self.replayError(directory))
      #expect(error.code == code)
      #expect(error.message.hasPrefix(message), "\(error.message)")
    }
  }

  @Test("an entry file larger than 1 MiB is refused before it is parsed")
  func hugeEntry() async throws {
    let directory = try Self.cassette(String(repeating: " ", count: (1 << 20) + 1))
    defer { try? FileManager.default.removeItem(at: directory) }
    let error = try #require(await Self.replayError(directory, path: "/good"))
    #expect(error.code == .tooLarge)
    #expect(error.message.contains("0002-GET-bad.json has 1048577 bytes"))
  }
}
