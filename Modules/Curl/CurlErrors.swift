import CCurl
import HTTPTypes
import MalibuTransport

/// How libcurl's result codes become ``TransportError`` codes (the table is in the DocC page).
enum CurlErrors {
  /// The error for a hop that libcurl ended with `code`, with libcurl's own words from the error buffer.
  static func error(for code: CURLcode, transfer: Transfer) -> TransportError {
    let summary = String(cString: curl_easy_strerror(code))
    let detail = String(cString: transfer.errorBuffer)
    let context = "\(transfer.request.method.rawValue) \(transfer.url)"
    let message = detail.isEmpty ? "\(summary) (\(context))" : "\(summary): \(detail) (\(context))"
    if code == CURLE_OPERATION_TIMEDOUT {
      if let deadline = transfer.totalDeadline, Monotonic.now() &+ 2_000_000 >= deadline {
        return TransportError(code: .totalTimeout, message: message)
      }
      let connected = transfer.connectedAfter() != nil
      return TransportError(code: connected ? .totalTimeout : .connectTimeout, message: message)
    }
    if let error = proxyError(for: code, transfer: transfer, message: message) { return error }
    // libcurl refuses a response head past its 100 KiB cap with "out of memory": the answer, not the machine.
    if code == CURLE_OUT_OF_MEMORY, transfer.machine.isAwaitingHead {
      return TransportError(code: .protocolError, message: "\(headTooLarge) (\(context))")
    }
    // A head past libcurl's 300 KiB cap per response ("Too large response headers: 327868 > 307200"): the answer is
    // refused, not the connection lost, so no retry policy sends the request again for it.
    if isHeadTooLarge(code, detail: detail) {
      return TransportError(code: .protocolError, message: "\(headsTooLarge): \(detail) (\(context))")
    }
    return TransportError(code: self.code(for: code, detail: detail), message: message)
  }

  /// A failure at the proxy: a `CONNECT` answered with anything but 2xx (407: the credentials), or a SOCKS5 refusal
  /// (`CURLE_PROXY`, told apart by `CURLINFO_PROXY_ERROR`). `nil` when no proxy was involved.
  static func proxyError(for code: CURLcode, transfer: Transfer, message: String) -> TransportError? {
    let proxy = transfer.job.options.proxy
    guard proxy != .direct, let easy = transfer.easy else { return nil }
    let credentialsGiven = proxy.server.map { $0.credentials != nil }
    var connectCode = 0
    _ = CCurl_easy_getinfo_long(easy, CURLINFO_HTTP_CONNECTCODE, &connectCode)
    if connectCode == 407 { return .proxyAuthenticationFailed(credentialsGiven: credentialsGiven) }
    if connectCode >= 300 {
      return TransportError(
        code: .proxyFailed,
        message: "the proxy answered the CONNECT tunnel with status \(connectCode): \(message)"
      )
    }
    guard code == CURLE_PROXY else { return nil }
    var detail = 0
    _ = CCurl_easy_getinfo_long(easy, CURLINFO_PROXY_ERROR, &detail)
    let reason = UInt32(truncatingIfNeeded: detail)
    if reason == CURLPX_USER_REJECTED.rawValue || reason == CURLPX_NO_AUTH.rawValue {
      return .proxyAuthenticationFailed(credentialsGiven: credentialsGiven)
    }
    return TransportError(code: .proxyFailed, message: "the proxy would not relay the transfer: \(message)")
  }

  /// What a response head over libcurl's limit is reported as.
  static let headTooLarge = "the response head is larger than libcurl accepts (100 KiB)"

  /// What a response whose head fields are over libcurl's cap in all is reported as.
  static let headsTooLarge = "the response head is larger in all than libcurl accepts (300 KiB)"

  /// The code for a result whose meaning libcurl's own words narrow down: `CURLE_RECV_ERROR` is a broken chunked
  /// framing or a head past libcurl's 300 KiB cap when the text says so (a reset connection otherwise), and `CURLE_UNSUPPORTED_PROTOCOL` is a request
  /// refused before sending only when the text names a scheme libcurl does not speak (the answer otherwise).
  static func code(for code: CURLcode, detail: String) -> TransportError.Code {
    let lowered = detail.lowercased()
    if code == CURLE_RECV_ERROR && lowered.contains("chunked-encoding") { return .protocolError }
    if isHeadTooLarge(code, detail: detail) { return .protocolError }
    if code == CURLE_UNSUPPORTED_PROTOCOL && lowered.contains("not supported or disabled") { return .invalidRequest }
    return self.code(for: code)
  }

  /// Whether libcurl refused a response head over its 300 KiB cap in all (`CURLE_RECV_ERROR`, "Too large response
  /// headers: 327868 > 307200").
  static func isHeadTooLarge(_ code: CURLcode, detail: String) -> Bool {
    code == CURLE_RECV_ERROR && detail.lowercased().contains("too large response headers")
  }

  /// The code for every result but a timeout, which depends on the transfer's state.
  static func code(for code: CURLcode) -> TransportError.Code {
    switch code {
    case CURLE_COULDNT_CONNECT:
      return .connectionRefused
    case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
      return .dnsFailure
    case CURLE_OPERATION_TIMEDOUT:
      return .totalTimeout
    case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_HTTP2, CURLE_HTTP2_STREAM,
      CURLE_SEND_FAIL_REWIND:
      return .connectionReset
    case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
      CURLE_SSL_CACERT_BADFILE, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_CRL_BADFILE,
      CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED,
      CURLE_SSL_SHUTDOWN_FAILED, CURLE_USE_SSL_FAILED, CURLE_SSL_CLIENTCERT:
      return .tls
    case CURLE_URL_MALFORMAT, CURLE_BAD_FUNCTION_ARGUMENT:
      return .invalidRequest
    // The answer breaks HTTP: a status line or version libcurl cannot read, bytes that are not HTTP (an HTTP/0.9
    // reply, refused), a bad Content-Length, a header line without a colon.
    case CURLE_WEIRD_SERVER_REPLY, CURLE_UNSUPPORTED_PROTOCOL:
      return .protocolError
    case CURLE_TOO_MANY_REDIRECTS:
      return .tooManyRedirects
    case CURLE_BAD_CONTENT_ENCODING:
      return .decodingFailed
    case CURLE_FILESIZE_EXCEEDED:
      return .bodyTooLarge
    default:
      return .other
    }
  }
}
