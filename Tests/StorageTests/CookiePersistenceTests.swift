import Foundation
import Testing

@testable import MalibuStorage

/// A jar's file: persistent cookies survive a new jar, session cookies do not, and a file the jar did not write is
/// untrusted input that is refused as a whole without a crash.
@Suite struct CookiePersistenceTests {
  private let clock = TestClock()

  private func makeJar(_ file: URL) -> CookieJar {
    let clock = clock
    return CookieJar(fileURL: file, now: { clock.now })
  }

  @Test func persistentCookiesSurviveAndSessionCookiesDoNot() throws {
    let file = makeTemporaryDirectory().appendingPathComponent("nested/cookies.json")
    let url = try #require(URL(string: "https://example.com/"))
    let jar = makeJar(file)
    #expect(jar.loadError == nil)
    jar.store(
      setCookie: [
        "kept=1; Max-Age=3600; Secure; HttpOnly; SameSite=Lax; Domain=example.com", "session=2", "gone=3; Max-Age=60",
      ],
      from: url
    )
    #expect(jar.saveError == nil)

    clock.advance(by: 120)
    let reloaded = makeJar(file)
    #expect(reloaded.loadError == nil)
    #expect(reloaded.cookieHeader(for: url) == "kept=1")
    let cookie = try #require(reloaded.all.first)
    #expect(cookie == jar.all.first { $0.name == "kept" })
    #expect(cookie.isSecure && cookie.isHTTPOnly && cookie.sameSite == .lax && !cookie.isHostOnly)

    reloaded.store(setCookie: ["kept=0; Max-Age=0; Domain=example.com"], from: url)
    #expect(makeJar(file).all.isEmpty)
  }

  @Test func removingSaves() throws {
    let file = makeTemporaryDirectory().appendingPathComponent("cookies.json")
    let jar = makeJar(file)
    #expect(jar.add(Cookie(name: "a", value: "1", domain: "example.com", expires: clock.now + 60)))
    #expect(jar.add(Cookie(name: "b", value: "2", domain: "example.com", expires: clock.now + 60)))
    #expect(makeJar(file).all.count == 2)
    #expect(jar.remove(name: "a", domain: "example.com"))
    #expect(makeJar(file).all.map(\.name) == ["b"])
    jar.removeAll()
    #expect(makeJar(file).all.isEmpty)
  }

  /// A file that cannot be written is reported (``CookieJar/saveError``, `save()` throws) and the jar keeps working;
  /// once the way is clear, the next save writes every persistent cookie.
  @Test func aFailedSaveIsReportedAndTheNextOneWrites() throws {
    let directory = makeTemporaryDirectory()
    let blocker = directory.appendingPathComponent("blocker")
    try Data("not a directory".utf8).write(to: blocker)
    let file = blocker.appendingPathComponent("cookies.json")
    let jar = makeJar(file)
    let url = try #require(URL(string: "http://example.com/"))
    jar.store(setCookie: ["id=1; Max-Age=60"], from: url)
    #expect(jar.saveError?.code == .ioFailed)
    #expect(jar.cookieHeader(for: url) == "id=1")
    let error = #expect(throws: StorageError.self) { try jar.save() }
    #expect(error?.code == .ioFailed)

    try FileManager.default.removeItem(at: blocker)
    try jar.save()
    #expect(jar.saveError == nil)
    #expect(makeJar(file).cookieHeader(for: url) == "id=1")
  }

  /// Changes from many tasks at once: saves never overlap, and the last one holds every cookie.
  @Test func concurrentChangesAllReachTheFile() async throws {
    let file = makeTemporaryDirectory().appendingPathComponent("cookies.json")
    let clock = clock
    let jar = CookieJar(fileURL: file, limits: CookieJar.Limits(perDomain: 100), now: { clock.now })
    let url = try #require(URL(string: "http://example.com/"))
    await withTaskGroup(of: Void.self) { group in
      for index in 0..<40 {
        group.addTask {
          jar.store(setCookie: ["c\(index)=\(index); Max-Age=600", "s\(index)=session"], from: url)
          _ = jar.cookieHeader(for: url)
        }
      }
    }
    #expect(jar.saveError == nil)
    #expect(jar.all.count == 80)
    #expect(Set(makeJar(file).all.map(\.name)) == Set((0..<40).map { "c\($0)" }))
  }

  /// A bad file and what it holds.
  struct BadFile: Sendable, CustomTestStringConvertible {
    let label: String
    let plant: @Sendable (URL) throws -> Void
    var testDescription: String { label }
  }

