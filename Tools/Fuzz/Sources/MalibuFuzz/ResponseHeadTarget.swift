import Foundation
import HTTPTypes

@testable import MalibuCurl

/// curl's response-head parser, fed line by line as libcurl's header callback does: a complete head has a status
/// of 100 to 999 that is not interim, and a malformed status line says why.
enum ResponseHeadTarget {
  static func run(_ bytes: UnsafeRawBufferPointer) {
    _ = parse(bytes)
  }

  /// What each line completed, as text to compare.
  private static func parse(_ bytes: UnsafeRawBufferPointer) -> [String] {
    var parser = ResponseHeadParser()
    var events: [String] = []
    var start = 0
    while start < bytes.count {
      var end = start
      while end < bytes.count && bytes[end] != 0x0A { end += 1 }
      if end < bytes.count { end += 1 }  // the line with its LF, as libcurl hands it over
      switch parser.feed(UnsafeRawBufferPointer(rebasing: bytes[start..<end])) {
      case .needMore: break
      case .malformed(let reason):
        precondition(!reason.isEmpty, "malformed without a reason")
        events.append("malformed \(reason)")
      case .complete(let head):
        let code = head.status.code
        precondition((100...999).contains(code), "status \(code) out of range")
        precondition(code >= 200 || code == 101, "an interim head \(code) reported as final")
        let fields = head.headerFields.map { "\($0.name.rawName): \($0.value)" }
        events.append("\(code) \(head.status.reasonPhrase)\n" + fields.joined(separator: "\n"))
      }
      start = end
    }
    return events
  }
}
