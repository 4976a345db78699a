import Foundation
import MalibuCore

@testable import MalibuEncoding

/// Multipart as a round trip: a form built from fuzzed parts (text, data, files on disk) and a fuzzed or random
/// boundary either fails for a reason the target can name itself (a bad boundary, a bad media type, the chosen
/// delimiter inside a part) or encodes to a body that splits back into exactly the parts given, read whole or in
/// pieces of any size.
enum MultipartTarget {
  /// What the target appended, as the body must carry it.
  private struct Given: Equatable {
    var name: String
    var fileName: String?
    var mimeType: String?
    var content: Data

    /// Byte for byte: `String`'s `==` would take canonically equivalent text as equal.
    static func == (lhs: Given, rhs: Given) -> Bool {
      Array(lhs.name.utf8) == Array(rhs.name.utf8)
        && lhs.fileName.map { Array($0.utf8) } == rhs.fileName.map { Array($0.utf8) }
        && lhs.mimeType.map { Array($0.utf8) } == rhs.mimeType.map { Array($0.utf8) } && lhs.content == rhs.content
    }
  }

  /// A folder of this process's own for the file parts, rewritten on every input.
  private static let folder: URL = {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("malibu-fuzz-multipart-\(ProcessInfo.processInfo.processIdentifier)")
    try! FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
  }()

