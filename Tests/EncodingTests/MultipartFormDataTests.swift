import Foundation
import MalibuCore
import Testing

@testable import MalibuEncoding

@Suite struct MultipartFormDataTests {
  @Test func layoutIsByteForByte() throws {
    let photo = try TemporaryFile(contents: Data("JPEG\r\n--bytes".utf8), name: "photo.jpg")
    var form = MultipartFormData(boundary: "Boundary-1")
    form.append("John", name: "firstname")
    form.append(Data([0, 1, 0xFF]), name: "blob", fileName: "b.bin", mimeType: "application/x-test")
    form.append(Data("raw".utf8), name: "plain")
    form.append(fileAt: photo.url, name: "photo", fileName: "photo.jpg", mimeType: "image/jpeg")
    var expected = Data()
    expected.append(
      Data(
        ("--Boundary-1\r\n" + "Content-Disposition: form-data; name=\"firstname\"\r\n" + "\r\n" + "John\r\n"
          + "--Boundary-1\r\n" + "Content-Disposition: form-data; name=\"blob\"; filename=\"b.bin\"\r\n"
          + "Content-Type: application/x-test\r\n" + "\r\n").utf8
      )
    )
    expected.append(contentsOf: [0, 1, 0xFF])
    expected.append(
      Data(
        ("\r\n" + "--Boundary-1\r\n" + "Content-Disposition: form-data; name=\"plain\"\r\n"
          + "Content-Type: application/octet-stream\r\n" + "\r\n" + "raw\r\n" + "--Boundary-1\r\n"
          + "Content-Disposition: form-data; name=\"photo\"; filename=\"photo.jpg\"\r\n"
          + "Content-Type: image/jpeg\r\n"
          + "\r\n" + "JPEG\r\n--bytes\r\n" + "--Boundary-1--\r\n").utf8
      )
    )
    let encoded = try form.encode()
    #expect(encoded == expected, "\(text(encoded))")
    #expect(form.contentLength == UInt64(expected.count))
    #expect(form.contentType == "multipart/form-data; boundary=Boundary-1")
    #expect(form.count == 4)
    #expect(form.recordedError == nil)
  }

  @Test func anEmptyFormIsTheCloseDelimiter() throws {
    let form = MultipartFormData(boundary: "B")
    #expect(text(try form.encode()) == "--B--\r\n")
    #expect(form.contentLength == 7)
  }

