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

  /// - Parameters:
  ///   - response: The response as URLSession delivered it.
  ///   - method: The request's method (a `HEAD` response has no body).
  init(_ response: HTTPURLResponse, method: HTTPRequest.Method) {
    var fields = Self.fields(response.allHeaderFields)
    var contentLength: String?
    var isEncoded = false
    for field in fields {
      if field.name == .contentLength {
        contentLength = field.value
      } else if field.name == .contentEncoding {
        isEncoded = true
      }
    }
    let codings = isEncoded ? Self.codings(fields) : []
    isDecoded = !codings.isEmpty && codings.allSatisfy { Self.decodedCodings.contains($0) }
    if isDecoded {
      fields[.contentEncoding] = nil
      fields[.contentLength] = nil
    }
    let status = response.statusCode
    let bodiless = method == .head || status == 204 || status == 304 || (100..<200).contains(status)
    expectedLength = bodiless || isDecoded ? nil : contentLength.flatMap { Int($0) }
    head = HTTPResponse(status: HTTPResponse.Status(code: status), headerFields: fields)
    url = response.url
  }

  /// The header fields of a response, in the order of their lowercased names (the dictionary has none). Not
  /// HTTPTypesFoundation's `HTTPURLResponse.httpResponse`: it keeps the dictionary's order, which changes from process
  /// to process, and maps values to ISO Latin-1 where FoundationNetworking decodes them from UTF-8. A valid
  /// name's canonical name is exactly its lowercased form, computed once per field here rather than twice per
  /// comparison. Fields whose name is not a valid field name are left out.
  static func fields(_ headerFields: [AnyHashable: Any]) -> HTTPFields {
    var sorted: [HTTPField] = []
    sorted.reserveCapacity(headerFields.count)
    for (key, value) in headerFields {
      // The key's `base`: casting the `AnyHashable` itself takes the runtime's slower path through its box.
      guard let name = key.base as? String, let value = value as? String, let fieldName = HTTPField.Name(name) else {
        continue
      }
      sorted.append(HTTPField(name: fieldName, value: value))
    }
    sorted.sort { $0.name.canonicalName < $1.name.canonicalName }
    var fields = HTTPFields()
    fields.append(contentsOf: sorted)
    return fields
  }

  /// The content codings named by `Content-Encoding`, lower-cased, `identity` left out.
  static func codings(_ fields: HTTPFields) -> [String] {
    fields[values: .contentEncoding]
      .flatMap { $0.split(separator: ",") }
      .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
      .filter { !$0.isEmpty && $0 != "identity" }
  }
}
