import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuCore
import SurfCore
import Testing

@Suite struct OutputTests {
  static let plain = Formatter(pretty: Pretty(colors: false, format: true))
  static let coloured = Formatter(pretty: Pretty(colors: true, format: true))

  /// JSON in → re-indented JSON out: key order, numbers and escapes exactly as sent.
  static let json: [(String, String)] = [
    (
      "{\"b\":1,\"a\":[true,null,-2.5e3]}",
      "{\n    \"b\": 1,\n    \"a\": [\n        true,\n        null,\n        -2.5e3\n    ]\n}\n"
    ),
    ("[]", "[]\n"),
    ("{}", "{}\n"),
    ("{\"k\":{}}", "{\n    \"k\": {}\n}\n"),
    ("  {\"s\":\"a\\\"b,:{}\"}  ", "{\n    \"s\": \"a\\\"b,:{}\"\n}\n"),
  ]

  @Test(arguments: json)
  func reindentsJSON(_ input: String, _ expected: String) {
    #expect(Self.plain.body(Data(input.utf8), contentType: "application/json", terminal: true) == expected)
  }

  @Test(arguments: ["{\"a\":}", "{\"a\" 1}", "[1,]", "{\"a\":1", "[01x]", "{a:1}"])
  func leavesBrokenJSONAsItIs(_ input: String) {
    #expect(Self.plain.body(Data(input.utf8), contentType: "application/json", terminal: true) == input + "\n")
  }

  @Test func coloursKeysStringsNumbersAndLiterals() {
    let text = Self.coloured.body(Data("{\"k\":\"v\",\"n\":1,\"t\":true}".utf8), contentType: nil, terminal: true)
    #expect(text?.contains("\u{1B}[34m\"k\"\u{1B}[0m: \u{1B}[33m\"v\"\u{1B}[0m") == true)
    #expect(text?.contains("\u{1B}[36m1\u{1B}[0m") == true)
    #expect(text?.contains("\u{1B}[35mtrue\u{1B}[0m") == true)
  }

  @Test func colorsAloneKeepTheLayout() {
    let formatter = Formatter(pretty: Pretty(colors: true, format: false))
    let text = formatter.body(Data("{\"k\": [1, 2]}".utf8), contentType: "application/json", terminal: true)
    #expect(text == "{\u{1B}[34m\"k\"\u{1B}[0m: [\u{1B}[36m1\u{1B}[0m, \u{1B}[36m2\u{1B}[0m]}\n")
  }

  @Test func noneLeavesTheBodyAlone() {
    let formatter = Formatter(pretty: Pretty(colors: false, format: false))
    #expect(formatter.body(Data("{\"a\":1}".utf8), contentType: "application/json", terminal: false) == nil)
    #expect(formatter.body(Data("{\"a\":1}".utf8), contentType: "application/json", terminal: true) == "{\"a\":1}\n")
  }

