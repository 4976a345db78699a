import Foundation
import MalibuCore

/// A strict RFC 8259 parser into `Sendable` Swift values: objects `[String: any Sendable]`, arrays
/// `[any Sendable]`, integer literals that fit `Int` as `Int`, every other number as `Double`, `Bool`, `String`
/// and ``JSONNull``.
///
/// It keeps its own stack of open containers instead of recursing, so no input can exhaust the call stack, and
/// stops with a ``JSONSyntaxError`` at the first problem. A UTF-8 byte-order mark at the very start is skipped;
/// the last of duplicate keys wins.
struct JSONParser {
  /// How many arrays and objects may be open at once.
  static let maximumDepth = 512

  let bytes: UnsafeBufferPointer<UInt8>
  var index = 0

  private init(_ bytes: UnsafeBufferPointer<UInt8>) {
    self.bytes = bytes
  }

  /// Parses a whole JSON text.
  static func parse(_ data: Data) throws(JSONSyntaxError) -> any Sendable {
    let result: Result<any Sendable, JSONSyntaxError> = data.withUnsafeBytes { raw in
      var parser = JSONParser(raw.bindMemory(to: UInt8.self))
      return Result { () throws(JSONSyntaxError) in try parser.document() }
    }
    return try result.get()
  }

  private enum Container {
    case array
    case object
  }

  private mutating func document() throws(JSONSyntaxError) -> any Sendable {
    if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
    let value = try value()
    skipWhitespace()
    guard index == bytes.count else { throw failure("unexpected \(describeByte()) after the JSON value") }
    return value
  }

  // The open containers live in parallel stacks so that appending to the innermost one mutates it in place.
  private mutating func value() throws(JSONSyntaxError) -> any Sendable {
    var containers: [Container] = []
    var arrays: [[any Sendable]] = []
    var objects: [[String: any Sendable]] = []
    var keys: [String] = []
    parsing: while true {
      skipWhitespace()
      guard index < bytes.count else { throw failure("unexpected end of input, expected a value") }
      var value: any Sendable
      switch bytes[index] {
      case UInt8(ascii: "["):
        try checkDepth(containers.count)
        index += 1
        skipWhitespace()
        guard peek(UInt8(ascii: "]")) else {
          containers.append(.array)
          arrays.append([])
          continue parsing
        }
        index += 1
        value = [any Sendable]()
      case UInt8(ascii: "{"):
        try checkDepth(containers.count)
        index += 1
        skipWhitespace()
        guard peek(UInt8(ascii: "}")) else {
          keys.append(try key())
          containers.append(.object)
          objects.append([:])
          continue parsing
        }
        index += 1
        value = [String: any Sendable]()
      case UInt8(ascii: "\""): value = try string()
      case UInt8(ascii: "t"): value = try literal("true", true)
      case UInt8(ascii: "f"): value = try literal("false", false)
      case UInt8(ascii: "n"): value = try literal("null", JSONNull())
      case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): value = try number()
      default: throw failure("unexpected \(describeByte()), expected a value")
      }
      // A value is complete: add it to the innermost container, closing containers as they end.
      while let container = containers.last {
        skipWhitespace()
        switch container {
        case .array:
          arrays[arrays.count - 1].append(value)
          if try separator(closing: "]") { continue parsing }
          containers.removeLast()
          value = arrays.removeLast()
        case .object:
          objects[objects.count - 1][keys.removeLast()] = value
          if try separator(closing: "}") {
            keys.append(try key())
            continue parsing
          }
          containers.removeLast()
          value = objects.removeLast()
        }
      }
      return value
    }
  }

  /// After a member: `true` for `,` (another member follows), `false` for the closing bracket, an error otherwise.
  private mutating func separator(closing: Unicode.Scalar) throws(JSONSyntaxError) -> Bool {
    let close = UInt8(ascii: closing)
    if peek(close) {
      index += 1
      return false
    }
    guard peek(UInt8(ascii: ",")) else {
      throw failure("unexpected \(describeByte()), expected ',' or '\(closing)'")
    }
    index += 1
    skipWhitespace()
    if peek(close) { throw failure("a trailing comma before '\(closing)'") }
    return true
  }

  /// A member name and its colon.
  private mutating func key() throws(JSONSyntaxError) -> String {
    skipWhitespace()
    guard peek(UInt8(ascii: "\"")) else {
      throw failure("unexpected \(describeByte()), expected a string key")
    }
    let key = try string()
    skipWhitespace()
    guard peek(UInt8(ascii: ":")) else { throw failure("unexpected \(describeByte()), expected ':' after a key") }
    index += 1
    return key
  }

  private func checkDepth(_ depth: Int) throws(JSONSyntaxError) {
    guard depth < Self.maximumDepth else {
      throw failure("arrays and objects nested deeper than \(Self.maximumDepth) levels")
    }
  }

  private mutating func literal(_ word: String, _ value: any Sendable) throws(JSONSyntaxError) -> any Sendable {
    for expected in word.utf8 {
      guard index < bytes.count, bytes[index] == expected else {
        throw failure("unexpected \(describeByte()) in a literal, expected '\(word)'")
      }
      index += 1
    }
    return value
  }

  private mutating func skipWhitespace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x09, 0x0A, 0x0D: index += 1
      default: return
      }
    }
  }

  func peek(_ byte: UInt8) -> Bool {
    index < bytes.count && bytes[index] == byte
  }

  func failure(_ reason: String, at offset: Int? = nil) -> JSONSyntaxError {
    JSONSyntaxError(offset: offset ?? index, reason: reason)
  }

  /// The byte at the current index, for messages: `'x'` when printable ASCII, `byte 0xNN` otherwise.
  func describeByte() -> String {
    guard index < bytes.count else { return "end of input" }
    let byte = bytes[index]
    if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
    return "byte 0x\(String(byte, radix: 16, uppercase: true))"
  }
}
