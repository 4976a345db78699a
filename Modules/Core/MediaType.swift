/// A parsed media type such as `application/json; charset=utf-8`, as found in `Content-Type` and `Accept`.
///
/// Type, subtype and parameter names are compared case-insensitively (they are stored lower-cased); parameter
/// values keep their case, with quotes removed.
///
/// ```swift
/// let type = try MediaType(parsing: "Application/JSON; charset=\"UTF-8\"")
/// type.type        // "application"
/// type.subtype     // "json"
/// type.parameters  // ["charset": "UTF-8"]
/// ```
public struct MediaType: Hashable, Sendable, CustomStringConvertible {
  /// The top-level type, lower-cased (`application`), or `*`.
  public var type: String
  /// The subtype, lower-cased (`json`, `vnd.api+json`), or `*`.
  public var subtype: String
  /// Parameters by lower-cased name (`charset`, `boundary`, `q`).
  public var parameters: [String: String]

  /// Creates a media type from its parts.
  /// - Parameters:
  ///   - type: The top-level type.
  ///   - subtype: The subtype.
  ///   - parameters: The parameters.
  public init(type: String, subtype: String, parameters: [String: String] = [:]) {
    self.init(
      lowercasedType: type.lowercased(),
      subtype: subtype.lowercased(),
      parameters: Dictionary(parameters.map { ($0.key.lowercased(), $0.value) }) { first, _ in first }
    )
  }

  /// Creates a media type from parts that are lower-cased already (the scanner's).
  fileprivate init(lowercasedType type: String, subtype: String, parameters: [String: String]) {
    self.type = type
    self.subtype = subtype
    self.parameters = parameters
  }

  /// Parses `type/subtype` followed by any `; name=value` parameters (values may be quoted strings).
  /// - Parameter text: A single media type, as in a `Content-Type` header.
  /// - Throws: ``NetworkError`` with code ``NetworkError/Code/invalidContentType`` when the text is not a media
  ///   type.
  public init(parsing text: String) throws(NetworkError) {
    self = try MediaTypeScanner.scan(text) { scanner throws(NetworkError) in
      let type = try scanner.mediaType()
      scanner.skipSpaces()
      guard scanner.isAtEnd else { throw scanner.failure("unexpected text after the media type") }
      return type
    }
  }

  /// Parses a comma-separated list, as in an `Accept` header.
  /// - Parameter text: The header value.
  /// - Returns: The media types in the order given.
  /// - Throws: ``NetworkError`` with code ``NetworkError/Code/invalidContentType`` when an element is not a media
  ///   type.
  public static func parseList(_ text: String) throws(NetworkError) -> [MediaType] {
    var result: [MediaType] = []
    try parseList(text, appendingTo: &result)
    return result
  }

  /// ``parseList(_:)`` appending to `list`, so that several header values fill one array.
  /// - Parameters:
  ///   - text: The header value.
  ///   - list: Where the media types are appended, in the order given; unchanged when the text is invalid.
  /// - Throws: Like ``parseList(_:)``.
  package static func parseList(_ text: String, appendingTo list: inout [MediaType]) throws(NetworkError) {
    let count = list.count
    do {
      try MediaTypeScanner.scan(text) { scanner throws(NetworkError) in
        while true {
          scanner.skipSpaces()
          if scanner.isAtEnd { break }
          if scanner.take(",") { continue }
          list.append(try scanner.mediaType())
          scanner.skipSpaces()
          if !scanner.isAtEnd && !scanner.take(",") { throw scanner.failure("expected ',' between media types") }
        }
      }
    } catch {
      list.removeSubrange(count...)
      throw error
    }
  }

  /// The `charset` parameter, if any.
  public var charset: String? { parameters["charset"] }

  /// The `q` parameter of an `Accept` element as a number from 0 to 1; 1 when absent. Parsing rejects a `q` that
  /// is not a valid q-value, so a typo never turns an exclusion (`q=0`) into an acceptance.
  public var quality: Double {
    guard let text = parameters["q"], let value = Double(text) else { return 1 }
    return min(max(value, 0), 1)
  }

  /// `type/subtype`, without parameters.
  public var essence: String { "\(type)/\(subtype)" }

  /// Whether this type, read as a pattern that may use `*` for the type or subtype, matches a concrete type.
  /// Parameters are not compared.
  /// - Parameter other: The concrete media type.
  /// - Returns: `true` when type and subtype are equal or wildcards.
  public func matches(_ other: MediaType) -> Bool {
    (type == "*" || type == other.type) && (subtype == "*" || subtype == other.subtype)
  }

  /// `type/subtype` followed by the parameters, sorted by name.
  public var description: String {
    parameters.keys.sorted().reduce(essence) { text, name in text + "; \(name)=\(parameters[name]!)" }
  }
}

