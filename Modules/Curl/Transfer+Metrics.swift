import CCurl
import MalibuCore
import MalibuTransport

extension Transfer {
  /// The final hop's figures from libcurl, shifted by the time the hops before it took: read once when the head
  /// arrives for a streamed body (`final` false: no total, no body sizes), and once when the transfer ends.
  /// - Parameters:
  ///   - final: Whether the transfer has ended: the total and the body's sizes are known.
  ///   - decodedBodyBytes: The body's size after decoding, when known.
  /// - Returns: The metrics; `nil` without a handle.
  func measure(final: Bool, decodedBodyBytes: Int? = nil) -> TransferMetrics? {
    guard let easy else { return nil }
    let before = Int64(clamping: hopStartedAt &- startedAt)
    // In nanoseconds, then one `Duration`: its own arithmetic is not inlined.
    func time(_ info: CURLINFO) -> Duration? {
      var microseconds: curl_off_t = 0
      guard CCurl_easy_getinfo_off_t(easy, info, &microseconds) == CURLE_OK else { return nil }
      return .nanoseconds(before &+ Int64(microseconds) &* 1_000)
    }
    func long(_ info: CURLINFO) -> Int? {
      var value = 0
      return CCurl_easy_getinfo_long(easy, info, &value) == CURLE_OK ? value : nil
    }
    func size(_ info: CURLINFO) -> Int? {
      var value: curl_off_t = 0
      return CCurl_easy_getinfo_off_t(easy, info, &value) == CURLE_OK ? Int(value) : nil
    }
    var metrics = TransferMetrics(redirect: .nanoseconds(before))
    let reused = long(CURLINFO_NUM_CONNECTS).map { $0 == 0 }
    metrics.isReusedConnection = reused
    if reused == false {
      metrics.nameLookup = time(CURLINFO_NAMELOOKUP_TIME_T)
      metrics.connect = time(CURLINFO_CONNECT_TIME_T)
      // libcurl reports 0 when there was no handshake (plain http).
      if let handshake = time(CURLINFO_APPCONNECT_TIME_T), handshake > metrics.redirect ?? .zero {
        metrics.secureConnect = handshake
      }
    }
    metrics.requestSent = time(CURLINFO_PRETRANSFER_TIME_T)
    metrics.firstByte = time(CURLINFO_STARTTRANSFER_TIME_T)
    metrics.httpVersion = long(CURLINFO_HTTP_VERSION).flatMap(Self.httpVersion)
    var address: UnsafeMutablePointer<CChar>?
    if CCurl_easy_getinfo_string(easy, CURLINFO_PRIMARY_IP, &address) == CURLE_OK, let address, address[0] != 0 {
      metrics.remoteAddress = String(cString: address)
    }
    metrics.remotePort = long(CURLINFO_PRIMARY_PORT).flatMap { $0 > 0 ? $0 : nil }
    if let head = long(CURLINFO_REQUEST_SIZE) { metrics.requestBytesSent = head + (size(CURLINFO_SIZE_UPLOAD_T) ?? 0) }
    metrics.responseHeadBytes = long(CURLINFO_HEADER_SIZE)
    if final {
      metrics.total = time(CURLINFO_TOTAL_TIME_T)
      metrics.responseBodyBytes = size(CURLINFO_SIZE_DOWNLOAD_T)
      metrics.decodedBodyBytes = decodedBodyBytes
    }
    return metrics
  }

  /// `CURLINFO_HTTP_VERSION`'s answer as OpenTelemetry's `network.protocol.version` spells it.
  static func httpVersion(_ version: Int) -> String? {
    switch version {
    case Int(CURL_HTTP_VERSION_1_0): "1.0"
    case Int(CURL_HTTP_VERSION_1_1): "1.1"
    case Int(CURL_HTTP_VERSION_2_0): "2"
    case Int(CURL_HTTP_VERSION_3): "3"
    default: nil
    }
  }
}
