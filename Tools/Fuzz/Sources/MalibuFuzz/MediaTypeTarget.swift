import Foundation
import MalibuCore

@testable import MalibuSerialization
@testable import MalibuValidation

/// Media types, media ranges and charsets: a parsed type whose parameter values are tokens prints as text that
/// parses to the same type; parsing the same text twice (the parser keeps the last result) agrees; a charset name
/// maps to an encoding whose strict decoder never traps.
enum MediaTypeTarget {
  static func run(_ bytes: UnsafeRawBufferPointer) {
    var input = FuzzInput(bytes)
    let allowEmpty = input.bool()
    let text = input.shortString()
    let other = input.shortString()
    let body = input.rest()

    let parsed = try? MediaType(parsing: text)
    let parsedAgain = try? MediaType(parsing: text)
    precondition(parsed == parsedAgain, "parsing the same text twice gave different results")
    if let parsed {
      check(roundTrip: parsed)
      decode(body, charset: parsed.charset)
    }
    if let list = try? MediaType.parseList(text) {
      for type in list { check(roundTrip: type) }
    }
    let ranges = try? MediaRanges(parsing: [text], allowEmpty: allowEmpty, origin: "the fuzzed ranges")
    if let ranges, let type = try? MediaType(parsing: other) {
      switch ranges.verdict(for: type) {
      case .accepted, .unmatched: break
      case .excluded(let range):
        precondition(range.quality == 0 && range.matches(type), "excluded by a range that does not exclude it")
      }
      _ = ranges.acceptsAnyType
    }
    decode(body, charset: other)
    _ = try? EUCJPTranscoder.shiftJIS(fromEUCJP: body)
  }

  private static func check(roundTrip type: MediaType) {
    let isToken = { (text: String) in
      !text.isEmpty && text.unicodeScalars.allSatisfy { "!#$%&'*+-.^_`|~".unicodeScalars.contains($0) || isAlnum($0) }
    }
    guard type.parameters.values.allSatisfy(isToken) else { return }
    guard let again = try? MediaType(parsing: type.description) else {
      fatalError("'\(type.description)' does not parse")
    }
    precondition(again == type, "'\(type.description)' parses to \(again)")
  }

  private static func isAlnum(_ scalar: Unicode.Scalar) -> Bool {
    ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
  }

  private static func decode(_ body: Data, charset: String?) {
    guard let charset, let encoding = String.Encoding(ianaCharsetName: charset) else { return }
    let text = try? TextDecoding.decode(body, as: encoding)
    if encoding == .utf8, let text {
      var expected = Data(body)
      if expected.starts(with: [0xEF, 0xBB, 0xBF]) { expected.removeFirst(3) }
      precondition(Data(text.utf8) == expected, "strict UTF-8 decoding changed the bytes")
    }
  }
}
