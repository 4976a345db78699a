import Foundation
import HTTPTypes
import Malibu
import Testing

@testable import SurfCore

/// `--continue` on a partial file another tool left, as HTTPie's: `Range: bytes=<size>-`, a `206` appended only when
/// its `Content-Range` is the one asked for (HTTPie's `parse_content_range`, its messages), a server that ignores the
/// range sends the whole file ("If the server doesn't support that, the whole file will simply be downloaded").
@Suite struct PartialFileTests {
  // MARK: - The decision, from the head alone

  /// HTTPie's tests/test_downloads.py, `test_Content_Range_parsing`, as (Content-Range, resumed from, decision).
  static let ranges: [(String?, Int64, PartialFile.Decision)] = [
    ("bytes 100-199/200", 100, .append(expectedLength: 100, totalLength: 200)),
    ("bytes 100-199/*", 100, .append(expectedLength: 100, totalLength: nil)),
    (nil, 100, .mismatch("Missing Content-Range")),
    ("beers 100-199/*", 100, .mismatch("Invalid Content-Range format 'beers 100-199/*'")),
    ("bytes 100-199", 100, .mismatch("Invalid Content-Range format 'bytes 100-199'")),
    ("bytes 100-99/199", 100, .mismatch("Invalid Content-Range returned: 'bytes 100-99/199'")),
    ("bytes 100-199/199", 100, .mismatch("Invalid Content-Range returned: 'bytes 100-199/199'")),
    (
      "bytes 99-199/200", 100,
      .mismatch("Unexpected Content-Range returned ('bytes 99-199/200') for the requested Range (\"bytes=100-\")")
    ),
    (
      "bytes 100-198/200", 100,
      .mismatch("Unexpected Content-Range returned ('bytes 100-198/200') for the requested Range (\"bytes=100-\")")
    ),
  ]

