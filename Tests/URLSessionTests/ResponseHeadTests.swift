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

  static let gzip = ["Content-Encoding": "gzip", "Content-Length": "40", "Content-Type": "application/json"]

  @Test func fieldsAreSortedByNameAndDescribeTheDecodedBody() {
    let head = ResponseHead(Self.response(Self.plain), method: .get)
    #expect(head.head.headerFields.map(\.name.canonicalName) == ["content-length", "content-type", "date", "server"])
    #expect(head.expectedLength == 100)
    #expect(!head.isDecoded)

    let gzip = ResponseHead(Self.response(Self.gzip), method: .get)
    #expect(gzip.isDecoded)
    #expect(gzip.expectedLength == nil)
    #expect(gzip.head.headerFields[.contentEncoding] == nil)
    #expect(gzip.head.headerFields[.contentLength] == nil)
    #expect(gzip.head.headerFields[.contentType] == "application/json")

    let bodiless = ResponseHead(Self.response(Self.plain, status: 304), method: .get)
    #expect(bodiless.expectedLength == nil)
    let toHead = ResponseHead(Self.response(Self.plain), method: .head)
    #expect(toHead.expectedLength == nil)
  }

  /// A name HTTPTypes refuses is left out.
  @Test func aRefusedNameIsLeftOut() {
    var fields = Self.plain
    fields["Bad Name"] = "x"
    let head = ResponseHead(Self.response(fields), method: .get)
    #expect(head.head.headerFields.count == 4)
    #expect(!head.head.headerFields.contains { $0.name.rawName == "Bad Name" })
  }
}
