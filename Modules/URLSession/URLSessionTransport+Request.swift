import Foundation
import HTTPTypes
import MalibuTransport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
  /// URLSession's own timer is only a backstop: the transport's watchdog enforces `Timeouts` precisely (on Linux
  /// URLSession truncates its timeout to whole seconds and cannot pause it).
  static let backstopTimeout: TimeInterval = 7 * 24 * 3600

  /// The URLRequest for one hop.
  ///
  /// Header fields are copied as they are, fields of the same name joined into one (`, `, or `; ` for `Cookie`);
  /// `Content-Length`, `Transfer-Encoding` and `Connection` are left to the transport on every method: it frames the
  /// body it sends and owns connection reuse. Not HTTPTypesFoundation's `URLRequest(httpRequest:)`: it maps values to
  /// ISO Latin-1, which FoundationNetworking sends on as UTF-8, so a non-ASCII value would arrive double-encoded.
  static func makeURLRequest(_ request: HTTPRequest, url: URL, upload: Upload) -> URLRequest {
    var urlRequest = URLRequest(url: url)
    if request.method != .get {  // a new URLRequest is a GET; the setter is dearer than a comparison
      urlRequest.httpMethod = request.method.rawValue
    }
    urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
    urlRequest.timeoutInterval = backstopTimeout
    urlRequest.httpShouldHandleCookies = false
    var seen = Set<HTTPField.Name>()
    for field in request.headerFields where seen.insert(field.name).inserted {
      if field.name == .contentLength || field.name == .transferEncoding || field.name == .connection { continue }
      urlRequest.setValue(request.headerFields[field.name], forHTTPHeaderField: field.name.rawName)
    }
    if upload.gzip {
      urlRequest.setValue("gzip", forHTTPHeaderField: HTTPField.Name.contentEncoding.rawName)
    }
    #if !canImport(FoundationNetworking)
    if case .stream(let length?, _) = upload.body {
      urlRequest.setValue(String(length), forHTTPHeaderField: HTTPField.Name.contentLength.rawName)
    }
    #endif
    return urlRequest
  }
}
