import Foundation
import HTTPTypes
import Testing

@testable import MalibuCurl

extension CurlTests {
  /// The head parser builds exactly what HTTPTypes' own initialisers build from the same lines.
  @Suite struct HeaderParsing {
    static let heads: [[String]] = [
      ["HTTP/1.1 200 OK", "Server: nginx", "Content-Type: text/plain", "Content-Length: 100", "ETag: \"a\""],
      ["HTTP/1.1 200 OK", "server: nginx", "content-type: text/plain", "content-length: 100", "etag: \"a\""],
      ["HTTP/2 200", "content-type: text/html", "content-length: 7", "set-cookie: a=1", "set-cookie: b=2"],
      ["HTTP/1.1 404 Not Found", "CONTENT-TYPE: text/plain", "Content-Length:  12  ", "X-Odd: caf\u{e9}"],
      ["HTTP/1.1 200 OK", "Content-Type: text/plain", "Bad Name: dropped", ": empty", "Date: Sun, 22 Nov 2026"],
      ["HTTP/1.1 200 OK", "Content-Type: text/plain", "Date: Mon, 23 Nov 2026", "Content-Length: 100"],
      ["HTTP/1.1 200 OK", "X-Long: " + String(repeating: "v", count: 300), "Content-Length: 1"],
      // Every name spelled as the known-name table has it, and names a byte or a letter's case away from one.
      ["HTTP/1.1 200 OK"] + Self.knownSpellings.map { "\($0): v" },
      [
        "HTTP/2 200", "content-typf: a", "Dat: b", "transfer-encodings: c", "ETAG: d", "eTag: e", "Agee: f",
        "x-twenty-four-bytes-long: g", "x-twenty-five-bytes-long-: h", "Set-cookie: i",
      ],
    ]

    /// The names the parser knows, in their usual and lower-case spellings.
    static let knownSpellings = [
      "Accept-Ranges", "Age", "Cache-Control", "Connection", "Content-Encoding", "Content-Length", "Content-Type",
      "Date", "ETag", "Expires", "Last-Modified", "Location", "Server", "Set-Cookie", "Transfer-Encoding", "Vary",
    ].flatMap { [$0, $0.lowercased()] }

    /// A known spelling gives HTTPTypes' name for it, with the same spelling; a near miss gives none.
    @Test func knownNamesAreFoundOnlyAsSpelled() throws {
      for spelling in Self.knownSpellings {
        let name = try #require(Array(spelling.utf8).withUnsafeBytes { KnownFieldName.name(spelled: $0) })
        #expect(name == HTTPField.Name(spelling))
        #expect(name.rawName == spelling)
      }
      for spelling in ["content-typf", "CONTENT-TYPE", "Dat", "Datee", "", "x-twenty-five-bytes-long-", "Set-cookie"] {
        #expect(Array(spelling.utf8).withUnsafeBytes { KnownFieldName.name(spelled: $0) } == nil, "\(spelling)")
      }
    }

    @Test func fieldsEqualWhatHTTPTypesBuilds() throws {
      for lines in Self.heads {
        let parsed = try #require(parse(lines))
        let expected = try #require(reference(lines))
        #expect(parsed.status == expected.status)
        #expect(parsed.status.reasonPhrase == expected.status.reasonPhrase)
        #expect(Array(parsed.headerFields) == Array(expected.headerFields))
        #expect(parsed.headerFields.map(\.name.rawName) == expected.headerFields.map(\.name.rawName))
        #expect(parsed.headerFields.map(\.value) == expected.headerFields.map(\.value))
      }
    }

    @Test func nonUTF8ValuesKeepTheirBytes() throws {
      let line = Array("X-Latin: caf".utf8) + [0xE9]
      var parser = ResponseHeadParser()
      _ = feed(&parser, Array("HTTP/1.1 200 OK\r\n".utf8))
      _ = feed(&parser, line + Array("\r\n".utf8))
      guard case .complete(let head) = feed(&parser, Array("\r\n".utf8)) else {
        Issue.record("no head")
        return
      }
      let field = try #require(head.headerFields.first)
      #expect(field.withUnsafeBytesOfValue { Array($0) } == Array("caf".utf8) + [0xE9])
    }

    private func parse(_ lines: [String]) -> HTTPResponse? {
      var parser = ResponseHeadParser()
      for line in lines + [""] {
        if case .complete(let head) = feed(&parser, Array((line + "\r\n").utf8)) { return head }
      }
      return nil
    }

    /// What HTTPTypes' own initialisers build from the same lines.
    private func reference(_ lines: [String]) -> HTTPResponse? {
      guard let status = lines.first, let code = Int(status.split(separator: " ")[1]) else { return nil }
      let reason = status.split(separator: " ", maxSplits: 2).dropFirst(2).first.map(String.init) ?? ""
      var fields = HTTPFields()
      for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: ":"), let name = HTTPField.Name(String(line[..<colon])) else { continue }
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        fields.append(HTTPField(name: name, value: Array(value.utf8)))
      }
      return HTTPResponse(status: .init(code: code, reasonPhrase: reason), headerFields: fields)
    }

    private func feed(_ parser: inout ResponseHeadParser, _ bytes: [UInt8]) -> ResponseHeadParser.Event {
      var bytes = bytes
      return bytes.withUnsafeMutableBytes { parser.feed(UnsafeRawBufferPointer($0)) }
    }
  }
}
