import HTTPTypes

/// The field names servers send most, matched byte for byte so that a response head costs no lowercasing, no
/// validation and no allocation for them.
///
/// Each name is listed as the registry spells it (`Content-Length`, what HTTP/1.1 servers send) and in lowercase
/// (what HTTP/2 delivers). A match yields exactly the name `HTTPField.Name(_:)` would build from the same bytes: the
/// raw name is the bytes as received and the canonical name their lowercase form. Other names take the general path.
enum KnownFieldNames {
  private struct Entry {
    let bytes: [UInt8]
    let name: HTTPField.Name
  }

  /// The entries by length of the name; no name is longer than 31 bytes.
  private static let table: [[Entry]] = {
    let names: [HTTPField.Name] = [
      .acceptRanges, .age, .cacheControl, .connection, .contentEncoding, .contentLength, .contentType, .date, .eTag,
      .expires, .lastModified, .location, .server, .setCookie, .transferEncoding, .vary,
      .accessControlAllowOrigin, .contentDisposition, .strictTransportSecurity, .xContentTypeOptions,
    ]
    var table = [[Entry]](repeating: [], count: 32)
    for name in names {
      for spelling in Set([name.rawName, name.canonicalName]) {
        guard let exact = HTTPField.Name(spelling), spelling.utf8.count < table.count else { continue }
        table[spelling.utf8.count].append(Entry(bytes: Array(spelling.utf8), name: exact))
      }
    }
    return table
  }()

  /// The name spelled exactly by `bytes`, when it is one of the known names.
  static func match(_ bytes: UnsafeRawBufferPointer) -> HTTPField.Name? {
    guard bytes.count < table.count else { return nil }
    for entry in table[bytes.count] where entry.bytes.withUnsafeBytes({ $0.elementsEqual(bytes) }) {
      return entry.name
    }
    return nil
  }
}
