import Foundation
import HTTPTypes
import MalibuTransport

/// The on-disk form of a cached response: one JSON file per entry, named after the SHA-256 of its key. The key holds
/// credentials only as a salted digest, and `Set-Cookie` is never among the stored fields, so no secret is written.
struct CacheRecord: Codable {
  /// Version 1 was keyed by method and URL alone; such records are deleted, never read.
  static let currentVersion = 2

  var version = currentVersion
  var key: String
  var status: Int
  var reason: String
  var fields: [[String]]
  var body: Data
  var url: URL?
  var receivedAt: Double
  var initialAge: Double
  var varyDigest: String?

  init(key: String, response: CachedResponse) {
    self.key = key
    status = response.head.status.code
    reason = response.head.status.reasonPhrase
    fields = response.head.headerFields.map { [$0.name.rawName, $0.value] }
    body = response.body
    url = response.url
    receivedAt = response.receivedAt.timeIntervalSince1970
    initialAge = response.initialAge
    varyDigest = response.varyDigest
  }

  /// The response, or `nil` when the record is not one this version wrote or holds values no response can have.
  var response: CachedResponse? {
    guard version == Self.currentVersion, (100...599).contains(status), receivedAt.isFinite, initialAge.isFinite,
      initialAge >= 0
    else { return nil }
    var head = HTTPResponse(status: HTTPResponse.Status(code: status, reasonPhrase: reason))
    for pair in fields {
      guard pair.count == 2, let name = HTTPField.Name(pair[0]) else { return nil }
      head.headerFields.append(HTTPField(name: name, value: pair[1]))
    }
    return CachedResponse(
      head: head,
      body: body,
      url: url,
      receivedAt: Date(timeIntervalSince1970: receivedAt),
      initialAge: initialAge,
      varyDigest: varyDigest
    )
  }

  static func fileName(forKey key: String) -> String {
    SHA256Digest.hex(Array(key.utf8)) + ".json"
  }
}

extension HTTPCache {
  /// The file holding the salt of a cache directory's digests.
  static let saltFileName = "key-salt"

  /// The directory's salt; a missing or damaged one is replaced, and then every record goes, since its key was made
  /// with the old salt and could never be found again.
  static func loadSalt(in directory: URL) -> [UInt8] {
    let file = directory.appendingPathComponent(saltFileName)
    // Untrusted: a link is not followed and a FIFO not waited on; either is replaced by a new salt (the write
    // renames over the name, so it never writes through a link either).
    if let (data, _) = try? UntrustedFile.read(file, limit: 32), data.count == 32 { return Array(data) }
    let salt = randomSalt()
    try? StoreFile.createDirectory(directory)
    try? StoreFile.write(Data(salt), to: file)
    for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    where name.hasSuffix(".json") {
      try? StoreFile.remove(directory.appendingPathComponent(name))
    }
    return salt
  }

  /// Reads every record in `directory`, oldest first. A record that cannot be read (a link or a FIFO among them), is larger than any this cache
  /// writes, or holds impossible values is deleted: cached data is disposable, and its request goes to the network.
  static func loadRecords(from directory: URL, maxBodyBytes: Int) -> [(String, CachedResponse)] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    // A body is base64 in JSON (4/3 larger), plus room for the head.
    let largestFile = maxBodyBytes / 3 * 4 + 4 + (1 << 20)
    var records: [(String, CachedResponse)] = []
    for name in names {
      let file = directory.appendingPathComponent(name)
      if name.hasPrefix(StoreFile.temporaryPrefix) {
        try? StoreFile.remove(file)
        continue
      }
      guard name.hasSuffix(".json") else { continue }
      // Untrusted: no link followed, no FIFO waited on, nothing larger than the cache writes read.
      guard let (data, _) = try? UntrustedFile.read(file, limit: largestFile),
        let record = try? JSONDecoder().decode(CacheRecord.self, from: data),
        CacheRecord.fileName(forKey: record.key) == name,
        let response = record.response
      else {
        try? StoreFile.remove(file)
        continue
      }
      records.append((record.key, response))
    }
    records.sort { $0.1.receivedAt < $1.1.receivedAt }
    return records
  }

  static func writeRecord(_ response: CachedResponse, forKey key: String, in directory: URL) {
    guard let data = try? JSONEncoder().encode(CacheRecord(key: key, response: response)) else { return }
    try? StoreFile.createDirectory(directory)
    try? StoreFile.write(data, to: directory.appendingPathComponent(CacheRecord.fileName(forKey: key)))
  }

  static func deleteRecord(forKey key: String, in directory: URL) {
    try? StoreFile.remove(directory.appendingPathComponent(CacheRecord.fileName(forKey: key)))
  }
}
