import Foundation
import MalibuTransport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension TransportError {
  /// The error for what URLSession reported at the end of a task.
  ///
  /// FoundationNetworking maps only a few libcurl results to specific `URLError` codes (refused connections, DNS,
  /// resets seen as `ECONNRESET`, timeouts); everything else arrives as `NSURLErrorUnknown` (-1) carrying libcurl's
  /// error text, so those are told apart by that text: a body cut short ("transfer closed with ... remaining"), a
  /// content coding that does not decode, certificate and handshake failures, an answer that breaks HTTP.
  init(urlSessionError error: any Error) {
    let nsError = error as NSError
    let text = Self.describe(nsError)
    guard nsError.domain == NSURLErrorDomain else {
      self.init(code: .other, message: "URLSession failed: \(text)", underlyingError: error)
      return
    }
    // FoundationNetworking's libcurl refuses a response head past its 100 KiB cap with "Out of memory".
    if nsError.code == URLError.Code.unknown.rawValue && text.lowercased() == "out of memory" {
      self.init(
        code: .protocolError,
        message:
          "the response head is larger than libcurl accepts (100 KiB), which libcurl reports as \"\(text)\" (URLError -1)",
        underlyingError: error
      )
      return
    }
    // And a head past its 300 KiB cap per response with "Too large response headers: 327868 > 307200".
    if text.lowercased().contains("too large response headers") {
      self.init(
        code: .protocolError,
        message:
          "the response head is larger in all than libcurl accepts (300 KiB): \(text) (URLError \(nsError.code))",
        underlyingError: error
      )
      return
    }
    let code = Self.code(for: URLError.Code(rawValue: nsError.code) ?? .unknown, text: text)
    self.init(code: code, message: "\(Self.summary(code)): \(text) (URLError \(nsError.code))", underlyingError: error)
  }

  private static func code(for urlCode: URLError.Code, text: String) -> Code {
    switch urlCode {
    case .cancelled: return .cancelled
    case .timedOut: return .idleTimeout
    case .cannotConnectToHost, .notConnectedToInternet: return .connectionRefused
    case .cannotFindHost, .dnsLookupFailed: return .dnsFailure
    case .networkConnectionLost: return .connectionReset
    case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
      .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
      .clientCertificateRequired, .appTransportSecurityRequiresSecureConnection:
      return .tls
    // libcurl's CURLE_UNSUPPORTED_PROTOCOL: for an http(s) URL, which the transport checked before sending, it is the
    // answer that is not HTTP ("Received HTTP/0.9 when not allowed", "Unsupported HTTP version in response").
    case .unsupportedURL: return isProtocolViolation(text) ? .protocolError : .invalidRequest
    case .badURL, .dataLengthExceedsMaximum, .requestBodyStreamExhausted: return .invalidRequest
    case .httpTooManyRedirects, .redirectToNonExistentLocation: return .tooManyRedirects
    case .cannotDecodeContentData, .cannotDecodeRawData: return .decodingFailed
    case .cannotParseResponse: return .protocolError
    #if canImport(FoundationNetworking)
    // libcurl's CURLE_GOT_NOTHING: the server closed the connection without a byte of response.
    case .badServerResponse: return .connectionReset
    #else
    case .badServerResponse: return .protocolError
    #endif
    case .unknown: return code(forCurlText: text)
    default: return .other
    }
  }

  /// Tells libcurl's failures apart by their text (FoundationNetworking reports most of them as -1).
  private static func code(forCurlText text: String) -> Code {
    let lowered = text.lowercased()
    func has(_ fragments: String...) -> Bool { fragments.contains { lowered.contains($0) } }
    if isProtocolViolation(text) { return .protocolError }
    if has("content unencoding", "content encoding", "content decoding") { return .decodingFailed }
    if has("ssl", "tls", "certificate", "handshake") { return .tls }
    if has("transfer closed", "recv failure", "send failure", "connection reset", "empty reply", "connection died") {
      return .connectionReset
    }
    if has("could not resolve", "couldn't resolve") { return .dnsFailure }
    if has("failed to connect", "couldn't connect") { return .connectionRefused }
    if has("timed out", "timeout was reached") { return .idleTimeout }
    return .other
  }

  /// Whether libcurl's text says that the server's answer broke HTTP: a status line or version it cannot read, bytes
  /// that are not HTTP at all, a bad `Content-Length`, broken chunked framing, a header line without a colon.
  private static func isProtocolViolation(_ text: String) -> Bool {
    let lowered = text.lowercased()
    return [
      "http/0.9", "unsupported http version", "invalid status line", "unsupported response code",
      "invalid content-length", "overflow content-length", "chunked-encoding", "header without colon",
      "weird server reply",
    ].contains { lowered.contains($0) }
  }

  private static func summary(_ code: Code) -> String {
    switch code {
    case .cancelled: return "the transfer was cancelled"
    case .idleTimeout: return "no data moved within URLSession's timeout"
    case .connectionRefused: return "the connection was refused"
    case .dnsFailure: return "the host name could not be resolved"
    case .connectionReset: return "the connection was closed before the response was complete"
    case .tls: return "the TLS connection failed"
    case .invalidRequest: return "URLSession cannot send this request"
    case .tooManyRedirects: return "too many redirects"
    case .decodingFailed: return "the response body could not be decoded"
    case .protocolError: return "the server's answer is not valid HTTP"
    default: return "URLSession failed"
    }
  }

  private static func describe(_ error: NSError) -> String {
    if let text = error.userInfo[NSLocalizedDescriptionKey] as? String, !text.isEmpty { return text }
    if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError,
      let text = underlying.userInfo[NSLocalizedDescriptionKey] as? String, !text.isEmpty
    {
      return text
    }
    return error.localizedDescription
  }
}
