import HTTPTypes

/// Builds the response head from the lines libcurl's header callback hands over, one complete line per call.
///
/// A head starts at a status line (`HTTP/1.1 200 OK`, `HTTP/2 200`) and ends at the empty line. Interim `1xx`
/// heads (`100 Continue`, `103 Early Hints`) are skipped, so the head reported is the final one. Field lines with a
/// name that is not a valid token are dropped; obsolete line folding is joined with a space.
struct ResponseHeadParser {
  /// What a line completed.
  enum Event {
    /// The head goes on.
    case needMore
    /// The final head is complete.
    case complete(HTTPResponse)
    /// The status line is not HTTP.
    case malformed(String)
  }

  private var status: Int?
  private var reason = ""
  /// The head's lines so far, status line first, each ended by LF (no line libcurl hands over holds one). Fields are
  /// parsed from them when the head is complete, and only when the head differs from the last one the cache saw.
  private var lines: [UInt8] = []
  private let cache: HeaderFieldCache?

  /// A parser for one head.
  /// - Parameter cache: Heads and fields of earlier responses to reuse (the engine's, shared by its transfers), if
  ///   any.
  init(cache: HeaderFieldCache? = nil) {
    self.cache = cache
  }

  /// Feeds one line, with or without its CRLF.
  mutating func feed(_ line: UnsafeRawBufferPointer) -> Event {
    var end = line.count
    while end > 0 && (line[end - 1] == 0x0A || line[end - 1] == 0x0D) { end -= 1 }
    let bytes = UnsafeRawBufferPointer(rebasing: line[0..<end])
    if bytes.isEmpty {
      guard let status else { return .needMore }
      if status >= 100 && status < 200 && status != 101 {
        reset()
        return .needMore
      }
      return .complete(complete(status: status))
    }
    if bytes.count >= 5 && bytes[0] == 0x48 && bytes[1] == 0x54 && bytes[2] == 0x54 && bytes[3] == 0x50
      && bytes[4] == 0x2F
    {  // "HTTP/"
      reset()
      keep(bytes)
      return parseStatusLine(bytes)
    }
    guard status != nil else { return .needMore }
    keep(bytes)
    return .needMore
  }

  private mutating func keep(_ line: UnsafeRawBufferPointer) {
    if lines.capacity == 0 { lines.reserveCapacity(512) }
    lines.append(contentsOf: line)
    lines.append(0x0A)
  }

  /// The final head: the cache's last one when this head repeats it byte for byte (most responses of a server do,
  /// but for `Date` once a second), else parsed from the lines.
  private mutating func complete(status: Int) -> HTTPResponse {
    if let cache, let head = cache.head(repeating: lines) {
      reset()
      return head
    }
    var fields = HTTPFields()
    fields.reserveCapacity(16)  // HTTPFields grows one field at a time otherwise.
    lines.withUnsafeBytes { all in
      var start = all.firstIndex(of: 0x0A).map { $0 + 1 } ?? all.count  // past the status line
      while start < all.count {
        var stop = start
        while all[stop] != 0x0A { stop += 1 }
        let line = UnsafeRawBufferPointer(rebasing: all[start..<stop])
        if line[0] == 0x20 || line[0] == 0x09 {
          Self.fold(line, into: &fields)
        } else {
          append(line, to: &fields)
        }
        start = stop + 1
      }
    }
    let head = HTTPResponse(status: .init(code: status, reasonPhrase: reason), headerFields: fields)
    if let cache {
      cache.remember(head, lines: lines)
      lines = []  // handed over, not shared: the cache keeps it as it is
    }
    reset()
    return head
  }

  /// Parses a field line and appends its field, unless its name is not a valid token.
  private func append(_ bytes: UnsafeRawBufferPointer, to fields: inout HTTPFields) {
    guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return }
    var start = colon + 1
    var stop = bytes.count
    while start < stop && (bytes[start] == 0x20 || bytes[start] == 0x09) { start += 1 }
    while stop > start && (bytes[stop - 1] == 0x20 || bytes[stop - 1] == 0x09) { stop -= 1 }
    let nameBytes = UnsafeRawBufferPointer(rebasing: bytes[0..<colon])
    let valueBytes = UnsafeRawBufferPointer(rebasing: bytes[start..<stop])
    var entry: Int?
    if let cache {
      switch cache.append(name: nameBytes, value: valueBytes, to: &fields) {
      case .appended: return
      case .missing(let free): entry = free
      case .uncacheable: break
      }
    }
    guard let name = Self.name(nameBytes) else { return }
    let field = Self.field(name, valueBytes)
    if let cache, let entry { cache.remember(field, in: entry, name: nameBytes, value: valueBytes) }
    fields.append(field)
  }

  /// The field name spelled by `bytes`, or `nil` when it is not a valid token.
  private static func name(_ bytes: UnsafeRawBufferPointer) -> HTTPField.Name? {
    KnownFieldNames.match(bytes) ?? HTTPField.Name(String(decoding: bytes, as: UTF8.self))
  }

  /// The field, with the value legalised exactly as `HTTPField(name:value:)` does for bytes. A value of visible
  /// ASCII, spaces and tabs (nearly every value) is legal and valid UTF-8 as it is, so it becomes a string directly;
  /// anything else takes the general path, which keeps bytes that are not UTF-8.
  private static func field(_ name: HTTPField.Name, _ value: UnsafeRawBufferPointer) -> HTTPField {
    for byte in value where (byte < 0x20 && byte != 0x09) || byte >= 0x7F {
      return HTTPField(name: name, value: value)
    }
    return HTTPField(name: name, value: String(decoding: value, as: UTF8.self))
  }

  private mutating func parseStatusLine(_ bytes: UnsafeRawBufferPointer) -> Event {
    guard let space = bytes.firstIndex(of: 0x20), space + 4 <= bytes.count else {
      return .malformed("a malformed status line")
    }
    var code = 0
    for byte in bytes[(space + 1)..<(space + 4)] {
      guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else {
        return .malformed("a malformed status code")
      }
      code = code * 10 + Int(byte - UInt8(ascii: "0"))
    }
    guard code >= 100, space + 4 == bytes.count || bytes[space + 4] == 0x20 else {
      return .malformed("a malformed status code")
    }
    status = code
    if space + 5 < bytes.count {
      var start = space + 5
      var stop = bytes.count
      while start < stop && (bytes[start] == 0x20 || bytes[start] == 0x09) { start += 1 }
      while stop > start && (bytes[stop - 1] == 0x20 || bytes[stop - 1] == 0x09) { stop -= 1 }
      reason = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<stop]), as: UTF8.self)
    }
    return .needMore
  }

  private static func fold(_ bytes: UnsafeRawBufferPointer, into fields: inout HTTPFields) {
    guard !fields.isEmpty else { return }
    let last = fields[fields.count - 1]
    let continuation = String(decoding: bytes, as: UTF8.self).trimmingSpaces()
    fields[fields.count - 1] = HTTPField(name: last.name, value: last.value + " " + continuation)
  }

  private mutating func reset() {
    status = nil
    reason = ""
    lines.removeAll(keepingCapacity: true)
  }
}

extension String {
  fileprivate func trimmingSpaces() -> String {
    let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
    guard let first = firstIndex(where: { !isBlank($0) }), let last = lastIndex(where: { !isBlank($0) }) else {
      return ""
    }
    return String(self[first...last])
  }
}
