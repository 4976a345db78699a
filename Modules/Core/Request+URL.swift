public import Foundation

extension Request {
  /// The URL this request is sent to.
  ///
  /// - A resource with a scheme (`"https://example.com/boards"`, or a `URL` with one) is used as is and the base URL
  ///   is ignored.
  /// - Otherwise the resource is joined to the base URL with exactly one `/` between them, whatever slashes either
  ///   side brings; an empty resource gives the base URL itself.
  /// - A query in the base URL, then one in the resource, then the parameters (when ``contentType`` is
  ///   ``ContentType/query``) are joined with `&`, in that order; a fragment in the resource is kept at the end.
  ///
  /// ```swift
  /// try Request.get("boards?page=2", parameters: ["type": 1])
  ///   .buildURL(baseUrl: "http://127.0.0.1:8080/api")   // http://127.0.0.1:8080/api/boards?page=2&type=1
  /// ```
  /// - Parameters:
  ///   - baseUrl: The base URL, or `nil` for an absolute resource.
  ///   - queryEncoding: How query parameters are written; the defaults of ``FormURLEncoding``.
  /// - Returns: The absolute URL.
  /// - Throws: ``NetworkError`` with code ``NetworkError/Code/invalidURL`` when the base URL or the resource does
  ///   not form a valid absolute URL (or a relative resource has no base URL), and
  ///   ``NetworkError/Code/unsupportedParameter`` when a query parameter cannot be encoded.
  public func buildURL(
    baseUrl: (any URLStringConvertible)?,
    queryEncoding: FormURLEncoding = FormURLEncoding()
  ) throws(NetworkError) -> URL {
    let string = try urlString(baseUrl: baseUrl, queryEncoding: queryEncoding)
    guard let url = Self.validate(string) else { throw Self.invalidURL(string) }
    return url
  }

  /// The scheme, authority and request path of ``buildURL(baseUrl:queryEncoding:)``'s URL, as a transport request
  /// carries them. The same rules and errors as `buildURL`; a plain URL (the common case) is split by one scan of
  /// its bytes, and anything unusual goes through Foundation's parser exactly as `buildURL` does.
  /// - Parameters:
  ///   - baseUrl: The base URL, or `nil` for an absolute resource.
  ///   - queryEncoding: How query parameters are written.
  /// - Returns: The request target.
  /// - Throws: ``NetworkError``, as ``buildURL(baseUrl:queryEncoding:)``.
  package func buildTarget(
    baseUrl: (any URLStringConvertible)?,
    queryEncoding: FormURLEncoding = FormURLEncoding()
  ) throws(NetworkError) -> RequestTarget {
    let string = try urlString(baseUrl: baseUrl, queryEncoding: queryEncoding)
    if let target = RequestTarget(plain: string) { return target }
    guard let url = Self.validate(string) else { throw Self.invalidURL(string) }
    return RequestTarget(url: url)
  }

  /// The joined URL string, before Foundation checks it.
  private func urlString(
    baseUrl: (any URLStringConvertible)?,
    queryEncoding: FormURLEncoding
  ) throws(NetworkError) -> String {
    let resourceString = resource.urlString
    let addsQuery = contentType.encodesInURL && !parameters.isEmpty
    var parts: URLParts
    if URLParts.hasScheme(resourceString) {
      if !addsQuery { return resourceString }  // splitting and joining it again gives the same string
      parts = URLParts(resourceString)
    } else {
      guard let base = baseUrl?.urlString, !base.isEmpty else {
        throw NetworkError(
          code: .invalidURL,
          message: "the resource '\(resourceString)' is relative and there is no base URL to join it to: "
            + "pass a base URL (an endpoint type declares `static let baseUrl: (any URLStringConvertible)? = "
            + "\"https://…\"`), or make the resource an absolute URL"
        )
      }
      guard Self.isValidBase(base) else {
        throw NetworkError(code: .invalidURL, message: "the base URL '\(base)' is not a valid absolute URL")
      }
      if !addsQuery, let joined = URLParts.joinedWithoutQueries(base, resourceString) { return joined }
      parts = URLParts(base).joining(URLParts(resourceString))
    }
    if addsQuery {
      // Foundation escapes a whole query again, `%` included, when any character in it is invalid: escape what
      // the caller wrote first, so that the parameters' own escapes reach the server once.
      parts.query = parts.query.map(URLParts.escapingInvalidQueryCharacters)
      parts.appendQuery(try queryEncoding.queryString(from: parameters))
    }
    return parts.string
  }

  private static func invalidURL(_ string: String) -> NetworkError {
    NetworkError(code: .invalidURL, message: "'\(string)' is not a valid absolute URL")
  }

  private static func isValidBase(_ base: String) -> Bool {
    if lastValidBase.withLock({ $0 == base }) { return true }
    guard URLParts.hasScheme(base), validate(base) != nil else { return false }
    lastValidBase.withLock { $0 = base }
    return true
  }

  private static func validate(_ string: String) -> URL? {
    guard let url = URL(string: string), let scheme = url.scheme, !scheme.isEmpty else { return nil }
    let needsHost = ["http", "https", "ws", "wss"].contains(scheme.lowercased())
    if needsHost && (url.host ?? "").isEmpty { return nil }
    return url
  }
}

/// The base URL string most recently found valid by `Request.buildURL(baseUrl:queryEncoding:)`.
private let lastValidBase = Locked<String?>(nil)

/// A URL string split at its query and fragment, for joining without parsing what need not be parsed.
private struct URLParts {
  var path: String
  var query: String?
  var fragment: String?

