import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuCore
import Testing

@testable import MalibuTransport

@Suite("Downloads to a file, with resume")
struct DownloadTests {
  static let version1 = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
  static let version2 = Data((0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 17 &+ 3) })
  static let url = URL(string: "http://127.0.0.1:9/files/data.bin")!

  /// A fresh directory with a destination path in it, removed at the end of the test.
  final class Folder: Sendable {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("malibu-download-\(UUID())")
    var destination: URL { url.appendingPathComponent("data.bin") }
    var partial: URL { url.appendingPathComponent("data.bin.partial") }
    var record: URL { url.appendingPathComponent("data.bin.partial.resume") }

    init() throws {
      try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
      try? FileManager.default.removeItem(at: url)
    }

    /// The names in the folder, sorted.
    var names: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted() }
  }

  private func get() -> HTTPRequest {
    HTTPRequest(method: .get, url: Self.url)
  }

  @Test func writesTheFileAndLeavesNothingElse() async throws {
    let folder = try Folder()
    let server = RangeServerTransport(content: Self.version1)
    let file = try await server.download(get(), to: folder.destination)
    #expect(file.location == folder.destination)
    #expect(file.byteCount == Int64(Self.version1.count))
    #expect(!file.isResumed)
    #expect(file.head.status == .ok)
    #expect(try Data(contentsOf: folder.destination) == Self.version1)
    #expect(folder.names == ["data.bin"])
    #expect(server.requests.first?.headerFields[.acceptEncoding] == "identity")
    #expect(server.requests.first?.headerFields[.range] == nil)
  }

  @Test func resumesAfterACutWithRangeAndIfRange() async throws {
    let folder = try Folder()
    try Data("old".utf8).write(to: folder.destination)
    let server = RangeServerTransport(content: Self.version1)
    server.state.withLock { $0.cutAfter = 70_000 }
    await #expect(throws: TransportError.self) {
      try await server.download(get(), to: folder.destination, resume: true)
    }
    // The destination is untouched; the partial file and its record are kept.
    #expect(try Data(contentsOf: folder.destination) == Data("old".utf8))
    #expect(try Data(contentsOf: folder.partial) == Self.version1.prefix(70_000))
    #expect(FileManager.default.fileExists(atPath: folder.record.path))

    let file = try await server.download(get(), to: folder.destination, resume: true)
    #expect(file.resumedFrom == 70_000)
    #expect(file.head.status == .partialContent)
    #expect(file.byteCount == Int64(Self.version1.count))
    #expect(try Data(contentsOf: folder.destination) == Self.version1)
    #expect(folder.names == ["data.bin"])
    let resumed = try #require(server.requests.last)
    #expect(resumed.headerFields[.range] == "bytes=70000-")
    #expect(resumed.headerFields[.ifRange] == "\"v1\"")
    #expect(resumed.headerFields[.acceptEncoding] == "identity")
  }

  @Test func aChangedValidatorRestartsWithTheNewContent() async throws {
    let folder = try Folder()
    let server = RangeServerTransport(content: Self.version1)
    server.state.withLock { $0.cutAfter = 50_000 }
    _ = try? await server.download(get(), to: folder.destination, resume: true)
    server.state.withLock {
      $0.content = Self.version2
      $0.etag = "\"v2\""
    }
    let file = try await server.download(get(), to: folder.destination, resume: true)
    #expect(server.requests.last?.headerFields[.ifRange] == "\"v1\"")
    #expect(file.head.status == .ok)
    #expect(!file.isResumed)
    #expect(try Data(contentsOf: folder.destination) == Self.version2)
    #expect(folder.names == ["data.bin"])
  }

  @Test func lastModifiedIsTheValidatorWithoutAnEntityTag() async throws {
    let folder = try Folder()
    let server = RangeServerTransport(content: Self.version1)
    server.state.withLock {
      $0.etag = nil
      $0.lastModified = "Wed, 21 Oct 2015 07:28:00 GMT"
      $0.cutAfter = 1000
    }
    _ = try? await server.download(get(), to: folder.destination, resume: true)
    let file = try await server.download(get(), to: folder.destination, resume: true)
    #expect(server.requests.last?.headerFields[.ifRange] == "Wed, 21 Oct 2015 07:28:00 GMT")
    #expect(file.resumedFrom == 1000)
    #expect(try Data(contentsOf: folder.destination) == Self.version1)
  }

  @Test func aWeakEntityTagLeavesNothingToResume() async throws {
    let folder = try Folder()
    let server = RangeServerTransport(content: Self.version1)
    server.state.withLock {
      $0.etag = "W/\"weak\""
      $0.cutAfter = 1000
    }
    _ = try? await server.download(get(), to: folder.destination, resume: true)
    #expect(folder.names.isEmpty)
    let file = try await server.download(get(), to: folder.destination, resume: true)
    #expect(!file.isResumed)
    #expect(server.requests.last?.headerFields[.range] == nil)
    #expect(try Data(contentsOf: folder.destination) == Self.version1)
  }

  @Test func aRangeNotSatisfiableCompletesAFullPartialFile() async throws {
    let folder = try Folder()
    try Self.version1.write(to: folder.partial)
    try ResumeRecord(url: Self.url.absoluteString, validator: "\"v1\"", length: nil).save(to: folder.record)
    let server = RangeServerTransport(content: Self.version1)
    let file = try await server.download(get(), to: folder.destination, resume: true)
    #expect(file.head.status == .rangeNotSatisfiable)
    #expect(file.resumedFrom == Int64(Self.version1.count))
    #expect(try Data(contentsOf: folder.destination) == Self.version1)
    #expect(folder.names == ["data.bin"])
    #expect(server.requests.count == 1)
  }

  @Test func aRangeNotSatisfiableOfAnotherLengthRestarts() async throws {
    let folder = try Folder()
    try Self.version1.write(to: folder.partial)
    try ResumeRecord(url: Self.url.absoluteString, validator: "\"v1\"", length: nil).save(to: folder.record)
    let server = RangeServerTransport(content: Self.version2)  // shorter, same tag: a server that lies
    let file = try await server.download(get(), to: folder.destination, resume: true)
    #expect(server.requests.count == 2)
    #expect(server.requests.last?.headerFields[.range] == nil)
    #expect(!file.isResumed)
    #expect(try Data(contentsOf: folder.destination) == Self.version2)
    #expect(folder.names == ["data.bin"])
  }

  /// Partial responses that do not continue the file: refused, the partial file removed, the destination untouched;
  /// the next download starts from the first byte.
  @Test(arguments: [
    ("bytes 5-199999/200000", 199_995),  // starts elsewhere
    ("bytes 60000-199999/200000", 100),  // shorter than announced
    ("bytes */200000", 0),  // not a range
    ("items 60000-199999/200000", 140_000),  // not bytes
    ("", 140_000),  // missing
  ])
  func aPartialResponseThatDoesNotContinueTheFileIsRefused(contentRange: String, bodyLength: Int) async throws {
    let folder = try Folder()
    try Data("old".utf8).write(to: folder.destination)
    try Self.version1.prefix(60_000).write(to: folder.partial)
    try ResumeRecord(url: Self.url.absoluteString, validator: "\"v1\"", length: nil).save(to: folder.record)
    let server = RangeServerTransport(content: Self.version1)
    var fields: HTTPFields = [.eTag: "\"v1\""]
    if !contentRange.isEmpty { fields[.contentRange] = contentRange }
    server.state.withLock {
      $0.scripted = (HTTPResponse(status: .partialContent, headerFields: fields), Data(count: bodyLength))
    }
    do {
      _ = try await server.download(get(), to: folder.destination, resume: true)
      Issue.record("a mismatched 206 was accepted")
    } catch let error as DownloadError {
      #expect(error.code == .rangeMismatch, "\(error)")
      #expect(error.response?.status == .partialContent)
    }
    #expect(try Data(contentsOf: folder.destination) == Data("old".utf8))
    #expect(folder.names == ["data.bin"])
    let file = try await server.download(get(), to: folder.destination, resume: true)
    #expect(server.requests.last?.headerFields[.range] == nil)
    #expect(try Data(contentsOf: file.location) == Self.version1)
  }

  @Test func aContentCodedPartialResponseIsRefused() async throws {
    let folder = try Folder()
    try Self.version1.prefix(60_000).write(to: folder.partial)
    try ResumeRecord(url: Self.url.absoluteString, validator: "\"v1\"", length: nil).save(to: folder.record)
    let server = RangeServerTransport(content: Self.version1)
    let fields: HTTPFields = [.contentRange: "bytes 60000-60009/200000", .contentEncoding: "gzip"]
    server.state.withLock {
      $0.scripted = (HTTPResponse(status: .partialContent, headerFields: fields), Data(count: 10))
    }
    await #expect { try await server.download(get(), to: folder.destination, resume: true) } throws: {
      ($0 as? DownloadError)?.code == .rangeMismatch
    }
    #expect(folder.names.isEmpty)
  }

  @Test(arguments: [HTTPResponse.Status.notFound, .internalServerError, .found])
  func aStatusThatIsNotAFileFailsWithoutWriting(_ status: HTTPResponse.Status) async throws {
    let folder = try Folder()
    try Data("old".utf8).write(to: folder.destination)
    let server = RangeServerTransport(content: Self.version1)
    server.state.withLock { $0.scripted = (HTTPResponse(status: status), Data("error page".utf8)) }
    do {
      _ = try await server.download(get(), to: folder.destination)
      Issue.record("a \(status.code) was written")
    } catch let error as DownloadError {
      #expect(error.code == .unacceptableStatus)
      #expect(error.response?.status == status)
    }
    #expect(try Data(contentsOf: folder.destination) == Data("old".utf8))
    #expect(folder.names == ["data.bin"])
    _ = try await server.download(get(), to: folder.destination)
    #expect(try Data(contentsOf: folder.destination) == Self.version1)
  }

  /// Sidecars the download did not write for this URL: the partial file is started again, nothing is sent from
  /// them.
  static let digest = ResumeRecord.digest(of: url.absoluteString)
  static let otherDigest = ResumeRecord.digest(of: "http://127.0.0.1:9/files/other.bin")

  @Test(arguments: [
    "not json",
    #"{"version":1,"resource":"\#(DownloadTests.otherDigest)","validator":"\"v1\""}"#,
    #"{"version":1,"url":"http://127.0.0.1:9/files/data.bin","validator":"\"v1\""}"#,
    #"{"version":1,"resource":"\#(DownloadTests.digest)","validator":"\"v1\"\r\nX-Injected: 1"}"#,
    #"{"version":2,"resource":"\#(DownloadTests.digest)","validator":"\"v1\""}"#,
    #"{"version":1,"resource":"\#(DownloadTests.digest)","validator":"\"v1\"","length":10}"#,
    #"{"version":1,"resource":"\#(DownloadTests.digest)","validator":""}"#,
    #"{"version":1,"resource":"\#(DownloadTests.digest)","validator":"\"v1\"","pad":""#
      + String(repeating: "x", count: 5000) + #""}"#,
  ])
  func anUntrustedRecordStartsAgain(_ sidecar: String) async throws {
    let folder = try Folder()
    try Self.version1.prefix(60_000).write(to: folder.partial)
    try Data(sidecar.utf8).write(to: folder.record)
    let server = RangeServerTransport(content: Self.version1)
    let file = try await server.download(get(), to: folder.destination, resume: true)
    #expect(!file.isResumed)
    let sent = try #require(server.requests.first)
    #expect(sent.headerFields[.range] == nil)
    #expect(sent.headerFields[.ifRange] == nil)
    #expect(try Data(contentsOf: folder.destination) == Self.version1)
    #expect(folder.names == ["data.bin"])
  }

  @Test func theRecordKeepsADigestOfTheURLNotTheURL() async throws {
    let folder = try Folder()
    let server = RangeServerTransport(content: Self.version1)
    server.state.withLock { $0.cutAfter = 1000 }
    let url = URL(string: "http://127.0.0.1:9/files/data.bin?token=secret-token")!
    _ = try? await server.download(HTTPRequest(method: .get, url: url), to: folder.destination, resume: true)
    let record = try String(contentsOf: folder.record, encoding: .utf8)
    #expect(!record.contains("secret-token"))
    #expect(record.contains(ResumeRecord.digest(of: url.absoluteString)))
  }

  @Test func aLinkPlantedAsThePartialFileIsNeverFollowed() async throws {
    let folder = try Folder()
    let victim = folder.url.appendingPathComponent("victim.txt")
    try Data("keep me".utf8).write(to: victim)
    try FileManager.default.createSymbolicLink(at: folder.partial, withDestinationURL: victim)
    try ResumeRecord(url: Self.url.absoluteString, validator: "\"v1\"", length: nil).save(to: folder.record)
    let server = RangeServerTransport(content: Self.version1)
    await #expect {
      try await server.download(get(), to: folder.destination, resume: true)
    } throws: {
      ($0 as? DownloadError)?.code == .untrustedFile
    }
    #expect(server.requests.isEmpty)
    #expect(try Data(contentsOf: victim) == Data("keep me".utf8))
    #expect(!FileManager.default.fileExists(atPath: folder.destination.path))
  }

  @Test func aCallersRangeIsNotWrittenAsTheFile() async throws {
    let folder = try Folder()
    let server = RangeServerTransport(content: Self.version1)
    var request = get()
    request.headerFields[.range] = "bytes=100-"
    let file = try await server.download(request, to: folder.destination)
    #expect(server.requests.first?.headerFields[.range] == nil)
    #expect(try Data(contentsOf: file.location) == Self.version1)
  }

  @Test(arguments: [false, true])
  func aCancelledDownloadLeavesTheDestinationAndNoTemporaryFile(resume: Bool) async throws {
    let folder = try Folder()
    try Data("old".utf8).write(to: folder.destination)
    let started = AsyncStream<Void>.makeStream()
    let slow = SlowTransport(started: started.continuation)
    let request = get()
    let destination = folder.destination
    let task = Task { try await slow.download(request, to: destination, resume: resume) }
    for await _ in started.stream { break }
    task.cancel()
    await #expect { try await task.value } throws: { ($0 as? TransportError)?.code == .cancelled }
    #expect(try Data(contentsOf: folder.destination) == Data("old".utf8))
    // With resume, the bytes received are kept for the next download; without, nothing is left behind.
    #expect(folder.names == (resume ? ["data.bin", "data.bin.partial", "data.bin.partial.resume"] : ["data.bin"]))
  }

  @Test func twoDownloadsToOneDestinationAtOnceAreRefused() async throws {
    let folder = try Folder()
    let started = AsyncStream<Void>.makeStream()
    let slow = SlowTransport(started: started.continuation)
    let request = get()
    let destination = folder.destination
    let first = Task { try await slow.download(request, to: destination, resume: true) }
    for await _ in started.stream { break }
    let server = RangeServerTransport(content: Self.version1)
    await #expect { try await server.download(get(), to: folder.destination, resume: true) } throws: {
      ($0 as? DownloadError)?.code == .destinationBusy
    }
    #expect(server.requests.isEmpty)
    first.cancel()
    _ = try? await first.value
    _ = try await server.download(get(), to: folder.destination, resume: false)
    #expect(try Data(contentsOf: folder.destination) == Self.version1)
  }

  @Test func aMissingDirectoryIsRefusedBeforeSending() async throws {
    let folder = try Folder()
    let server = RangeServerTransport(content: Self.version1)
    let destination = folder.url.appendingPathComponent("missing/data.bin")
    let error = await #expect(throws: DownloadError.self) { try await server.download(get(), to: destination) }
    #expect(error?.code == .missingDirectory)
    let message =
      "the directory \(folder.url.appendingPathComponent("missing").path) does not exist: nothing was sent; create "
      + "it to download data.bin"
    #expect(error?.message == message)
    #expect(error?.localizedDescription == message)
    #expect(error?.description == "DownloadError.missingDirectory: \(message)")
    #expect(server.requests.isEmpty)
    #expect(folder.names.isEmpty)
  }
}

