import Foundation
import HTTPTypes
import Testing

@testable import MalibuCurl

extension CurlTests {
  /// The fast paths of the head parser (known names, the field cache) build exactly what the general path builds.
  @Suite struct HeaderParsing {
    static let heads: [[String]] = [
      ["HTTP/1.1 200 OK", "Server: nginx", "Content-Type: text/plain", "Content-Length: 100", "ETag: \"a\""],
      ["HTTP/1.1 200 OK", "server: nginx", "content-type: text/plain", "content-length: 100", "etag: \"a\""],
      ["HTTP/2 200", "content-type: text/html", "content-length: 7", "set-cookie: a=1", "set-cookie: b=2"],
      ["HTTP/1.1 404 Not Found", "CONTENT-TYPE: text/plain", "Content-Length:  12  ", "X-Odd: caf\u{e9}"],
      ["HTTP/1.1 200 OK", "Content-Type: text/plain", "Bad Name: dropped", ": empty", "Date: Sun, 22 Nov 2026"],
      ["HTTP/1.1 200 OK", "Content-Type: text/plain", "Date: Mon, 23 Nov 2026", "Content-Length: 100"],
      // Longer than a cache entry holds (built every time), and exactly as long as one holds.
      ["HTTP/1.1 200 OK", "X-Long: " + String(repeating: "v", count: 300), "Content-Length: 1"],
      ["HTTP/1.1 200 OK", "X-Fit: " + String(repeating: "w", count: HeaderFieldCache.maximumKeyLength - 5)],
    ]

    @Test func cachedAndKnownFieldsEqualTheGeneralPath() throws {
      let cache = HeaderFieldCache()
      // Twice through every head, so that the second pass is served from the cache.
      for lines in Self.heads + Self.heads {
        let cached = try #require(parse(lines, cache: cache))
        let expected = try #require(reference(lines))
        #expect(cached.status == expected.status)
        #expect(cached.status.reasonPhrase == expected.status.reasonPhrase)
        #expect(Array(cached.headerFields) == Array(expected.headerFields))
        #expect(cached.headerFields.map(\.name.rawName) == expected.headerFields.map(\.name.rawName))
        #expect(cached.headerFields.map(\.value) == expected.headerFields.map(\.value))
      }
    }

    /// Every line of a repeated head is found again, including two lines that share a set (the cache kept only one
    /// field per slot before, and nginx's `Server` and `Date` evicted each other on every response); a line that
    /// changes (a new `Date`) is built once and then found.
    @Test func repeatedHeadsAreServedFromTheCache() throws {
      let cache = HeaderFieldCache()
      func head(date: String) -> [String] {
        [
          "HTTP/1.1 200 OK", "Server: nginx", "Date: \(date)", "Content-Type: application/octet-stream",
          "Content-Length: 100", "Last-Modified: Tue, 24 Nov 2026 05:43:22 GMT", "Connection: keep-alive",
          "ETag: \"6b0523fa-64\"", "Accept-Ranges: bytes",
        ]
      }
      let first = head(date: "Tue, 24 Nov 2026 10:08:55 GMT")
      _ = try #require(parse(first, cache: cache))
      #expect(cache.misses == 8)
      for _ in 0..<3 {
        let again = try #require(parse(first, cache: cache))
        #expect(Array(again.headerFields) == Array(try #require(reference(first)).headerFields))
      }
      #expect(cache.misses == 8)
      #expect(cache.headsParsed == 1)  // the repeats were the same bytes: the same head, parsed once
      let later = head(date: "Tue, 24 Nov 2026 10:08:56 GMT")
      for _ in 0..<2 {
        let parsed = try #require(parse(later, cache: cache))
        #expect(parsed.headerFields[.date] == "Tue, 24 Nov 2026 10:08:56 GMT")
      }
      #expect(cache.misses == 9)
      #expect(cache.headsParsed == 2)
      // One byte apart (the status, a value's last byte, a name's case): parsed again, each as it is.
      let variants = [
        later.map { $0 == "HTTP/1.1 200 OK" ? "HTTP/1.1 201 Created" : $0 },
        later.map { $0 == "Content-Length: 100" ? "Content-Length: 101" : $0 },
        later.map { $0 == "Server: nginx" ? "server: nginx" : $0 },
        later,
      ]
      for lines in variants + variants {
        let parsed = try #require(parse(lines, cache: cache))
        let expected = try #require(reference(lines))
        #expect(parsed.status == expected.status)
        #expect(Array(parsed.headerFields) == Array(expected.headerFields))
        #expect(parsed.headerFields.map(\.name.rawName) == expected.headerFields.map(\.name.rawName))
      }
      #expect(cache.headsParsed == 10)
      // Same lengths, same first, middle and last bytes: one set. Its two ways keep two such lines; a third replaces
      // the one used less recently, and every answer is still the line's own field.
      let sameSet = ["X-A: a1aaa", "X-A: a2aaa"].map { ["HTTP/1.1 200 OK", $0] }
      for lines in sameSet + sameSet {
        let parsed = try #require(parse(lines, cache: cache))
        #expect(Array(parsed.headerFields) == Array(try #require(reference(lines)).headerFields))
      }
      #expect(cache.misses == 13)  // 9, the two new lines of the variants, the two lines of this set
      let third = ["HTTP/1.1 200 OK", "X-A: a3aaa"]
      for lines in [third] + sameSet + [third] {
        let parsed = try #require(parse(lines, cache: cache))
        #expect(Array(parsed.headerFields) == Array(try #require(reference(lines)).headerFields))
      }
    }

    @Test func nonUTF8ValuesKeepTheirBytes() throws {
      let line = Array("X-Latin: caf".utf8) + [0xE9]
      let cache = HeaderFieldCache()
      for _ in 0..<2 {
        var parser = ResponseHeadParser(cache: cache)
        _ = feed(&parser, Array("HTTP/1.1 200 OK\r\n".utf8))
        _ = feed(&parser, line + Array("\r\n".utf8))
        guard case .complete(let head) = feed(&parser, Array("\r\n".utf8)) else {
          Issue.record("no head")
          return
        }
        let field = try #require(head.headerFields.first)
        #expect(field.withUnsafeBytesOfValue { Array($0) } == Array("caf".utf8) + [0xE9])
      }
    }

    private func parse(_ lines: [String], cache: HeaderFieldCache?) -> HTTPResponse? {
      var parser = ResponseHeadParser(cache: cache)
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
