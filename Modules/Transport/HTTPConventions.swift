package import HTTPTypes

/// The values OpenTelemetry's HTTP client conventions ask for, shared by the tracing and metrics integrations so that
/// spans and metrics of one request agree.
package enum HTTPConventions {
  /// The methods the conventions name; others are reported as `_OTHER`.
  static let knownMethods: Set<String> = [
    "CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE", "QUERY",
  ]

  /// The method as the conventions report it, and the original spelling when that is `_OTHER` (a method they do not
  /// list, kept out so that the number of time series stays bounded).
  package static func method(_ method: HTTPRequest.Method) -> (name: String, original: String?) {
    knownMethods.contains(method.rawValue) ? (method.rawValue, nil) : ("_OTHER", method.rawValue)
  }

  /// The host (without brackets for IPv6) and port (the scheme's default when the URL names none) a request goes to;
  /// `nil` without an authority.
  package static func server(of request: HTTPRequest) -> (address: String, port: Int)? {
    guard let authority = request.authority, !authority.isEmpty else { return nil }
    var hostAndPort = Substring(authority)
    if let at = hostAndPort.lastIndex(of: "@") { hostAndPort = hostAndPort[hostAndPort.index(after: at)...] }
    var host = hostAndPort
    var port: Int?
    if hostAndPort.hasPrefix("["), let close = hostAndPort.firstIndex(of: "]") {
      host = hostAndPort[hostAndPort.index(after: hostAndPort.startIndex)..<close]
      let rest = hostAndPort[hostAndPort.index(after: close)...]
      if rest.hasPrefix(":") { port = Int(rest.dropFirst()) }
    } else if let colon = hostAndPort.lastIndex(of: ":") {
      host = hostAndPort[..<colon]
      port = Int(hostAndPort[hostAndPort.index(after: colon)...])
    }
    return (String(host), port ?? (request.scheme?.lowercased() == "https" ? 443 : 80))
  }

  /// The low-cardinality `error.type` of an error: a `TransportError`'s code, else the error's type name.
  package static func errorType(of error: any Error) -> String {
    if let error = error as? TransportError { return error.code.description }
    if error is CancellationError { return TransportError.Code.cancelled.description }
    return String(describing: type(of: error))
  }
}