/// Sends the first kilobyte of a body, says so, and then never ends it.
struct SlowTransport: Transport {
  let started: AsyncStream<Void>.Continuation

  func send(_ request: HTTPRequest, body: RequestBody?, options: TransferOptions) async throws -> TransportResponse {
    let started = self.started
    let chunks = AsyncThrowingStream<Data, any Error> { continuation in
      continuation.yield(Data(count: 1024))
      Task {
        try? await Task.sleep(for: .milliseconds(20))
        started.yield()
      }
    }
    return TransportResponse(
      head: HTTPResponse(status: .ok, headerFields: [.eTag: "\"slow\""]),
      url: request.url,
      body: ResponseBody(chunks: chunks, expectedLength: 1 << 20)
    )
  }
}

@Suite("Download decisions")
struct DownloadDecisionTests {
  @Test(arguments: [
    ("bytes 0-99/100", 0...99 as ClosedRange<Int64>?, 100 as Int64?),
    ("bytes 5-9/*", 5...9, nil),
    ("bytes */100", nil, 100),
  ])
  func contentRangeParses(_ value: String, range: ClosedRange<Int64>?, length: Int64?) throws {
    let parsed = try #require(ContentRange(value))
    #expect(parsed.range == range)
    #expect(parsed.length == length)
  }

