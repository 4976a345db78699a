import HTTPTypes

/// The `Cache-Control` directives the HTTP cache acts on.
struct CacheControl {
  var noStore = false
  var noCache = false
  var maxAge: Int?

  init(_ fields: HTTPFields) {
    for value in fields[values: .cacheControl] {
      for directive in value.split(separator: ",") {
        let parts = directive.split(separator: "=", maxSplits: 1)
        let name = parts.first.map { $0.trimmingSpaces.lowercased() } ?? ""
        switch name {
        case "no-store": noStore = true
        case "no-cache": noCache = true
        case "max-age":
          let argument = parts.count == 2 ? parts[1].trimmingSpaces.trimmingQuotes : ""
          // A malformed max-age counts as 0 (stale), the safe reading.
          let seconds = Int(argument).map { max(0, $0) } ?? 0
          maxAge = min(maxAge ?? seconds, seconds)
        default: continue
        }
      }
    }
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
