public import Foundation

/// A request as the test server received it, byte for byte.
public struct RecordedRequest: Sendable {
  /// The method, as sent.
  public var method: String
  /// The request target (path and query), as sent.
  public var target: String
  /// Header lines in the order received: (name as sent, value).
  public var headers: [Header]
  /// The body, de-chunked (empty for `/sink`, whose body is counted, not kept).
  public var body: Data
  /// How many body bytes arrived.
  public var bodyLength: Int
  /// The request line and header lines exactly as received, up to and including the empty line.
  public var rawHead: Data
  /// Whether the body came with `Transfer-Encoding: chunked`.
  public var wasChunked: Bool

  /// One header line.
  public struct Header: Sendable, Equatable {
    /// The name, as sent.
    public var name: String
    /// The value, without surrounding white space.
    public var value: String
  }

  /// The target without its query.
  public var path: String { String(target.split(separator: "?", maxSplits: 1).first ?? "") }

  /// The values of every header line with this name (case-insensitive).
  /// - Parameter name: a header name.
  /// - Returns: the values, in the order received.
  public func values(_ name: String) -> [String] {
    headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
  }

  /// The value of the first header line with this name (case-insensitive).
  /// - Parameter name: a header name.
  /// - Returns: the value, or `nil` when there is no such line.
  public func value(_ name: String) -> String? { values(name).first }
}