  @Test(arguments: [
    "bytes 9-5/100", "bytes 0-100/100", "bytes */*", "bytes -1-5/10", "bytes 1-2", "bytes a-b/c", "octets 0-1/2",
    "bytes 0-99999999999999999999/100000000000000000000", "",
  ])
  func contentRangeRejects(_ value: String) {
    #expect(ContentRange(value) == nil)
  }

  @Test(arguments: [
    (200, [:], 0, Download.Decision.writeWhole),
    (200, [:], 10, .writeWhole),
    (206, ["Content-Range": "bytes 10-19/20", "ETag": "\"a\""], 10, .append(expectedLength: 10)),
    (416, ["Content-Range": "bytes */10"], 10, .complete),
    (416, ["Content-Range": "bytes */30"], 10, .restart),
    (416, [:], 10, .restart),
  ])
  func decisions(_ status: Int, _ fields: [String: String], _ offset: Int64, _ expected: Download.Decision) {
    var head = HTTPResponse(status: .init(code: status))
    for (name, value) in fields { head.headerFields[HTTPField.Name(name)!] = value }
    #expect(Download.decide(head, offset: offset, validator: "\"a\"", length: nil) == expected)
  }

  /// One `206` to `Range: bytes=50000-` sent with `If-Range: validator` for a partial file of a resource of
  /// `recorded` bytes.
  struct VersionCase: Sendable, CustomTestStringConvertible {
    var validator: String
    var recorded: Int64?
    var eTag: String?
    var lastModified: String?
    var contentRange: String
    var appended: Bool

