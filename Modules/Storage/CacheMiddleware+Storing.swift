import Foundation
import HTTPTypes
import MalibuCore
import MalibuTransport

extension CacheMiddleware {
  static func policy(of request: HTTPRequest) throws(StorageError) -> CachePolicy {
    guard let value = request.headerFields[policyHeader] else { return .useProtocolCachePolicy }
    guard let policy = CachePolicy(headerValue: value) else {
      throw StorageError(code: .invalidCachePolicy, message: "'\(value)' is not a cache policy")
    }
    return policy
  }

  static func answer(_ entry: CachedResponse, status: String) -> TransportResponse {
    var head = entry.head
    head.headerFields[statusHeader] = status
    return TransportResponse(head: head, url: entry.url, body: ResponseBody(data: entry.body))
  }

  /// The stored entry with the header fields of a `304` merged in (they describe the same representation) and a
  /// new time of storage.
  func revalidate(_ entry: CachedResponse, with head: HTTPResponse) -> CachedResponse {
    var updated = entry
    let skipped: Set<HTTPField.Name> = [.contentLength, .contentEncoding, .transferEncoding, .contentType]
    var seen: Set<HTTPField.Name> = []
    for field in head.headerFields where !skipped.contains(field.name) && seen.insert(field.name).inserted {
      updated.head.headerFields[fields: field.name] = head.headerFields[fields: field.name]
    }
    updated.storedAt = Self.receivedAt(cache.now(), head: head)
    return updated
  }

  /// Whether a `200` to a `GET` may be stored: it has a validator, neither side said `no-store`, it does not vary
  /// on anything but `Accept-Encoding`, and its announced length fits.
  func isStorable(_ response: TransportResponse, requestControl: CacheControl) -> Bool {
    let fields = response.head.headerFields
    guard response.head.status.code == 200, fields[.eTag] != nil || fields[.lastModified] != nil else { return false }
    guard !requestControl.noStore, !CacheControl(fields).noStore else { return false }
    for value in fields[values: .vary] {
      for name in value.split(separator: ",") {
        let trimmed = name.trimmingCharacters(in: .whitespaces).lowercased()
        if !trimmed.isEmpty, trimmed != "accept-encoding" { return false }
      }
    }
    if let length = response.body.expectedLength, length > cache.maxBodyBytes { return false }
    return true
  }

  /// The response with a body that is stored in the cache once the caller has read it completely.
  func storing(_ response: TransportResponse, key: String) -> TransportResponse {
    let cache = self.cache
    let head = response.head
    let url = response.url
    let body = CachingBody(upstream: response.body, limit: cache.maxBodyBytes) { data in
      cache.store(
        CachedResponse(head: head, body: data, url: url, storedAt: Self.receivedAt(cache.now(), head: head)),
        forKey: key
      )
    }
    var passed = response
    passed.body = ResponseBody(chunks: body, expectedLength: response.body.expectedLength)
    return passed
  }

  /// The time of reception, less the `Age` the server reported.
  static func receivedAt(_ now: Date, head: HTTPResponse) -> Date {
    guard let age = head.headerFields[.age].flatMap({ Int($0) }), age > 0 else { return now }
    return now.addingTimeInterval(-Double(age))
  }
}
