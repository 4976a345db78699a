import HTTPTypes

/// The `Cache-Control` directives (RFC 9111 §5.2) the HTTP cache acts on, of a request or a response.
///
/// A malformed or repeated `max-age` takes the smallest value, and a malformed one counts as `0`: the reading that
/// keeps a response stale rather than serving it too long. `s-maxage` and `proxy-revalidate` are parsed and ignored,
/// since they speak to shared caches only. A qualified `no-cache="field"` counts as plain `no-cache` (RFC 9111
/// §5.2.2.4 allows it), and `private="field"` as plain `private`.
struct CacheControl {
  var noStore = false
  var noCache = false
  var maxAge: Int?
  /// `s-maxage`: kept only so that tests can see it is read and then ignored.
  var sharedMaxAge: Int?
  var isPrivate = false
  var isPublic = false
  var mustRevalidate = false

  /// The directives of `fields`. For a request, `Pragma: no-cache` counts as `no-cache` when there is no
  /// `Cache-Control` (RFC 9111 §5.4).
  init(_ fields: HTTPFields, isRequest: Bool = false) {
    let values = fields[values: .cacheControl]
    for value in values {
      for directive in value.split(separator: ",") {
        let parts = directive.split(separator: "=", maxSplits: 1)
        let name = parts.first.map { $0.trimmingSpaces.lowercased() } ?? ""
        let argument = parts.count == 2 ? parts[1].trimmingSpaces.trimmingQuotes : nil
        switch name {
        case "no-store": noStore = true
        case "no-cache": noCache = true
        case "private": isPrivate = true
        case "public": isPublic = true
        case "must-revalidate": mustRevalidate = true
        case "max-age":
          let seconds = Self.deltaSeconds(argument)
          maxAge = min(maxAge ?? seconds, seconds)
        case "s-maxage":
          let seconds = Self.deltaSeconds(argument)
          sharedMaxAge = min(sharedMaxAge ?? seconds, seconds)
        default: continue
        }
      }
    }
    if isRequest, values.isEmpty {
      for value in fields[values: HTTPField.Name("Pragma")!] {
        if value.split(separator: ",").contains(where: { $0.trimmingSpaces.lowercased() == "no-cache" }) {
          noCache = true
        }
      }
    }
  }

  /// A `delta-seconds` value (RFC 9111 §1.2.2): digits only; one too large for the arithmetic counts as 2^31; a
  /// malformed one as `malformed`.
  static func deltaSeconds(_ text: String?, malformed: Int = 0) -> Int {
    guard let text, !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return malformed }
    return Int(text).map { min($0, 1 << 31) } ?? 1 << 31
  }
}

extension Substring {
  fileprivate var trimmingSpaces: Substring {
    var text = self
    while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
    while let last = text.last, last == " " || last == "\t" { text.removeLast() }
    return text
  }

  fileprivate var trimmingQuotes: String {
    var text = self
    if text.count >= 2, text.first == "\"", text.last == "\"" {
      text.removeFirst()
      text.removeLast()
    }
    return String(text)
  }
}