  @Test func binaryBodiesAreNotWrittenToATerminal() {
    let binary = Data([0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF])
    #expect(
      Self.plain.body(binary, contentType: "image/png", terminal: true)?.contains("binary data not shown") == true
    )
    #expect(Self.plain.body(binary, contentType: "image/png", terminal: false) == nil, "piped: the bytes as they are")
  }

  @Test func responseHeadHasTheStatusLineAndFields() {
    var fields = HTTPFields()
    fields[.contentType] = "application/json"
    fields.append(HTTPField(name: HTTPField.Name("X-A")!, value: "1"))
    let head = Self.plain.responseHead(HTTPResponse(status: .notFound, headerFields: fields))
    #expect(head == "HTTP 404 Not Found\nContent-Type: application/json\nX-A: 1\n\n")
    let red = Self.coloured.responseHead(HTTPResponse(status: .internalServerError))
    #expect(red.hasPrefix("\u{1B}[34mHTTP\u{1B}[0m \u{1B}[31m500 Internal Server Error\u{1B}[0m"))
  }

  @Test(arguments: [
    ("HBhb", PrintSelection.verbose),
    ("h", PrintSelection(responseHead: true)),
    ("Bb", PrintSelection(requestBody: true, responseBody: true)),
  ])
  func printLetters(_ letters: String, _ expected: PrintSelection) throws {
    #expect(try PrintSelection(letters: letters) == expected)
  }

  @Test(arguments: ["", "x", "Hx"])
  func rejectsOtherPrintLetters(_ letters: String) {
    #expect(throws: SurfError.self) { _ = try PrintSelection(letters: letters) }
  }

  /// HTTPie's `--headers, -h`: "Print only the response headers. Shortcut for --print=h."
  @Test func headersIsTheLetterH() throws {
    #expect(PrintSelection.responseHeaders == (try PrintSelection(letters: "h")))
  }

  @Test func defaultSelectionDependsOnTheTerminal() {
    #expect(PrintSelection.standard(terminal: true) == PrintSelection(responseHead: true, responseBody: true))
    #expect(PrintSelection.standard(terminal: false) == PrintSelection(responseBody: true))
  }

  @Test(arguments: [
    (100, SurfExitStatus.success), (200, .success), (204, .success), (301, .redirection), (399, .redirection),
    (400, .clientError), (451, .clientError), (500, .serverError), (599, .serverError),
  ])
  func checkStatus(_ code: Int, _ expected: SurfExitStatus) {
    #expect(SurfExitStatus.checking(code) == expected)
  }
}

@Suite struct ProgressLineTests {
  @Test(arguments: [
    (Int64(0), "0 B"), (999, "999 B"), (1000, "1.0 kB"), (1_234_567, "1.2 MB"), (3_000_000_000, "3.0 GB"),
  ])
  func sizes(_ bytes: Int64, _ text: String) {
    #expect(ProgressLine.size(bytes) == text)
  }

  @Test func aLineWithATotalHasEveryPart() {
    let line = ProgressLine(done: 500_000, total: 1_000_000, elapsed: 2).render(width: 80)
    #expect(line.count <= 80)
    #expect(line.hasPrefix(" 50% ["))
    #expect(line.hasSuffix("]  500.0 kB / 1.0 MB  250.0 kB/s  ETA 0:02"))
  }

  @Test func aCompleteLineIsFull() {
    let line = ProgressLine(done: 10, total: 10, elapsed: 1).render(width: 60)
    #expect(line.hasPrefix("100% [=") && line.contains("=]"))
  }

  @Test func withoutATotalThereIsNoBar() {
    #expect(ProgressLine(done: 2000, total: nil, elapsed: 1).render(width: 80) == "2.0 kB  2.0 kB/s")
  }

  @Test func aNarrowTerminalDropsTheBar() {
    let line = ProgressLine(done: 5, total: 10, elapsed: 1).render(width: 30)
    #expect(line.count <= 30)
    #expect(!line.contains("["))
  }

  @Test func theBarRedrawsInPlaceAndClearsOnce() {
    let written = LockedStrings()
    let bar = ProgressBar(width: 80) { written.append($0) }
    bar.update(done: 0, total: nil)  // nothing moved, nothing known: not drawn
    bar.update(done: 10, total: 100)
    bar.update(done: 100, total: 100)  // complete: drawn however soon
    bar.finish()
    bar.finish()
    bar.update(done: 100, total: 100)  // after finish: nothing
    let all = written.all
    #expect(all.count == 3, "\(all)")
    #expect(all.dropLast().allSatisfy { $0.hasPrefix("\r\u{1B}[2K") && $0.contains("% [") })
    #expect(all.last == "\r\u{1B}[2K")
  }

  @Test func aBarNeverDrawnIsNotCleared() {
    let written = LockedStrings()
    let bar = ProgressBar(width: 80) { written.append($0) }
    bar.finish()
    #expect(written.all.isEmpty)
  }
}

/// Collects what a progress bar writes (it is called from the transport's thread in real use).
final class LockedStrings: Sendable {
  private let strings = Locked<[String]>([])
  func append(_ string: String) { strings.withLock { $0.append(string) } }
  var all: [String] { strings.withLock { $0 } }
}
