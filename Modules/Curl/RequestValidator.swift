import HTTPTypes
import MalibuCore
@_spi(Malibu) import MalibuTransport

/// Checks a request before anything is sent and builds the URL handed to libcurl.
///
/// Everything is checked byte by byte: the method must be a token, the URL absolute `http` or `https` with an
/// authority and a path, at most `URLLength.limit` bytes in all, and no header name or value may hold CR, LF or NUL
/// (HTTPTypes already turns those into spaces; this is the last line of defence should a value ever get through).
enum RequestValidator {
  /// The absolute URL of `request`, ready for `CURLOPT_URL`.
  /// - Throws: ``TransportError`` with ``TransportError/Code/invalidRequest``.
  static func validate(_ request: HTTPRequest) throws(TransportError) -> String {
    guard isToken(request.method.rawValue.utf8) else {
      throw invalid("the method '\(request.method.rawValue)' is not a valid HTTP token")
    }
    for field in request.headerFields {
      try check(name: field.name.rawName, value: field.value)
    }
    return try url(of: request)
  }

  /// The request as the options let it go: refused or upgraded by ``InsecureHTTPPolicy``, after a check of an
  /// explicit proxy's settings.
  /// - Throws: ``TransportError`` with ``TransportError/Code/insecureScheme`` or
  ///   ``TransportError/Code/invalidRequest``.
  static func applyPolicies(to request: HTTPRequest, options: TransferOptions) throws(TransportError) -> HTTPRequest {
    if let server = options.proxy.server { try server.validate() }
    return try options.insecureHTTP.apply(to: request)
  }

  /// Checks one header field.
  /// - Throws: ``TransportError`` with ``TransportError/Code/invalidRequest`` when the name is not a token or the
  ///   value holds CR, LF or NUL.
  static func check(name: String, value: String) throws(TransportError) {
    var name = name
    guard name.withUTF8({ isToken($0) }) else {
      throw invalid("the header name \(name.debugDescription) is not a valid HTTP token")
    }
    if HTTPField.containsLineBreakOrNUL(value) {
      throw invalid("the value of header '\(name)' contains CR, LF or NUL")
    }
  }

  /// `scheme://authority/path`, with bytes outside ASCII percent-encoded.
  static func url(of request: HTTPRequest) throws(TransportError) -> String {
    guard let scheme = request.scheme.map(canonicalScheme), scheme == "http" || scheme == "https" else {
      throw invalid("the URL scheme must be http or https, not '\(request.scheme ?? "")'")
    }
    guard let authority = request.authority, !authority.isEmpty else {
      throw invalid("the request has no host")
    }
    var host = authority
    guard host.withUTF8({ $0.allSatisfy { $0 > 0x20 && $0 < 0x7F && !isAuthorityDelimiter($0) } }) else {
      throw invalid("the host '\(authority.debugDescription)' contains a character not allowed there")
    }
    var path = request.path ?? "/"
    // Read in place (the string's own bytes), where its `utf8` view checks its position at every byte.
    let verdict = path.withUTF8 { bytes -> PathVerdict in
      guard bytes.first == UInt8(ascii: "/") else { return .relative }
      var verdict = PathVerdict.plain
      for byte in bytes {
        if byte <= 0x20 || byte == 0x7F || byte == UInt8(ascii: "#") { return .forbiddenByte }
        if byte >= 0x80 { verdict = .needsEncoding }
      }
      return verdict
    }
    switch verdict {
    case .relative: throw invalid("the path '\(path.debugDescription)' must start with '/'")
    case .forbiddenByte: throw invalid("the path \(path.debugDescription) contains a space, a control character or '#'")
    case .needsEncoding: path = percentEncoded(path)
    case .plain: break
    }
    var url = ""
    url.reserveCapacity(scheme.utf8.count + 3 + authority.utf8.count + path.utf8.count)  // one allocation
    url += scheme
    url += "://"
    url += authority
    url += path
    try URLLength.check(url.utf8.count)
    return url
  }

  /// What ``url(of:)`` finds in a path.
  private enum PathVerdict {
    case plain, needsEncoding, relative, forbiddenByte
  }

  /// The path with every byte outside ASCII percent-encoded.
  private static func percentEncoded(_ path: String) -> String {
    let hex = Array("0123456789ABCDEF".utf8)
    var bytes: [UInt8] = []
    bytes.reserveCapacity(path.utf8.count * 3)
    for byte in path.utf8 {
      if byte >= 0x80 {
        bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
      } else {
        bytes.append(byte)
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  private static func isToken(_ bytes: some Collection<UInt8>) -> Bool {
    guard !bytes.isEmpty else { return false }
    for byte in bytes {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"),
        UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
        UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
        UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
        continue
      default:
        return false
      }
    }
    return true
  }

  /// The scheme in lowercase; the common spellings are returned as they are, without a new string.
  private static func canonicalScheme(_ scheme: String) -> String {
    scheme == "http" || scheme == "https" ? scheme : scheme.lowercased()
  }

  /// Whether a byte ends the authority (or is not allowed in it): `/ ? # @ \`.
  private static func isAuthorityDelimiter(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "@"), UInt8(ascii: "\\"): true
    default: false
    }
  }

  private static func invalid(_ message: String) -> TransportError {
    TransportError(code: .invalidRequest, message: message)
  }
}
