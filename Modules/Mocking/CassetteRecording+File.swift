public import Foundation
internal import MalibuTransport

extension CassetteRecording {
  /// The largest entry file read: 1 MiB (a body is kept in a file of its own).
  static let largestEntry = 1 << 20
  /// The latest time, in milliseconds from a transfer's start, that an entry may record (a day).
  static let longestTime = 86_400_000

  /// Reads an entry file's bytes: checks that they are a cassette entry of this format, with a status, header fields,
  /// chunks and a body file that make sense. Every cassette file is untrusted input.
  /// - Parameters:
  ///   - data: The entry file's bytes.
  ///   - entryName: The entry's file name (`0001-GET-users.json`): its body file must be named after it.
  ///   - maximumBodySize: The largest body an entry may declare.
  /// - Returns: The recording.
  /// - Throws: ``CassetteError`` with code `malformedEntry`, `unsafeFile` (a body file named otherwise than after the
  ///   entry: another directory, a traversal) or `tooLarge`.
  public static func decode(
    _ data: Data,
    entryName: String,
    maximumBodySize: Int = 256 << 20
  ) throws(CassetteError) -> CassetteRecording {
    guard data.count <= largestEntry else {
      throw CassetteError(
        code: .tooLarge,
        message: "\(entryName) is \(data.count) bytes, larger than an entry can be (\(largestEntry))"
      )
    }
    let recording: CassetteRecording
    do {
      recording = try JSONDecoder().decode(CassetteRecording.self, from: data)
    } catch {
      throw CassetteError(
        code: .malformedEntry,
        message: "\(entryName) is not a cassette entry: \(Self.explain(error))"
      )
    }
    try recording.validate(entryName: entryName, maximumBodySize: maximumBodySize)
    return recording
  }

  private func validate(entryName: String, maximumBodySize: Int) throws(CassetteError) {
    func malformed(_ what: String) -> CassetteError {
      CassetteError(code: .malformedEntry, message: "\(entryName): \(what)")
    }
    guard format == Self.currentFormat else {
      throw malformed("format \(format), and this library reads format \(Self.currentFormat)")
    }
    guard !request.method.isEmpty, request.method.utf8.allSatisfy(Self.isTokenByte) else {
      throw malformed("the method '\(request.method)' is not an HTTP method")
    }
    guard URL(string: request.url)?.scheme != nil else { throw malformed("the URL '\(request.url)' is not absolute") }
    try Self.validate(request.headers, in: entryName)
    if let body = request.body, body.size < 0 || !Self.isDigest(body.sha256) {
      throw malformed("the request body's size or sha256 is not valid")
    }
    guard (response == nil) != (failure == nil) else {
      throw malformed("an entry has either a response or a failure")
    }
    if let failure { try Self.validate(failure, in: entryName) }
    guard let response else { return }
    guard (100...999).contains(response.status) else { throw malformed("the status \(response.status) is not valid") }
    guard Self.isText(response.reason) else { throw malformed("the reason phrase has a line break or NUL") }
    try Self.validate(response.headers, in: entryName)
    if let failure = response.failure { try Self.validate(failure, in: entryName) }
    let size = response.body?.size ?? 0
    if let body = response.body {
      let expected = Self.bodyFileName(forEntry: entryName)
      guard body.file == expected else {
        throw CassetteError(
          code: .unsafeFile,
          message: "\(entryName) names the body file '\(body.file)'; an entry's body is the file \(expected)"
        )
      }
      guard body.size > 0, Self.isDigest(body.sha256) else { throw malformed("the body's size or sha256 is not valid") }
      guard body.size <= maximumBodySize else {
        throw CassetteError(
          code: .tooLarge,
          message:
            "\(entryName) declares a body of \(body.size) bytes, more than the cassette reads (\(maximumBodySize))"
        )
      }
    }
    if let timing = response.timing {
      for value in [timing.firstByte, timing.total].compactMap(\.self) where !(0...Self.longestTime).contains(value) {
        throw malformed("a timing of \(value) ms is out of range")
      }
    }
    if let chunks = response.chunks {
      var total = 0
      var last = 0
      for chunk in chunks {
        guard chunk.size > 0, chunk.milliseconds >= last, chunk.milliseconds <= Self.longestTime else {
          throw malformed("a chunk has no bytes, or arrives before the one before it")
        }
        total += chunk.size
        last = chunk.milliseconds
        guard total <= size else { break }
      }
      guard total == size else { throw malformed("the chunks add up to \(total) bytes, and the body has \(size)") }
    }
  }

  private static func validate(_ headers: [CassetteHeader], in entryName: String) throws(CassetteError) {
    for header in headers {
      guard !header.name.isEmpty, header.name.utf8.allSatisfy(isTokenByte), isText(header.value) else {
        throw CassetteError(
          code: .malformedEntry,
          message: "\(entryName): the header field '\(header.name)' has an invalid name or a value with CR, LF or NUL"
        )
      }
    }
  }

  private static func validate(_ failure: Failure, in entryName: String) throws(CassetteError) {
    guard TransportError.Code(named: failure.code) != nil else {
      throw CassetteError(
        code: .malformedEntry,
        message: "\(entryName): '\(failure.code)' is not a transport error code"
      )
    }
  }

  /// The body file of an entry: `0001-GET-users.json` → `0001-GET-users.body`.
  static func bodyFileName(forEntry entryName: String) -> String {
    (entryName.hasSuffix(".json") ? String(entryName.dropLast(5)) : entryName) + ".body"
  }

  /// A token character of RFC 9110 (method and field names).
  private static func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"):
      return true
    default:
      return "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }
  }

  private static func isText(_ value: String) -> Bool {
    !value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
  }

  private static func isDigest(_ text: String) -> Bool {
    text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
  }

  private static func explain(_ error: any Error) -> String {
    switch error as? DecodingError {
    case .dataCorrupted(let context)?: return context.debugDescription
    case .keyNotFound(let key, _)?: return "the field '\(key.stringValue)' is missing"
    case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?:
      let path = context.codingPath.map(\.stringValue).joined(separator: ".")
      return "the field '\(path)' has the wrong type"
    default: return "\(error)"
    }
  }
}
