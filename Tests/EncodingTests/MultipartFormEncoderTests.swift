import Foundation
import MalibuCore
import MalibuEncoding
import Testing

@Suite struct MultipartFormEncoderTests {
  private func field(_ name: String, _ value: String) -> String {
    "--B\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n"
  }

  @Test func parametersBecomePartsInFormOrder() throws {
    let photo = try TemporaryFile(contents: Data("PNG".utf8), name: "p.png")
    let parameters: Parameters = [
      "name": "Zoë & co",
      "age": 30,
      "ok": true,
      "ratio": 1.5,
      "none": String?.none as any Sendable,
      "board": ["title": "Balsa", "tags": ["a", "b"]] as [String: any Sendable],
      "blob": Data([9]),
      "photo": MultipartFile(url: photo.url, mimeType: "image/png"),
      "empty": [Int](),
    ]
    let form = try MultipartFormEncoder().makeForm(from: parameters, boundary: "B")
    let expected =
      field("age", "30")
      + "--B\r\nContent-Disposition: form-data; name=\"blob\"\r\nContent-Type: application/octet-stream\r\n\r\n\t\r\n"
      + field("board[tags][]", "a") + field("board[tags][]", "b") + field("board[title]", "Balsa")
      + field("name", "Zoë & co") + field("none", "") + field("ok", "1")
      + "--B\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"p.png\"\r\nContent-Type: image/png\r\n\r\n"
      + "PNG\r\n" + field("ratio", "1.5") + "--B--\r\n"
    #expect(text(try form.encode()) == expected)
    #expect(form.contentLength == UInt64(expected.utf8.count))
  }

  static let boolStyles: [(FormURLEncoding.BoolStyle, String)] = [(.numeric, "1"), (.literal, "true")]

  @Test(arguments: boolStyles)
  func boolsFollowTheRules(style: FormURLEncoding.BoolStyle, expected: String) throws {
    let encoder = MultipartFormEncoder(rules: FormURLEncoding(boolStyle: style))
    let form = try encoder.makeForm(from: ["flag": true], boundary: "B")
    #expect(text(try form.encode()) == field("flag", expected) + "--B--\r\n")
  }

  static let arrayStyles: [(FormURLEncoding.ArrayStyle, [String])] = [
    (.brackets, ["files[]", "files[]"]),
    (.noBrackets, ["files", "files"]),
    (.indexInBrackets, ["files[0]", "files[1]"]),
  ]

  @Test(arguments: arrayStyles)
  func filesInArraysAreNamedLikeFormFields(style: FormURLEncoding.ArrayStyle, names: [String]) throws {
    let one = try TemporaryFile(contents: Data("1".utf8), name: "one.txt")
    let two = MultipartFile(data: Data("2".utf8), fileName: "two.json", mimeType: "application/json")
    let encoder = MultipartFormEncoder(rules: FormURLEncoding(arrayStyle: style))
    let form = try encoder.makeForm(from: ["files": [MultipartFile(url: one.url), two]], boundary: "B")
    let expected =
      "--B\r\nContent-Disposition: form-data; name=\"\(names[0])\"; filename=\"one.txt\"\r\n"
      + "Content-Type: text/plain\r\n\r\n1\r\n"
      + "--B\r\nContent-Disposition: form-data; name=\"\(names[1])\"; filename=\"two.json\"\r\n"
      + "Content-Type: application/json\r\n\r\n2\r\n--B--\r\n"
    #expect(text(try form.encode()) == expected)
  }

  @Test func encodeBodyStreamsWithTheBoundaryHeader() throws {
    let file = try TemporaryFile(contents: Data(repeating: 3, count: 200_000))
    let body = try MultipartFormEncoder().encodeBody(
      parameters: ["title": "x", "file": MultipartFile(url: file.url)],
      contentType: .multipartFormData
    )
    let stream = try #require(body.stream as? MultipartFormData)
    #expect(body.data == nil)
    #expect(body.contentType == "multipart/form-data; boundary=\(stream.boundary)")
    let collected = try #require(try body.collect())
    #expect(body.contentLength == UInt64(collected.count))
    #expect(text(collected).hasPrefix("--\(stream.boundary)\r\n"))
  }

  @Test func aCustomMultipartTypeKeepsItsMediaType() throws {
    let body = try MultipartFormEncoder().encodeBody(parameters: ["a": "b"], contentType: .custom("multipart/mixed"))
    #expect(body.contentType?.hasPrefix("multipart/mixed; boundary=Boundary-") == true)
  }

  @Test func inMemoryEncodingMatchesTheStream() throws {
    let parameters: Parameters = ["a": "1", "b": Data("2".utf8)]
    let data = try #require(try MultipartFormEncoder().encode(parameters: parameters))
    let boundary = String(text(data).dropFirst(2).prefix { $0 != "\r\n" })
    #expect(try MultipartFormEncoder().makeForm(from: parameters, boundary: boundary).encode() == data)
  }

  @Test func emptyParametersGiveNoBody() throws {
    #expect(try MultipartFormEncoder().encode(parameters: [:]) == nil)
    #expect(try MultipartFormEncoder().encodeBody(parameters: [:], contentType: .multipartFormData).isEmpty)
  }

  @Test func aMissingFileFailsBeforeAnythingIsSent() {
    let parameters: Parameters = ["photo": MultipartFile(url: URL(fileURLWithPath: "/nonexistent/p.png"))]
    for attempt in [
      { _ = try MultipartFormEncoder().encodeBody(parameters: parameters, contentType: .multipartFormData) },
      { _ = try MultipartFormEncoder().encode(parameters: parameters) },
    ] {
      let error = networkError(attempt)
      #expect(error?.code == .encodingFailed)
      #expect(error?.message.contains("/nonexistent/p.png") == true)
    }
  }

  @Test func aMultipartFileIsRejectedByOtherEncoders() {
    let parameters: Parameters = ["photo": MultipartFile(data: Data())]
    #expect(
      networkError { _ = try JSONParameterEncoder().encode(parameters: parameters) }?.code == .unsupportedParameter
    )
    #expect(networkError { _ = try FormURLEncoder().encode(parameters: parameters) }?.code == .unsupportedParameter)
  }
}
