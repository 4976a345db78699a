import Foundation

/// The sidecar kept next to a partial download: a digest of the URL it came from (the URL itself may carry a token
/// in its query, which has no business on disk), the validator that names the version of the resource its bytes
/// belong to, and the resource's full length when known.
///
/// The file is untrusted input (anyone who can write to the directory can change it): it is opened with
/// ``UntrustedFile`` (no link followed, no FIFO waited on, only a regular file), read only up to ``maximumSize``
/// bytes, and a record for another URL than the request's, whose validator is not a plain header
/// value or is a weak entity tag, or that cannot be decoded is treated as absent, so the download starts again from the first byte.
struct ResumeRecord: Codable, Equatable, Sendable {
  /// The format, so that a later one can be told apart.
  var version = 1
  /// ``digest(of:)`` of the absolute URL of the request that wrote the partial file.
  var resource: String
  /// The value sent in `If-Range`: a strong entity tag, or an HTTP date.
  var validator: String
  /// The length of the whole resource, when the response said it.
  var length: Int64?

  /// A record for the request to `url`.
  init(url: String, validator: String, length: Int64?) {
    resource = Self.digest(of: url)
    self.validator = validator
    self.length = length
  }

  /// The FNV-1a 64-bit hash of `url`, in hex: enough to tell the URLs of one destination apart, without keeping them.
  static func digest(of url: String) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in url.utf8 {
      hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }
    return String(hash, radix: 16)
  }

  /// The largest sidecar read.
  static let maximumSize = 4096
  /// The longest validator accepted.
  static let maximumValidatorLength = 1024

  /// The record in `file` if it is one this code wrote for `url`, else `nil`.
  static func load(from file: URL, for url: String) -> ResumeRecord? {
    // Never a link followed nor a FIFO waited on: a FIFO planted here would hold the download before it starts.
    guard let (data, _) = try? UntrustedFile.read(file, limit: maximumSize),
      let record = try? JSONDecoder().decode(ResumeRecord.self, from: data),
      record.version == 1, record.resource == digest(of: url), isPlainValue(record.validator),
      !record.validator.hasPrefix("W/"), (record.length ?? 0) >= 0
    else { return nil }
    return record
  }

  /// Writes the record to `file`, replacing it atomically.
  func save(to file: URL) throws {
    try JSONEncoder().encode(self).write(to: file, options: .atomic)
  }

  /// Whether `value` may be sent as a header value: printable ASCII and spaces, not too long, not empty.
  static func isPlainValue(_ value: String) -> Bool {
    !value.isEmpty && value.utf8.count <= maximumValidatorLength
      && value.utf8.allSatisfy { $0 == 0x20 || (0x21...0x7E).contains($0) }
  }
}
