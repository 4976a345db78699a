public import Foundation

/// A value that can stand for a URL: a `String` such as `"https://example.com/api"` or `"boards/1"`, or a `URL`.
///
/// Base URLs and request resources are `URLStringConvertible`, so both forms read naturally:
///
/// ```swift
/// static let baseUrl: (any URLStringConvertible)? = "http://127.0.0.1:8080/api/"
/// Request.get(URL(string: "https://example.com/boards")!)
/// ```
public protocol URLStringConvertible: Sendable {
  /// The textual form of the URL or path.
  var urlString: String { get }
}

extension String: URLStringConvertible {
  /// The string itself.
  public var urlString: String { self }
}

extension Substring: URLStringConvertible {
  /// The substring as a string.
  public var urlString: String { String(self) }
}

extension URL: URLStringConvertible {
  /// The absolute string of the URL.
  public var urlString: String { absoluteString }
}