  init(_ string: String) {
    // `#` and `?` are ASCII, so their UTF-8 positions are valid string indices.
    let bytes = string.utf8
    var end = bytes.endIndex
    if let hash = bytes.firstIndex(of: UInt8(ascii: "#")) {
      fragment = String(string[bytes.index(after: hash)...])
      end = hash
    }
    if let mark = bytes[..<end].firstIndex(of: UInt8(ascii: "?")) {
      query = String(string[bytes.index(after: mark)..<end])
      end = mark
    }
    path = String(string[..<end])
  }

  static func hasScheme(_ string: String) -> Bool {
    // The scheme characters are ASCII and `:` is not one of them, so scanning the UTF-8 bytes up to the first
    // non-scheme byte finds the first `://` whenever everything before it is a scheme.
    var string = string
    return string.withUTF8 { bytes in
      guard let first = bytes.first, first.isASCIILetter else { return false }
      var index = 1
      while index < bytes.count, bytes[index].isSchemeCharacter { index += 1 }
      return bytes.count - index >= 3 && bytes[index] == UInt8(ascii: ":") && bytes[index + 1] == UInt8(ascii: "/")
        && bytes[index + 2] == UInt8(ascii: "/")
    }
  }

  /// `URLParts(base).joining(URLParts(resource)).string` for the common case where neither string has a query or a
  /// fragment, in one pass over their bytes and one allocation; `nil` when either has a `?` or a `#`.
  static func joinedWithoutQueries(_ base: String, _ resource: String) -> String? {
    var base = base
    var resource = resource
    return base.withUTF8 { baseBytes in
      resource.withUTF8 { resourceBytes -> String? in
        let isDelimiter = { (byte: UInt8) in byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") }
        guard !baseBytes.contains(where: isDelimiter), !resourceBytes.contains(where: isDelimiter) else { return nil }
        let slash = UInt8(ascii: "/")
        var start = 0
        while start < resourceBytes.count, resourceBytes[start] == slash { start += 1 }
        if start == resourceBytes.count { return String(decoding: baseBytes, as: UTF8.self) }
        var end = baseBytes.count
        while end > 0, baseBytes[end - 1] == slash { end -= 1 }
        let tail = UnsafeBufferPointer(rebasing: resourceBytes[start...])
        return String(unsafeUninitializedCapacity: end + 1 + tail.count) { buffer in
          _ = buffer.initialize(from: baseBytes[..<end])
          buffer[end] = slash
          _ = UnsafeMutableBufferPointer(rebasing: buffer[(end + 1)...]).initialize(from: tail)
          return end + 1 + tail.count
        }
      }
    }
  }

  /// The base joined to a relative resource with exactly one slash between them.
  func joining(_ resource: URLParts) -> URLParts {
    var joined = self
    let slash = UInt8(ascii: "/")
    let resourceBytes = resource.path.utf8
    let resourceStart = resourceBytes.firstIndex { $0 != slash } ?? resourceBytes.endIndex
    if resourceStart != resourceBytes.endIndex {
      let baseBytes = path.utf8
      var baseEnd = baseBytes.endIndex
      while baseEnd != baseBytes.startIndex, baseBytes[baseBytes.index(before: baseEnd)] == slash {
        baseEnd = baseBytes.index(before: baseEnd)
      }
      joined.path = path[..<baseEnd] + "/" + resource.path[resourceStart...]
    }
    if let query = resource.query { joined.appendQuery(query) }
    joined.fragment = resource.fragment ?? fragment
    return joined
  }

  /// A query with every byte RFC 3986 does not allow there percent-escaped (UTF-8, upper-case hex), and `%` kept
  /// only where it starts an escape: what Foundation makes of a query, without escaping valid escapes again.
  static func escapingInvalidQueryCharacters(_ query: String) -> String {
    let bytes = Array(query.utf8)
    func isHex(_ index: Int) -> Bool {
      index < bytes.count && (bytes[index].isDigit || (0x41...0x46).contains(bytes[index] & 0xDF))
    }
    var result: [UInt8] = []
    result.reserveCapacity(bytes.count)
    let hexDigits = Array("0123456789ABCDEF".utf8)
    for (index, byte) in bytes.enumerated() {
      if byte.isQueryCharacter || (byte == UInt8(ascii: "%") && isHex(index + 1) && isHex(index + 2)) {
        result.append(byte)
      } else {
        result += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
      }
    }
    return String(decoding: result, as: UTF8.self)
  }

  mutating func appendQuery(_ extra: String) {
    guard !extra.isEmpty else { return }
    if let query, !query.isEmpty {
      self.query = query + "&" + extra
    } else {
      query = extra
    }
  }

  var string: String {
    var result = path
    if let query { result += "?" + query }
    if let fragment { result += "#" + fragment }
    return result
  }
}

extension UInt8 {
  fileprivate var isASCIILetter: Bool { (0x61...0x7A).contains(self) || (0x41...0x5A).contains(self) }
  fileprivate var isDigit: Bool { (0x30...0x39).contains(self) }
  /// Allowed as is in a query (RFC 3986 §3.4): unreserved, sub-delims, `:`, `@`, `/` and `?`.
  fileprivate var isQueryCharacter: Bool {
    isASCIILetter || isDigit || "-._~!$&'()*+,;=:@/?".utf8.contains(self)
  }
  /// A letter, a digit, `+`, `-` or `.` (RFC 3986 §3.1).
  fileprivate var isSchemeCharacter: Bool {
    isASCIILetter || (0x30...0x39).contains(self) || self == 0x2B || self == 0x2D || self == 0x2E
  }
}

extension Request {
  /// Whether the resource has no scheme, so that it needs a base URL to join.
  package var hasRelativeResource: Bool { !URLParts.hasScheme(resource.urlString) }
}
