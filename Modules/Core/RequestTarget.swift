package import Foundation
import HTTPTypes

/// Where a transport request goes, as `HTTPRequest` carries it: the scheme, the authority (host and port) and the
/// request path (path and query; `/` when the URL has no path). The fragment and any user info are not sent.
package struct RequestTarget: Sendable, Equatable {
  /// The scheme, as written (`http`).
  package var scheme: String
  /// The host and port, as written (`127.0.0.1:8080`); `nil` when the URL has no host.
  package var authority: String?
  /// The path and query (`/boards?page=2`).
  package var path: String

  /// The target of a URL Foundation has parsed, split the way `HTTPRequest(method:url:)` splits it.
  /// - Parameter url: An absolute URL.
  package init(url: URL) {
    let request = HTTPRequest(method: .get, url: url)
    scheme = request.scheme ?? ""
    authority = request.authority
    path = request.path ?? "/"
  }

  /// Splits `string` by one scan of its bytes when it is a plain absolute URL: `scheme://host[:port]` with an
  /// ASCII host name or address, then a path, query and fragment of characters a URL may carry unescaped (and
  /// `%XX` escapes), without `.` or `..` segments. Anything else (user info, IPv6 literals, characters Foundation
  /// would escape, ...) gives `nil`, for Foundation's parser to handle; for every plain URL the result equals
  /// ``init(url:)`` of `URL(string:)`.
  /// - Parameter string: The URL string.
  package init?(plain string: String) {
    var string = string
    guard
      let target = string.withUTF8({ bytes -> RequestTarget? in
        guard let (schemeEnd, authorityEnd, queryStart, fragmentStart) = Self.split(bytes) else { return nil }
        func text(_ range: Range<Int>) -> String {
          String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }
        let pathEnd = queryStart ?? fragmentStart ?? bytes.count
        let requestEnd = fragmentStart ?? bytes.count
        let requestPath = text(authorityEnd..<requestEnd)
        return RequestTarget(
          scheme: text(0..<schemeEnd),
          authority: text(schemeEnd + 3..<authorityEnd),
          path: pathEnd == authorityEnd ? "/" + requestPath : requestPath
        )
      })
    else { return nil }
    self = target
  }

  private init(scheme: String, authority: String, path: String) {
    self.scheme = scheme
    self.authority = authority
    self.path = path
  }

  /// The offsets of the end of the scheme, the end of the authority, the `?` and the `#` of a plain URL.
  private static func split(_ bytes: UnsafeBufferPointer<UInt8>) -> (Int, Int, Int?, Int?)? {
    var index = 0
    let count = bytes.count
    // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) "://"
    guard count > 0, bytes[0].isLetter else { return nil }
    while index < count, bytes[index].isSchemeByte { index += 1 }
    let schemeEnd = index
    guard count - index >= 3, bytes[index] == .colon, bytes[index + 1] == .slash, bytes[index + 2] == .slash else {
      return nil
    }
    index += 3
    // authority = host [ ":" port ], a registered name or IPv4 address of unreserved characters.
    let authorityStart = index
    var colon: Int?
    while index < count, bytes[index] != .slash, bytes[index] != .questionMark, bytes[index] != .hash {
      let byte = bytes[index]
      if byte == .colon {
        guard colon == nil else { return nil }
        colon = index
      } else if colon != nil {
        guard byte.isDigit else { return nil }
      } else {
        guard byte.isUnreserved else { return nil }
      }
      index += 1
    }
    let authorityEnd = index
    let hostEnd = colon ?? authorityEnd
    guard hostEnd > authorityStart else { return nil }
    if let colon {
      guard authorityEnd - colon >= 2, authorityEnd - colon <= 6 else { return nil }
      var port = 0
      for offset in colon + 1..<authorityEnd { port = port * 10 + Int(bytes[offset] - 0x30) }
      guard port <= 65_535 else { return nil }
    }
    // path, query and fragment
    var queryStart: Int?
    var fragmentStart: Int?
    var segmentStart = index
    while index < count {
      let byte = bytes[index]
      if byte == .percent {
        guard index + 2 < count, bytes[index + 1].isHexDigit, bytes[index + 2].isHexDigit else { return nil }
        index += 3
        continue
      }
      let inPath = queryStart == nil && fragmentStart == nil
      if inPath && (byte == .slash || byte == .questionMark || byte == .hash) {
        if isDotSegment(bytes, from: segmentStart, to: index) { return nil }
        segmentStart = index + 1
      }
      if byte == .questionMark && inPath {
        queryStart = index
      } else if byte == .hash && fragmentStart == nil {
        fragmentStart = index
      } else if !(byte.isPathByte || (!inPath && (byte == .slash || byte == .questionMark))) {
        return nil
      }
      index += 1
    }
    if queryStart == nil && fragmentStart == nil && isDotSegment(bytes, from: segmentStart, to: count) { return nil }
    return (schemeEnd, authorityEnd, queryStart, fragmentStart)
  }

  /// Whether `bytes[start..<end]` is a `.` or `..` path segment (after a `/`).
  private static func isDotSegment(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Bool {
    guard start > 0, bytes[start - 1] == .slash else { return false }
    let length = end - start
    return (length == 1 && bytes[start] == .dot) || (length == 2 && bytes[start] == .dot && bytes[start + 1] == .dot)
  }
}

extension UInt8 {
  fileprivate static let colon = UInt8(ascii: ":")
  fileprivate static let slash = UInt8(ascii: "/")
  fileprivate static let questionMark = UInt8(ascii: "?")
  fileprivate static let hash = UInt8(ascii: "#")
  fileprivate static let percent = UInt8(ascii: "%")
  fileprivate static let dot = UInt8(ascii: ".")

  fileprivate var isLetter: Bool { (0x61...0x7A).contains(self) || (0x41...0x5A).contains(self) }
  fileprivate var isDigit: Bool { (0x30...0x39).contains(self) }
  fileprivate var isHexDigit: Bool { isDigit || (0x61...0x66).contains(self) || (0x41...0x46).contains(self) }
  fileprivate var isSchemeByte: Bool { isLetter || isDigit || self == 0x2B || self == 0x2D || self == 0x2E }
  /// RFC 3986 unreserved: ALPHA / DIGIT / "-" / "." / "_" / "~".
  fileprivate var isUnreserved: Bool {
    isLetter || isDigit || self == 0x2D || self == 0x2E || self == 0x5F || self == 0x7E
  }
  /// RFC 3986 pchar without pct-encoded: unreserved / sub-delims / ":" / "@".
  fileprivate var isPathByte: Bool {
    switch self {
    case 0x21, 0x24, 0x26...0x2C, 0x3B, 0x3D, 0x3A, 0x40: return true  // ! $ & ' ( ) * + , ; = : @
    default: return isUnreserved || self == .slash
    }
  }
}
