import Foundation

/// The sidecar kept next to a partial download: the URL it came from, the validator that names the version of the
/// resource its bytes belong to, and the resource's full length when known.
///
/// The file is untrusted input (anyone who can write to the directory can change it): it is read only up to
/// ``maximumSize`` bytes, and a record whose URL differs from the request's, whose validator is not a plain header
/// value, or that cannot be decoded is treated as absent, so the download starts again from the first byte.
struct ResumeRecord: Codable, Equatable, Sendable {
  /// The format, so that a later one can be told apart.
  var version = 1
  /// The absolute URL of the request that wrote the partial file.
  var url: String
  /// The value sent in `If-Range`: a strong entity tag, or an HTTP date.
  var validator: String
  /// The length of the whole resource, when the response said it.
  var length: Int64?

  /// The largest sidecar read.
  static let maximumSize = 4096
  /// The longest validator accepted.
  static let maximumValidatorLength = 1024

  /// The record in `file` if it is one this code wrote for `url`, else `nil`.
  static func load(from file: URL, for url: String) -> ResumeRecord? {
    guard let handle = try? FileHandle(forReadingFrom: file) else { return nil }
    defer { try? handle.close() }
    guard let data = try? handle.read(upToCount: maximumSize + 1), data.count <= maximumSize,
      let record = try? JSONDecoder().decode(ResumeRecord.self, from: data),
      record.version == 1, record.url == url, isPlainValue(record.validator), (record.length ?? 0) >= 0
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