  static let textFields: [(name: String, value: String, header: String)] = [
    ("name", "Zoë & co = 100%", #"name="name""#),
    ("日本", "🏄 surf\r\nline two", #"name="日本""#),
    ("quote\"d", "v", #"name="quote%22d""#),
    ("multi\r\nline", "v", #"name="multi%0D%0Aline""#),
    ("a+b=c&d", "", #"name="a+b=c&d""#),
  ]

  @Test(arguments: textFields)
  func textFieldsAreUTF8AsIsAndNamesEscapedPerHTML(name: String, value: String, header: String) throws {
    var form = MultipartFormData(boundary: "X")
    form.append(value, name: name)
    let expected = "--X\r\nContent-Disposition: form-data; \(header)\r\n\r\n\(value)\r\n--X--\r\n"
    #expect(try form.encode() == Data(expected.utf8))
    #expect(form.contentLength == UInt64(expected.utf8.count))
  }

  static let fileNames: [(given: String?, fileOnDisk: String, header: String, mimeType: String)] = [
    (nil, "photo.JPG", #"filename="photo.JPG""#, "image/jpeg"),
    (nil, "doc.pdf", #"filename="doc.pdf""#, "application/pdf"),
    (nil, "noextension", #"filename="noextension""#, "application/octet-stream"),
    (nil, "data.unknownext", #"filename="data.unknownext""#, "application/octet-stream"),
    ("na\"me\r\n.png", "x.bin", #"filename="na%22me%0D%0A.png""#, "image/png"),
    ("résumé.txt", "x.bin", #"filename="résumé.txt""#, "text/plain"),
  ]

  @Test(arguments: fileNames)
  func fileNamesDefaultAndMediaTypesAreGuessed(
    given: String?,
    fileOnDisk: String,
    header: String,
    mimeType: String
  ) throws {
    let file = try TemporaryFile(contents: Data("1".utf8), name: fileOnDisk)
    var form = MultipartFormData(boundary: "X")
    form.append(fileAt: file.url, name: "f", fileName: given)
    let expected =
      "--X\r\nContent-Disposition: form-data; name=\"f\"; \(header)\r\nContent-Type: \(mimeType)\r\n\r\n1\r\n--X--\r\n"
    #expect(text(try form.encode()) == expected)
  }

  static let lengthCases: [[String]] = [[], ["a"], ["a", "bb", ""], Array(repeating: "0123456789", count: 40)]

  @Test(arguments: lengthCases)
  func contentLengthEqualsTheEncodedByteCount(values: [String]) throws {
    let file = try TemporaryFile(contents: Data(repeating: 7, count: 1234))
    var form = MultipartFormData()
    for (index, value) in values.enumerated() {
      form.append(value, name: "t\(index)")
      form.append(Data(value.utf8), name: "d\(index)", fileName: "d\(index).bin")
      form.append(fileAt: file.url, name: "f\(index)")
    }
    let encoded = try form.encode()
    #expect(form.contentLength == UInt64(encoded.count))
    #expect((form as any BodySource).length == UInt64(encoded.count))
  }

  @Test func largeInMemoryDataIsEncodedWhole() throws {
    let big = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    var form = MultipartFormData(boundary: "X")
    form.append(big, name: "big")
    form.append("after", name: "t")
    let encoded = try form.encode()
    #expect(form.contentLength == UInt64(encoded.count))
    let header = Data(
      "--X\r\nContent-Disposition: form-data; name=\"big\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8
    )
    #expect(encoded.prefix(header.count) == header)
    #expect(encoded.dropFirst(header.count).prefix(big.count) == big)
  }

  @Test func aMissingFileIsAClearError() throws {
    let missing = URL(fileURLWithPath: "/nonexistent/malibu/photo.jpg")
    var form = MultipartFormData(boundary: "X")
    form.append("kept", name: "t")
    form.append(fileAt: missing, name: "photo", mimeType: "image/jpeg")
    #expect(form.recordedError?.code == .encodingFailed)
    for attempt in [{ _ = try form.encode() }, { _ = try form.makeReader() }] {
      let error = networkError(attempt)
      #expect(error?.code == .encodingFailed)
      #expect(error?.message.contains("/nonexistent/malibu/photo.jpg") == true)
      #expect(error?.message.contains("photo") == true)
    }
  }

  static let unreadableFiles: [URL] = [
    URL(string: "https://example.com/photo.jpg")!,
    FileManager.default.temporaryDirectory,
  ]

  @Test(arguments: unreadableFiles)
  func nonFilesAreRecordedErrors(url: URL) {
    var form = MultipartFormData()
    form.append(fileAt: url, name: "f")
    #expect(form.recordedError?.code == .encodingFailed)
    #expect(networkError { _ = try form.encode() }?.code == .encodingFailed)
  }

  @Test func aFileRemovedAfterAppendingFailsBeforeAnythingIsRead() throws {
    var file: TemporaryFile? = try TemporaryFile(contents: Data("abc".utf8))
    var form = MultipartFormData()
    form.append(fileAt: file!.url, name: "f")
    #expect(form.recordedError == nil)
    file = nil
    #expect(networkError { _ = try form.makeReader() }?.code == .encodingFailed)
  }

  @Test func aFileThatChangedSizeIsAnError() throws {
    let file = try TemporaryFile(contents: Data("abc".utf8))
    var form = MultipartFormData()
    form.append(fileAt: file.url, name: "f")
    try Data("abcdef".utf8).write(to: file.url)
    let error = networkError { _ = try form.makeReader() }
    #expect(error?.code == .encodingFailed)
    #expect(error?.message.contains("changed size") == true)
  }

  static let badMediaTypes = ["image/jpeg\r\nX-Injected: 1", "text/plain; a=\"x\ny\"", "nonsense", "", "ïmage/png"]

  @Test(arguments: badMediaTypes)
  func invalidMediaTypesAreRecordedErrors(mimeType: String) {
    var form = MultipartFormData(boundary: "X")
    form.append(Data("1".utf8), name: "d", mimeType: mimeType)
    let error = networkError { _ = try form.encode() }
    #expect(error?.code == .encodingFailed)
    #expect(error?.message.contains("'d'") == true)
  }

  static let badBoundaries = [
    "", String(repeating: "a", count: 71), "with\"quote", "ends with space ", "naïve", "a\r\nb",
  ]

  @Test(arguments: badBoundaries)
  func invalidChosenBoundariesAreRecordedErrors(boundary: String) {
    let form = MultipartFormData(boundary: boundary)
    #expect(form.recordedError?.code == .encodingFailed)
    #expect(networkError { _ = try form.makeReader() }?.code == .encodingFailed)
  }

  static let boundaryHeaders: [(String, String)] = [
    ("Boundary-1", "multipart/form-data; boundary=Boundary-1"),
    ("a'b+c_d.e", "multipart/form-data; boundary=a'b+c_d.e"),
    ("a:b=c?d", "multipart/form-data; boundary=\"a:b=c?d\""),
    ("with space", "multipart/form-data; boundary=\"with space\""),
  ]

  @Test(arguments: boundaryHeaders)
  func boundariesAreQuotedInTheHeaderWhenNeeded(boundary: String, header: String) throws {
    var form = MultipartFormData(boundary: boundary)
    form.append("v", name: "n")
    #expect(form.contentType == header)
    #expect(text(try form.encode()).hasPrefix("--\(boundary)\r\n"))
  }

  @Test func randomBoundariesDifferAndHaveTheDocumentedShape() {
    let boundaries = (0..<200).map { _ in MultipartFormData().boundary }
    #expect(Set(boundaries).count == boundaries.count)
    for boundary in boundaries {
      #expect(boundary.hasPrefix("Boundary-"))
      let random = boundary.dropFirst("Boundary-".count)
      #expect(random.count == 32)
      #expect(random.unicodeScalars.allSatisfy { ($0.isASCII && CharacterSet.alphanumerics.contains($0)) })
      #expect(MultipartFormData.problem(withBoundary: boundary) == nil)
    }
  }
}