  private static let mediaTypes = ["text/plain", "image/png", "application/json; charset=utf-8", "a/b; q=\"x y\""]
  private static let boundaryCharacters = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'()+_,-./:=? "
  )

  static func run(_ bytes: UnsafeRawBufferPointer) {
    var input = FuzzInput(bytes)
    var chosen: String?
    if input.bool() {
      if input.choice(4) == 0 {
        chosen = input.shortString()
      } else {
        chosen = String((0..<input.choice(80)).map { _ in boundaryCharacters[input.choice(boundaryCharacters.count)] })
      }
    }
    var form = chosen.map(MultipartFormData.init(boundary:)) ?? MultipartFormData()
    var given: [Given] = []
    var validMediaTypes = true
    for index in 0..<input.choice(5) {
      let name = input.shortString()
      let kind = input.choice(3)
      let fileName = input.bool() ? input.shortString() : nil
      var mimeType: String?
      switch input.choice(4) {
      case 0: mimeType = mediaTypes[input.choice(mediaTypes.count)]
      case 1: mimeType = input.shortString()
      default: mimeType = nil
      }
      let content = input.shortData()
      switch kind {
      case 0:
        let value = String(decoding: content, as: UTF8.self)
        form.append(value, name: name)
        given.append(Given(name: name, fileName: nil, mimeType: nil, content: Data(value.utf8)))
      case 1:
        form.append(content, name: name, fileName: fileName, mimeType: mimeType)
        validMediaTypes = validMediaTypes && isValid(mimeType)
        given.append(
          Given(name: name, fileName: fileName, mimeType: mimeType ?? "application/octet-stream", content: content)
        )
      default:
        let url = folder.appendingPathComponent("file-\(index).bin")
        try! content.write(to: url)
        form.append(fileAt: url, name: name, fileName: fileName, mimeType: mimeType)
        validMediaTypes = validMediaTypes && isValid(mimeType)
        let sentName = fileName ?? url.lastPathComponent
        let sentType = mimeType ?? MultipartFile.guessMimeType(forFileName: sentName)
        given.append(Given(name: name, fileName: sentName, mimeType: sentType, content: content))
      }
    }
    let bufferSize = Int(input.byte()) + 1

    let delimiter = Data("--\(form.boundary)".utf8)
    let delimiterInAPart =
      chosen != nil
      && given.contains { part in
        part.content.range(of: delimiter) != nil || Data(headerText(part).utf8).range(of: delimiter) != nil
      }
    let validBoundary = chosen.map(isValid(boundary:)) ?? true
    let body: Data
    do {
      body = try form.encode()
    } catch {
      precondition(error.code == .encodingFailed, "encoding failed with \(error.code)")
      precondition(!validBoundary || !validMediaTypes || delimiterInAPart, "refused a good form: \(error.message)")
      return
    }
    precondition(validBoundary && validMediaTypes, "a bad boundary or media type was accepted")
    precondition(!delimiterInAPart, "a part holding the chosen delimiter was sent")
    precondition(chosen == nil || form.boundary == chosen, "a chosen boundary was changed")
    precondition(UInt64(body.count) == form.contentLength, "contentLength is not the body's length")
    precondition(readInPieces(form, size: bufferSize) == body, "reading in pieces gave another body")
    let sent = given.map {
      Given(name: escape($0.name), fileName: $0.fileName.map(escape), mimeType: $0.mimeType, content: $0.content)
    }
    precondition(split(body, boundary: form.boundary) == sent, "the body does not split back into the parts given")
  }

  /// RFC 2046 §5.1.1, written out again here.
  private static func isValid(boundary: String) -> Bool {
    let scalars = Array(boundary.unicodeScalars)
    return (1...70).contains(scalars.count) && scalars.last != " "
      && scalars.allSatisfy { boundaryCharacters.contains(Character($0)) }
  }

  private static func isValid(_ mimeType: String?) -> Bool {
    guard let mimeType else { return true }
    let isPlain = mimeType.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 0x20 && $0.value != 0x7F }
    return isPlain && (try? MediaType(parsing: mimeType)) != nil
  }

  /// The HTML standard's escaping of names in `Content-Disposition`, scalar by scalar (a `"` followed by a
  /// combining mark is still a `"`).
  private static func escape(_ text: String) -> String {
    var result = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": result += "%22"
      case "\r": result += "%0D"
      case "\n": result += "%0A"
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  private static func headerText(_ part: Given) -> String {
    "name=\"\(escape(part.name))\"" + (part.fileName.map { "filename=\"\(escape($0))\"" } ?? "")
      + (part.mimeType ?? "")
  }

  private static func readInPieces(_ form: MultipartFormData, size: Int) -> Data {
    let reader = try! form.makeReader()
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 1)
    defer { buffer.deallocate() }
    var result = Data()
    while true {
      let count = try! reader.read(into: buffer)
      if count == 0 { return result }
      result.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
    }
  }

  /// The parts of a body, found the way a server finds them: the first delimiter at the start, every other one
  /// after CRLF, the close delimiter last.
  private static func split(_ body: Data, boundary: String) -> [Given] {
    let open = Data("--\(boundary)".utf8)
    let delimiter = Data("\r\n--\(boundary)".utf8)
    let crlf = Data("\r\n".utf8)
    precondition(body.starts(with: open), "the body does not start with the delimiter")
    var position = body.startIndex + open.count
    var parts: [Given] = []
    while true {
      let after = body[position...]
      if after.starts(with: Data("--\r\n".utf8)) {
        precondition(after.count == 4, "bytes after the close delimiter")
        return parts
      }
      precondition(after.starts(with: crlf), "no CRLF after a delimiter")
      let start = position + 2
      guard let next = body.range(of: delimiter, in: start..<body.endIndex) else {
        fatalError("no close delimiter")
      }
      parts.append(parse(body[start..<next.lowerBound]))
      position = next.upperBound
    }
  }

  /// One part's header block and content, read as bytes (as a server reads them, with no notion of characters).
  private static func parse(_ part: Data) -> Given {
    guard let blank = part.range(of: Data("\r\n\r\n".utf8)) else { fatalError("a part without its empty line") }
    let header = Data(part[part.startIndex..<blank.lowerBound])
    var lines: [Data] = []
    var lineStart = header.startIndex
    while let end = header.range(of: Data("\r\n".utf8), in: lineStart..<header.endIndex) {
      lines.append(header[lineStart..<end.lowerBound])
      lineStart = end.upperBound
    }
    lines.append(header[lineStart...])
    let prefix = Data("Content-Disposition: form-data; name=\"".utf8)
    let disposition = lines[0]
    precondition(disposition.starts(with: prefix), "no Content-Disposition first")
    var rest = disposition.dropFirst(prefix.count)
    guard let close = rest.firstIndex(of: UInt8(ascii: "\"")) else { fatalError("an unterminated name") }
    var given = Given(
      name: String(decoding: rest[..<close], as: UTF8.self),
      fileName: nil,
      mimeType: nil,
      content: Data(part[blank.upperBound...])
    )
    rest = rest[(close + 1)...]
    if !rest.isEmpty {
      let filePrefix = Data("; filename=\"".utf8)
      precondition(rest.starts(with: filePrefix) && rest.last == UInt8(ascii: "\""), "a malformed filename parameter")
      given.fileName = String(decoding: rest.dropFirst(filePrefix.count).dropLast(), as: UTF8.self)
    }
    let typePrefix = Data("Content-Type: ".utf8)
    for line in lines.dropFirst() {
      precondition(line.starts(with: typePrefix) && given.mimeType == nil, "an unexpected header line")
      given.mimeType = String(decoding: line.dropFirst(typePrefix.count), as: UTF8.self)
    }
    return given
  }
}
