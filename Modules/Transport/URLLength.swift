/// The longest URL a transport sends: 64 KiB (65,536 bytes), counted as sent (scheme, authority, path and query,
/// non-ASCII bytes percent-encoded). Servers refuse far shorter request lines (nginx: 8 KiB by default), and libcurl
/// fails a much longer one with a misleading "Out of memory"; a longer URL is refused before anything is sent, with
/// ``TransportError/Code/invalidRequest``, on every transport.
package enum URLLength {
  /// The limit, in bytes.
  package static let limit = 64 << 10

  /// Refuses a URL of `count` bytes beyond ``limit``.
  /// - Throws: ``TransportError`` with ``TransportError/Code/invalidRequest``: "URL too long (N bytes, limit M)".
  package static func check(_ count: Int) throws(TransportError) {
    guard count > limit else { return }
    throw TransportError(code: .invalidRequest, message: "URL too long (\(count) bytes, limit \(limit))")
  }
}