  @Test(arguments: ranges)
  func aPartialContentIsAppendedOnlyWhenItContinuesTheFile(
    _ contentRange: String?,
    _ offset: Int64,
    _ decision: PartialFile.Decision
  ) {
    #expect(
      PartialFile.decide(status: 206, contentRange: contentRange, contentEncoding: nil, offset: offset) == decision
    )
  }

  @Test func otherAnswers() {
    #expect(PartialFile.decide(status: 200, contentRange: nil, contentEncoding: nil, offset: 100) == .writeWhole)
    #expect(
      PartialFile.decide(status: 416, contentRange: "bytes */100", contentEncoding: nil, offset: 100) == .complete
    )
    #expect(PartialFile.decide(status: 416, contentRange: "bytes */90", contentEncoding: nil, offset: 100) == .notAFile)
    #expect(PartialFile.decide(status: 404, contentRange: nil, contentEncoding: nil, offset: 100) == .notAFile)
    guard
      case .mismatch = PartialFile.decide(
        status: 206,
        contentRange: "bytes 100-199/200",
        contentEncoding: "gzip",
        offset: 100
      )
    else {
      Issue.record("a content-coded 206 is not a range of the file")
      return
    }
  }

  // MARK: - Whose partial file

  static func directory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("surf-partial-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  @Test func onlyAnotherToolsPartialFileIsContinuedHere() throws {
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("board.bin")
    #expect(PartialFile.size(at: file) == nil, "no file")
    try Data().write(to: file)
    #expect(PartialFile.size(at: file) == nil, "an empty file")
    try Data(count: 10).write(to: file)
    #expect(PartialFile.size(at: file) == 10)
    try Data(count: 3).write(to: directory.appendingPathComponent("board.bin.partial"))
    #expect(PartialFile.size(at: file) == nil, "surf's own partial file: Networking.download continues it")
  }

  // MARK: - Through surf, against a transport that answers ranges

  /// Answers with `content`: ranges honoured (`206`, `416` past the end), ignored (`200`), or a wrong `206` from byte 0.
  struct RangeServer: Transport {
    enum Behaviour { case honours, ignores, startsAtZero }
    let content: Data
    let behaviour: Behaviour
    let ranges = RangeLog()

    func send(_ request: HTTPRequest, body: RequestBody?, options: TransferOptions) async throws -> TransportResponse {
      let range = request.headerFields[.range]
      ranges.append(range)
      var head = HTTPResponse(status: .ok)
      var slice = content
      if let range, range.hasPrefix("bytes="), range.hasSuffix("-"), behaviour != .ignores,
        let from = Int(range.dropFirst(6).dropLast())
      {
        let start = behaviour == .startsAtZero ? 0 : from
        if start >= content.count {
          head = HTTPResponse(status: .init(code: 416))
          head.headerFields[.contentRange] = "bytes */\(content.count)"
          slice = Data()
        } else {
          head = HTTPResponse(status: .partialContent)
          head.headerFields[.contentRange] = "bytes \(start)-\(content.count - 1)/\(content.count)"
          slice = content.subdata(in: start..<content.count)
        }
      }
      head.headerFields[.contentLength] = "\(slice.count)"
      return TransportResponse(head: head, url: request.url, body: ResponseBody(data: slice))
    }
  }

  final class RangeLog: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String?] = []
    func append(_ value: String?) { lock.withLock { values.append(value) } }
    var all: [String?] { lock.withLock { values } }
  }

  static let content = Data((0..<1000).map { UInt8($0 % 251) })

  func download(
    _ server: RangeServer,
    partial: Data,
    checkStatus: Bool = false
  ) async throws -> (
    Result<SurfExitStatus, SurfError>, Data
  ) {
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("board.bin")
    try partial.write(to: file)
    let console = Console(inputIsTerminal: true, outputIsTerminal: false, errorIsTerminal: false)
    let surf = Surf(console: console, environment: ["XDG_CONFIG_HOME": directory.path, "HOME": directory.path])
    var options = SurfOptions()
    options.download = true
    options.resume = true
    options.output = file.path
    options.checkStatus = checkStatus
    let networking = try surf.makeNetworking(options: options, cookies: nil, transport: .custom(server))
    let spec = try RequestSpec(line: RequestLine(parsing: ["http://127.0.0.1:9/board.bin"]))
    let result: Result<SurfExitStatus, SurfError>
    do {
      result = .success(
        try await surf.download(
          SurfEndpoint(request: spec.request()),
          spec: spec,
          networking: networking,
          options: options
        )
      )
    } catch {
      result = .failure(error)
    }
    return (result, try Data(contentsOf: file))
  }

  @Test func aPartialFileOfAnotherToolGoesOnFromItsSize() async throws {
    let server = RangeServer(content: Self.content, behaviour: .honours)
    let (result, file) = try await download(server, partial: Self.content.prefix(100))
    #expect(try result.get() == .success)
    #expect(file == Self.content)
    #expect(server.ranges.all == ["bytes=100-"])
  }

  @Test func aServerThatIgnoresTheRangeSendsTheWholeFile() async throws {
    let server = RangeServer(content: Self.content, behaviour: .ignores)
    let (result, file) = try await download(server, partial: Data(repeating: 0xFF, count: 100))
    #expect(try result.get() == .success)
    #expect(file == Self.content, "the whole file, not appended to the partial one")
  }

  @Test func aCompleteFileIsLeftAsItIs() async throws {
    let server = RangeServer(content: Self.content, behaviour: .honours)
    let (result, file) = try await download(server, partial: Self.content)
    #expect(try result.get() == .success)
    #expect(file == Self.content)
    #expect(server.ranges.all == ["bytes=1000-"])
  }

  @Test func aRangeThatDoesNotContinueTheFileFailsAndLeavesIt() async throws {
    let server = RangeServer(content: Self.content, behaviour: .startsAtZero)
    let (result, file) = try await download(server, partial: Self.content.prefix(100))
    guard case .failure(let error) = result else {
      Issue.record("a 206 from byte 0 is not appended at byte 100")
      return
    }
    #expect(error.status == .error)
    #expect(
      error.message
        == "download failed (rangeMismatch): Unexpected Content-Range returned ('bytes 0-999/1000') for the requested "
        + "Range (\"bytes=100-\")"
    )
    #expect(file == Self.content.prefix(100), "the partial file as it was")
  }
}
