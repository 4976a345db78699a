import Foundation
import HTTPTypes

/// The on-disk form of a cached response: one JSON file per entry, named after the SHA-256 of its key.
struct CacheRecord: Codable {
  var version = 1
  var key: String
  var status: Int
  var reason: String
  var fields: [[String]]
  var body: Data
  var url: URL?
  var storedAt: Double

  init(key: String, response: CachedResponse) {
    self.key = key
    status = response.head.status.code
    reason = response.head.status.reasonPhrase
    fields = response.head.headerFields.map { [$0.name.rawName, $0.value] }
    body = response.body
    url = response.url
    storedAt = response.storedAt.timeIntervalSince1970
  }

  /// The response, or `nil` when the record is not one this version wrote.
  var response: CachedResponse? {
    guard version == 1, (100...599).contains(status) else { return nil }
    var head = HTTPResponse(status: HTTPResponse.Status(code: status, reasonPhrase: reason))
    for pair in fields {
      guard pair.count == 2, let name = HTTPField.Name(pair[0]) else { return nil }
      head.headerFields.append(HTTPField(name: name, value: pair[1]))
    }
    return CachedResponse(head: head, body: body, url: url, storedAt: Date(timeIntervalSince1970: storedAt))
  }

  static func fileName(forKey key: String) -> String {
    SHA256.hex(Array(key.utf8)) + ".json"
  }
}

extension HTTPCache {
  /// Reads every record in `directory`, oldest first. Unreadable records are deleted: cached data is disposable.
  static func loadRecords(from directory: URL) -> [(String, CachedResponse)] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    var records: [(String, CachedResponse)] = []
    for name in names {
      let file = directory.appendingPathComponent(name)
      if name.hasPrefix(DurableFile.temporaryPrefix) {
        try? DurableFile.remove(file)
        continue
      }
      guard name.hasSuffix(".json") else { continue }
      guard let data = try? Data(contentsOf: file),
        let record = try? JSONDecoder().decode(CacheRecord.self, from: data),
        CacheRecord.fileName(forKey: record.key) == name,
        let response = record.response
      else {
        try? DurableFile.remove(file)
        continue
      }
      records.append((record.key, response))
    }
    records.sort { $0.1.storedAt < $1.1.storedAt }
    return records
  }

  static func writeRecord(_ response: CachedResponse, forKey key: String, in directory: URL) {
    guard let data = try? JSONEncoder().encode(CacheRecord(key: key, response: response)) else { return }
    try? DurableFile.createDirectory(directory)
    try? DurableFile.write(data, to: directory.appendingPathComponent(CacheRecord.fileName(forKey: key)))
  }

  static func deleteRecord(forKey key: String, in directory: URL) {
    try? DurableFile.remove(directory.appendingPathComponent(CacheRecord.fileName(forKey: key)))
  }
}
