import Foundation
import MalibuCore

@testable import MalibuSerialization

/// The JSON parser: a failure points inside the input; a value written back as JSON parses to the same value.
enum JSONTarget {
  static func run(_ bytes: UnsafeRawBufferPointer) {
    let data = Data(bytes)
    let value: any Sendable
    do {
      value = try JSONParser.parse(data)
    } catch {
      precondition((0...data.count).contains(error.offset), "error offset \(error.offset) outside the input")
      precondition(!error.reason.isEmpty, "an error without a reason")
      return
    }
    let written = write(value)
    let again: any Sendable
    do {
      again = try JSONParser.parse(Data(written.utf8))
    } catch {
      fatalError("the parser's own value, written back, does not parse: \(error)")
    }
    precondition(write(again) == written, "a value changed when written and parsed again")
  }

  /// Canonical JSON: sorted keys, every string escaped the same way, numbers as Swift prints them.
  static func write(_ value: any Sendable) -> String {
    switch value {
    case let object as [String: any Sendable]:
      let members = object.keys.sorted().map { "\(quoted($0)):\(write(object[$0]!))" }
      return "{" + members.joined(separator: ",") + "}"
    case let array as [any Sendable]:
      return "[" + array.map(write).joined(separator: ",") + "]"
    case let string as String: return quoted(string)
    case let bool as Bool: return bool ? "true" : "false"
    case let integer as Int: return String(integer)
    case let double as Double:
      precondition(double.isFinite, "a number that is not finite")
      return double.description
    case is JSONNull: return "null"
    default: fatalError("unexpected value \(type(of: value))")
    }
  }

  private static func quoted(_ string: String) -> String {
    var result = "\""
    for scalar in string.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\u{0}"..."\u{1F}": result += String(format: "\\u%04X", scalar.value)
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result + "\""
  }
}