    var testDescription: String {
      "sent \(validator) (\(recorded.map(String.init) ?? "?") B), got ETag \(eTag ?? "-"), Last-Modified "
        + "\(lastModified ?? "-"), \(contentRange)"
    }

    static let date = "Wed, 21 Oct 2015 07:28:00 GMT"
    static let otherDate = "Thu, 22 Oct 2015 07:28:00 GMT"
    static let same = "bytes 50000-99999/100000"
    static let longer = "bytes 50000-199999/200000"

    static let all: [VersionCase] = [
      // a matching strong entity tag, with and without lengths known
      VersionCase(validator: "\"v1\"", recorded: 100_000, eTag: "\"v1\"", contentRange: same, appended: true),
      VersionCase(validator: "\"v1\"", recorded: nil, eTag: "\"v1\"", contentRange: same, appended: true),
      VersionCase(
        validator: "\"v1\"",
        recorded: 100_000,
        eTag: "\"v1\"",
        contentRange: "bytes 50000-99999/*",
        appended: true
      ),
      // the server ignored If-Range: another entity tag, or none at all, or a weak or differently cased one
      VersionCase(validator: "\"v1\"", recorded: 100_000, eTag: "\"v2\"", contentRange: longer, appended: false),
      VersionCase(validator: "\"v1\"", recorded: nil, eTag: "\"v2\"", contentRange: longer, appended: false),
      VersionCase(validator: "\"v1\"", recorded: 100_000, eTag: nil, contentRange: same, appended: false),
      VersionCase(validator: "\"v1\"", recorded: 100_000, eTag: "W/\"v1\"", contentRange: same, appended: false),
      VersionCase(validator: "\"v1\"", recorded: 100_000, eTag: "\"V1\"", contentRange: same, appended: false),
      // an entity tag sent without quotes (httpbin's `range102400`) is compared as recorded
      VersionCase(validator: "range100000", recorded: 100_000, eTag: "range100000", contentRange: same, appended: true),
      VersionCase(
        validator: "range100000",
        recorded: 100_000,
        eTag: "range200000",
        contentRange: same,
        appended: false
      ),
      // the same tag but another complete length
      VersionCase(validator: "\"v1\"", recorded: 100_000, eTag: "\"v1\"", contentRange: longer, appended: false),
      // a weak validator is never a match, even for the same weak tag
      VersionCase(validator: "W/\"v1\"", recorded: 100_000, eTag: "W/\"v1\"", contentRange: same, appended: false),
      // Last-Modified sent: the 206's Last-Modified must be that date
      VersionCase(validator: date, recorded: 100_000, lastModified: date, contentRange: same, appended: true),
      VersionCase(validator: date, recorded: 100_000, lastModified: otherDate, contentRange: same, appended: false),
      VersionCase(validator: date, recorded: 100_000, contentRange: same, appended: false),
      VersionCase(validator: date, recorded: 100_000, eTag: "\"v1\"", contentRange: same, appended: false),
      VersionCase(validator: date, recorded: 100_000, lastModified: date, contentRange: longer, appended: false),
    ]
  }

