/// A `Content-Range` field value of a `206` or `416` response (RFC 9110, 14.4): `bytes first-last/length`,
/// `bytes first-last/*` or `bytes */length`.
struct ContentRange: Equatable, Sendable {
  /// The first and last byte positions sent, or `nil` for the unsatisfied form (`bytes */length`).
  var range: ClosedRange<Int64>?
  /// The length of the whole representation, or `nil` when the server does not know it (`*`).
  var length: Int64?

  /// Parses a field value; `nil` when it is not one of the three forms or its numbers are inconsistent.
  init?(_ value: String) {
    let value = value.trimmingSpaces
    guard value.hasPrefix("bytes ") else { return nil }
    let spec = value.dropFirst("bytes ".count)
    let parts = spec.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2 else { return nil }
    if parts[1] == "*" {
      length = nil
    } else {
      guard let length = Self.number(parts[1]) else { return nil }
      self.length = length
    }
    if parts[0] == "*" {
      guard length != nil else { return nil }
      range = nil
      return
    }
    let bounds = parts[0].split(separator: "-", omittingEmptySubsequences: false)
    guard bounds.count == 2, let first = Self.number(bounds[0]), let last = Self.number(bounds[1]), first <= last
    else { return nil }
    if let length, last >= length { return nil }
    range = first...last
  }

  /// A non-negative decimal number of at most 18 digits (no sign, no spaces).
  private static func number(_ text: Substring) -> Int64? {
    guard !text.isEmpty, text.count <= 18, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
    return Int64(text)
  }
}

extension String {
  /// The string without leading and trailing spaces and tabs.
  fileprivate var trimmingSpaces: Substring {
    let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
    guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else {
      return ""
    }
    return self[start...end]
  }
}
