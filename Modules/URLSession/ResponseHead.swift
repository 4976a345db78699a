import Foundation
import HTTPTypes
import MalibuTransport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A URLSession response turned into the head a Malibu transport returns.
///
/// URLSession decodes the content codings it offers by itself — FoundationNetworking always, through libcurl, and
/// Apple's loader likewise — yet leaves `Content-Encoding` and the encoded `Content-Length` in the header fields. When
/// every coding of the response is one the platform decodes, those two fields are removed, so the fields describe the
/// body the caller receives, as on every Malibu transport.
struct ResponseHead {
  /// The codings the platform's URLSession decodes on its own.
  #if canImport(FoundationNetworking)
  static let decodedCodings: Set<String> = ["gzip", "x-gzip", "deflate", "br", "zstd"]
  #else
  static let decodedCodings: Set<String> = ["gzip", "x-gzip", "deflate", "br"]
  #endif

  /// The status and the honest header fields.
  var head: HTTPResponse
  /// The URL the response came from.
  var url: URL?
  /// Whether the body arrives decoded from a content coding (so its length is not the announced one).
  var isDecoded: Bool
  /// The body length to expect, when the server announced it and nothing changes it.
  var expectedLength: Int?

  init(_ response: HTTPURLResponse, method: HTTPRequest.Method) {
    var fields = HTTPFields()
    // In the order of the lowercased names (the dictionary has none); a valid name's canonical name is exactly its
    // lowercased form, computed once per field here rather than twice per comparison.
    let headerFields = response.allHeaderFields
    var named: [(name: HTTPField.Name, value: String)] = []
    named.reserveCapacity(headerFields.count)
    for (key, value) in headerFields {
      guard let name = key as? String, let value = value as? String, let fieldName = HTTPField.Name(name) else {
        continue
      }
      named.append((fieldName, value))
    }
    named.sort { $0.name.canonicalName < $1.name.canonicalName }
    for (name, value) in named {
      fields.append(HTTPField(name: name, value: value))
    }
    let codings = fields.contains(.contentEncoding) ? Self.codings(fields) : []
    isDecoded = !codings.isEmpty && codings.allSatisfy { Self.decodedCodings.contains($0) }
    if isDecoded {
      fields[.contentEncoding] = nil
      fields[.contentLength] = nil
    }
    let status = response.statusCode
    let bodiless = method == .head || status == 204 || status == 304 || (100..<200).contains(status)
    expectedLength = bodiless || isDecoded ? nil : fields[.contentLength].flatMap { Int($0) }
    head = HTTPResponse(status: HTTPResponse.Status(code: status), headerFields: fields)
    url = response.url
  }

  /// The content codings named by `Content-Encoding`, lower-cased, `identity` left out.
  static func codings(_ fields: HTTPFields) -> [String] {
    fields[values: .contentEncoding]
      .flatMap { $0.split(separator: ",") }
      .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
      .filter { !$0.isEmpty && $0 != "identity" }
  }
}