/// A small scanner over the grammar of RFC 9110 §8.3.1 media types.
private struct MediaTypeScanner {
  private let text: String
  /// The text's UTF-8 bytes, lent for the scan: every character of the grammar is ASCII, and a quoted string's other
  /// bytes are copied as they are.
  private let bytes: UnsafeBufferPointer<UInt8>
  private var index = 0

  /// Runs `body` with a scanner over the bytes of `text`, which a native string lends without a copy.
  static func scan<Result>(
    _ text: String,
    _ body: (inout MediaTypeScanner) throws(NetworkError) -> Result
  ) throws(NetworkError) -> Result {
    var utf8 = text
    let outcome = utf8.withUTF8 { bytes in
      var scanner = MediaTypeScanner(text: text, bytes: bytes)
      return Swift.Result { () throws(NetworkError) in try body(&scanner) }
    }
    return try outcome.get()
  }

  var isAtEnd: Bool { index >= bytes.count }

  mutating func skipSpaces() {
    while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") { index += 1 }
  }

  mutating func take(_ character: Unicode.Scalar) -> Bool {
    guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
    index += 1
    return true
  }

  func failure(_ reason: String) -> NetworkError {
    NetworkError(code: .invalidContentType, message: "'\(text)' is not a valid media type: \(reason)")
  }

  mutating func mediaType() throws(NetworkError) -> MediaType {
    skipSpaces()
    let type = lowercasedToken()
    guard !type.isEmpty else { throw failure("missing type") }
    guard take("/") else { throw failure("missing '/' after the type") }
    let subtype = lowercasedToken()
    guard !subtype.isEmpty else { throw failure("missing subtype") }
    var parameters: [String: String] = [:]
    while true {
      skipSpaces()
      guard take(";") else { break }
      skipSpaces()
      if isAtEnd || bytes[index] == UInt8(ascii: ",") { break }
      let name = lowercasedToken()
      guard !name.isEmpty else { throw failure("missing parameter name") }
      guard take("=") else { throw failure("missing '=' after parameter '\(name)'") }
      let value = try parameterValue()
      if name == "q" && !Self.isQValue(value) {
        throw failure("'\(value)' is not a q-value (0 to 1, at most 3 decimals)")
      }
      if parameters[name] == nil { parameters[name] = value }
    }
    return MediaType(lowercasedType: type, subtype: subtype, parameters: parameters)
  }

  /// A token, lower-cased as it is read (tokens are ASCII).
  private mutating func lowercasedToken() -> String {
    let token = tokenBytes()
    return String(unsafeUninitializedCapacity: token.count) { buffer in
      for (offset, byte) in token.enumerated() {
        buffer[offset] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
      }
      return token.count
    }
  }

  private mutating func token() -> String {
    String(decoding: tokenBytes(), as: UTF8.self)
  }

  /// The bytes of the token that starts here, passed over.
  private mutating func tokenBytes() -> Slice<UnsafeBufferPointer<UInt8>> {
    let start = index
    while index < bytes.count, Self.isTokenCharacter(bytes[index]) { index += 1 }
    return bytes[start..<index]
  }

  private mutating func parameterValue() throws(NetworkError) -> String {
    guard take("\"") else {
      let value = token()
      guard !value.isEmpty else { throw failure("missing parameter value") }
      return value
    }
    // A backslash escapes the byte after it; the bytes of a non-ASCII character are never `"` or `\`.
    var value: [UInt8] = []
    while index < bytes.count {
      let byte = bytes[index]
      index += 1
      if byte == UInt8(ascii: "\"") { return String(decoding: value, as: UTF8.self) }
      if byte == UInt8(ascii: "\\") {
        guard index < bytes.count else { break }
        value.append(bytes[index])
        index += 1
      } else {
        value.append(byte)
      }
    }
    throw failure("unterminated quoted string")
  }

  /// RFC 9110 §12.4.2: `0` or `1`, optionally followed by `.` and up to three digits (none but zeros after a 1).
  private static func isQValue(_ text: String) -> Bool {
    let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
    guard let whole = parts.first, whole == "0" || whole == "1" else { return false }
    guard parts.count == 2 else { return true }
    let fraction = parts[1]
    guard fraction.count <= 3, fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else { return false }
    return whole == "0" || fraction.allSatisfy { $0 == "0" }
  }

  private static func isTokenCharacter(_ byte: UInt8) -> Bool {
    guard byte > 0x20, byte < 0x7F else { return false }
    switch Unicode.Scalar(byte) {
    case "(", ")", "<", ">", "@", ",", ";", ":", "\\", "\"", "/", "[", "]", "?", "=", "{", "}": return false
    default: return true
    }
  }
}
