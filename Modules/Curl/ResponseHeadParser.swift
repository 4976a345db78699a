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
  /// The fields of the head so far, each appended as its line arrives.
  private var fields = HTTPFields()

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
      let head = HTTPResponse(status: .init(code: status, reasonPhrase: reason), headerFields: fields)
      reset()
      return .complete(head)
    }
    if bytes.count >= 5 && bytes[0] == 0x48 && bytes[1] == 0x54 && bytes[2] == 0x54 && bytes[3] == 0x50
      && bytes[4] == 0x2F
    {  // "HTTP/"
      reset()
      return parseStatusLine(bytes)
    }
    guard status != nil else { return .needMore }
    if bytes[0] == 0x20 || bytes[0] == 0x09 {
      Self.fold(bytes, into: &fields)
    } else {
      Self.append(bytes, to: &fields)
    }
    return .needMore
  }

  /// Parses a field line and appends its field, unless its name is not a valid token. The value is legalised as
  /// `HTTPField(name:value:)` does for bytes, which keeps bytes that are not UTF-8.
  private static func append(_ bytes: UnsafeRawBufferPointer, to fields: inout HTTPFields) {
    guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return }
    var start = colon + 1
    var stop = bytes.count
    while start < stop && (bytes[start] == 0x20 || bytes[start] == 0x09) { start += 1 }
    while stop > start && (bytes[stop - 1] == 0x20 || bytes[stop - 1] == 0x09) { stop -= 1 }
    let nameBytes = UnsafeRawBufferPointer(rebasing: bytes[0..<colon])
    let known = KnownFieldName.name(spelled: nameBytes)
    guard let name = known ?? HTTPField.Name(String(decoding: nameBytes, as: UTF8.self)) else { return }
    if fields.isEmpty { fields.reserveCapacity(16) }  // room for a typical head, not regrown as it fills
    let value = UnsafeRawBufferPointer(rebasing: bytes[start..<stop])
    if value.allSatisfy({ $0 < 0x80 }) {
      // The common case, made a `String` directly: the generic path for bytes costs several times as much.
      fields.append(HTTPField(name: name, value: String(decoding: value, as: UTF8.self)))
    } else {
      fields.append(HTTPField(name: name, value: value.assumingMemoryBound(to: UInt8.self)))
    }
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
    fields = HTTPFields()
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

/// The names most response heads carry, each as HTTPTypes makes it from its usual spelling and from its lower-case
/// one (HTTP/2's): a field spelled exactly so takes the name as it is, without checking and lower-casing the name
/// again. Any other spelling is made by `HTTPField.Name(_:)`, so every field keeps its name as the server wrote it.
enum KnownFieldName {
  /// Up to 24 bytes of a name, zero after its end: a spelling is compared in three words.
  private typealias Words = (UInt64, UInt64, UInt64)

  /// The known names by their length in bytes, each with its spelling as words.
  private static let byLength: [[(words: Words, name: HTTPField.Name)]] = {
    let usual: [HTTPField.Name] = [
      .acceptRanges, .age, .cacheControl, .connection, .contentEncoding, .contentLength, .contentType, .date, .eTag,
      .expires, .lastModified, .location, .server, .setCookie, .transferEncoding, .vary,
    ]
    // One bucket per length a spelling of `Words` can hold, 0 through 24 bytes.
    var table = [[(words: Words, name: HTTPField.Name)]](repeating: [], count: MemoryLayout<Words>.size + 1)
    for name in usual {
      for spelling in Set([name.rawName, name.canonicalName]) {
        let bytes = Array(spelling.utf8)
        table[bytes.count].append((bytes.withUnsafeBytes(words), HTTPField.Name(spelling)!))
      }
    }
    return table
  }()

  /// `bytes` (at most 24) as words.
  private static func words(_ bytes: UnsafeRawBufferPointer) -> Words {
    var words: Words = (0, 0, 0)
    withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: bytes) }
    return words
  }

  /// The known name spelled exactly as `bytes`, or `nil`.
  static func name(spelled bytes: UnsafeRawBufferPointer) -> HTTPField.Name? {
    let table = byLength
    guard bytes.count < table.count else { return nil }
    let candidates = table[bytes.count]
    guard !candidates.isEmpty else { return nil }
    let spelled = words(bytes)
    for entry in candidates where entry.words == spelled {
      return entry.name
    }
    return nil
  }
}