  /// A `206` is appended only when it is of the version the partial file holds (RFC 9110, 13.1.5 and 15.3.7.3);
  /// otherwise the partial file is thrown away and the download restarts: never a splice.
  @Test(arguments: VersionCase.all)
  func aPartialResponseIsAppendedOnlyWhenItIsOfTheSameVersion(_ test: VersionCase) throws {
    var head = HTTPResponse(status: .partialContent)
    head.headerFields[.contentRange] = test.contentRange
    if let eTag = test.eTag { head.headerFields[.eTag] = eTag }
    if let lastModified = test.lastModified { head.headerFields[.lastModified] = lastModified }
    let decision = Download.decide(head, offset: 50_000, validator: test.validator, length: test.recorded)
    let range = try #require(ContentRange(test.contentRange)?.range)
    let expected: Download.Decision = test.appended ? .append(expectedLength: Int64(range.count)) : .restart
    #expect(decision == expected)
  }

  @Test(arguments: [(206, 0), (416, 0), (404, 0), (500, 10), (304, 10)])
  func failures(_ status: Int, _ offset: Int64) {
    let head = HTTPResponse(status: .init(code: status))
    guard case .fail = Download.decide(head, offset: offset, validator: "\"a\"", length: nil) else {
      Issue.record("\(status) at \(offset) was not refused")
      return
    }
  }

  @Test(arguments: [
    (["ETag": "\"a\""], "\"a\"" as String?),
    (["ETag": "W/\"a\"", "Last-Modified": "Wed, 21 Oct 2015 07:28:00 GMT"], nil),
    (["Last-Modified": "Wed, 21 Oct 2015 07:28:00 GMT"], "Wed, 21 Oct 2015 07:28:00 GMT"),
    (["ETag": "\"a\"", "Content-Encoding": "gzip"], nil),
    (["ETag": "\"a\"", "Content-Encoding": "identity"], "\"a\""),
    ([:], nil),
  ])
  func validators(_ fields: [String: String], _ expected: String?) {
    var head = HTTPResponse(status: .ok)
    for (name, value) in fields { head.headerFields[HTTPField.Name(name)!] = value }
    #expect(Download.validator(of: head) == expected)
  }
}
