import Foundation
import HTTPTypes
import Testing

@testable import MalibuURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("ResponseHead: a URLSession response turned into Malibu's head")
struct ResponseHeadTests {
  static let url = URL(string: "http://127.0.0.1:8080/a")!

  static func response(_ fields: [String: String], status: Int = 200) -> HTTPURLResponse {
    HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: fields)!
  }

  static let plain = [
    "Content-Type": "text/plain", "Content-Length": "100", "Date": "Tue, 24 Nov 2026 16:00:00 GMT", "Server": "nginx",
  ]

  /// Heads one after the other, as a server might send them: repeated, a value changed, a field more, as many fields
  /// under another name, a name HTTPTypes refuses, an encoded body, no fields at all.
  static let heads: [[String: String]] = {
    var later = plain
    later["Date"] = "Tue, 24 Nov 2026 16:00:01 GMT"
    var more = later
    more["X-Request-Id"] = "7"
    var renamed = later
    renamed["X-Trace"] = "7"
    renamed["Server"] = nil
    var refused = later
    refused["Bad Name"] = "x"
    let gzip = ["Content-Encoding": "gzip", "Content-Length": "40", "Content-Type": "application/json"]
    var gzipLater = gzip
    gzipLater["Content-Length"] = "41"
    return [plain, plain, later, later, more, renamed, refused, refused, gzip, gzipLater, [:], plain]
  }()

  @Test func theMemoAnswersWhatAFreshBuildAnswers() {
    let memo = HeaderFieldMemo()
    for fields in Self.heads + Self.heads.reversed() {
      for method in [HTTPRequest.Method.get, .head] {
        let response = Self.response(fields)
        let fresh = ResponseHead(response, method: method)
        let remembered = ResponseHead(response, method: method, memo: memo)
        #expect(remembered.head == fresh.head, "\(fields)")
        #expect(Array(remembered.head.headerFields) == Array(fresh.head.headerFields), "order of \(fields)")
        #expect(remembered.isDecoded == fresh.isDecoded)
        #expect(remembered.expectedLength == fresh.expectedLength)
        #expect(remembered.url == fresh.url)
      }
    }
  }

  @Test func fieldsAreSortedByNameAndDescribeTheDecodedBody() {
    let head = ResponseHead(Self.response(Self.plain), method: .get, memo: HeaderFieldMemo())
    #expect(head.head.headerFields.map(\.name.canonicalName) == ["content-length", "content-type", "date", "server"])
    #expect(head.expectedLength == 100)
    #expect(!head.isDecoded)

    let gzip = ResponseHead(Self.response(Self.heads[8]), method: .get, memo: HeaderFieldMemo())
    #expect(gzip.isDecoded)
    #expect(gzip.expectedLength == nil)
    #expect(gzip.head.headerFields[.contentEncoding] == nil)
    #expect(gzip.head.headerFields[.contentLength] == nil)
    #expect(gzip.head.headerFields[.contentType] == "application/json")

    let bodiless = ResponseHead(Self.response(Self.plain, status: 304), method: .get, memo: HeaderFieldMemo())
    #expect(bodiless.expectedLength == nil)
  }

  /// The fields of the last head are updated in place only when the names are exactly the same.
  @Test func onlyTheSameNamesUpdateTheRememberedFields() {
    let first = ResponseHead.fields(Self.response(Self.plain).allHeaderFields)

    var updated = first
    #expect(ResponseHead.update(&updated, to: Self.response(Self.heads[2]).allHeaderFields))
    #expect(updated[.date] == "Tue, 24 Nov 2026 16:00:01 GMT")
    #expect(updated == ResponseHead.fields(Self.response(Self.heads[2]).allHeaderFields))

    for other in [Self.heads[4], Self.heads[5], Self.heads[8], [:]] {
      var fields = first
      #expect(!ResponseHead.update(&fields, to: Self.response(other).allHeaderFields), "\(other)")
    }
    var none = HTTPFields()
    #expect(!ResponseHead.update(&none, to: Self.response([:]).allHeaderFields))
  }

  /// A refused name is left out; the head built without it is never taken for one with the same names.
  @Test func aRefusedNameIsLeftOutEveryTime() {
    let memo = HeaderFieldMemo()
    for _ in 0..<3 {
      let head = ResponseHead(Self.response(Self.heads[6]), method: .get, memo: memo)
      #expect(head.head.headerFields.count == 4)
      #expect(!head.head.headerFields.contains { $0.name.rawName == "Bad Name" })
    }
  }
}