  /// A cookie file entry as JSON, with one field replaced.
  static func entry(_ field: String = "", _ replacement: String = "") -> String {
    var fields = [
      "\"name\"": "\"id\"", "\"value\"": "\"1\"", "\"domain\"": "\"example.com\"", "\"isHostOnly\"": "true",
      "\"path\"": "\"/\"", "\"expires\"": "900000000", "\"isSecure\"": "false", "\"isHTTPOnly\"": "false",
      "\"created\"": "800000000",
    ]
    if !field.isEmpty { fields["\"\(field)\""] = replacement }
    return "{" + fields.filter { !$0.value.isEmpty }.map { "\($0.key):\($0.value)" }.joined(separator: ",") + "}"
  }

  static func text(_ text: String) -> @Sendable (URL) throws -> Void {
    { file in try Data(text.utf8).write(to: file) }
  }

  static let badFiles: [BadFile] = [
    BadFile(label: "not JSON", plant: text("\u{0}\u{1}garbage{")),
    BadFile(label: "empty", plant: text("")),
    BadFile(label: "a JSON array", plant: text("[]")),
    BadFile(label: "another version", plant: text(#"{"version":2,"cookies":[]}"#)),
    BadFile(label: "a wrong type", plant: text(#"{"version":1,"cookies":[\#(entry("expires", "\"soon\""))]}"#)),
    BadFile(label: "CR LF in a value", plant: text(#"{"version":1,"cookies":[\#(entry("value", #""a\r\nX: y""#))]}"#)),
    BadFile(label: "a ; in a value", plant: text(#"{"version":1,"cookies":[\#(entry("value", #""a; b=c""#))]}"#)),
    BadFile(label: "an empty name", plant: text(#"{"version":1,"cookies":[\#(entry("name", #""""#))]}"#)),
    BadFile(label: "an empty domain", plant: text(#"{"version":1,"cookies":[\#(entry("domain", #""""#))]}"#)),
    BadFile(
      label: "an uppercase domain",
      plant: text(#"{"version":1,"cookies":[\#(entry("domain", #""EVIL.example""#))]}"#)
    ),
    BadFile(label: "a relative path", plant: text(#"{"version":1,"cookies":[\#(entry("path", #""boards""#))]}"#)),
    BadFile(label: "a session cookie", plant: text(#"{"version":1,"cookies":[\#(entry("expires", ""))]}"#)),
    BadFile(
      label: "a good entry, then a bad one",
      plant: text(#"{"version":1,"cookies":[\#(entry()),\#(entry("path", #""x""#))]}"#)
    ),
    BadFile(
      label: "a directory",
      plant: { file in try FileManager.default.createDirectory(at: file, withIntermediateDirectories: false) }
    ),
    BadFile(
      label: "a symbolic link",
      plant: { file in
        let target = file.deletingLastPathComponent().appendingPathComponent("elsewhere.json")
        try Data(#"{"version":1,"cookies":[\#(CookiePersistenceTests.entry())]}"#.utf8).write(to: target)
        try FileManager.default.createSymbolicLink(at: file, withDestinationURL: target)
      }
    ),
  ]

  @Test(arguments: badFiles)
  func aBadFileIsRefusedAndTheJarStartsEmpty(_ bad: BadFile) throws {
    let file = makeTemporaryDirectory().appendingPathComponent("cookies.json")
    try bad.plant(file)
    let jar = makeJar(file)
    let error = try #require(jar.loadError)
    #expect([StorageError.Code.corruptEntry, .ioFailed].contains(error.code), "\(error)")
    #expect(error.description.contains("cookies.json"))
    #expect(jar.all.isEmpty)

    // The jar still works, and (a regular file in the way or not) its next save replaces what was there.
    let url = try #require(URL(string: "http://example.com/"))
    jar.store(setCookie: ["fresh=1; Max-Age=60"], from: url)
    #expect(jar.cookieHeader(for: url) == "fresh=1")
    if jar.saveError == nil {
      #expect(makeJar(file).cookieHeader(for: url) == "fresh=1")
    } else {
      #expect(bad.label == "a directory")
    }
  }

  @Test func aGoodHandWrittenFileLoads() throws {
    let file = makeTemporaryDirectory().appendingPathComponent("cookies.json")
    try Data(#"{"version":1,"cookies":[\#(Self.entry())]}"#.utf8).write(to: file)
    let jar = makeJar(file)
    #expect(jar.loadError == nil)
    #expect(jar.cookieHeader(for: try #require(URL(string: "http://example.com/"))) == "id=1")
  }
}
