import Foundation

/// The positional part of a command line, `[METHOD] URL [ITEM …]`, split into its parts.
///
/// ```swift
/// let line = try RequestLine(parsing: ["PUT", ":8080/boards/1", "title=Balsa", "X-Board:2"])
/// // line.method == "PUT", line.url == "http://localhost:8080/boards/1", two items
/// ```
public struct RequestLine: Hashable, Sendable {
  /// The method as given (upper-cased), or `nil` when it is left to be inferred.
  public var method: String?
  /// The URL, completed: `http://` added when there is no scheme, `localhost` for the `:port/path` shorthand.
  public var url: String
  /// The items, in order.
  public var items: [RequestItem]

  /// Splits the arguments.
  /// - Parameter arguments: The positional arguments, method first when there is one.
  /// - Throws: ``SurfError`` when there is no URL or an item does not parse.
  public init(parsing arguments: [String]) throws(SurfError) {
    var rest = arguments[...]
    // A method is a first argument of letters only followed by more (`surf localhost` is a URL).
    if let first = rest.first, rest.count > 1, Self.looksLikeMethod(first) {
      method = first.uppercased()
      rest = rest.dropFirst()
    } else {
      method = nil
    }
    guard let url = rest.first else { throw SurfError.usage("no URL given: surf [METHOD] URL [ITEM …]") }
    self.url = Self.complete(url)
    var items: [RequestItem] = []
    for argument in rest.dropFirst() {
      items.append(try RequestItem(parsing: argument))
    }
    self.items = items
  }

  private static func looksLikeMethod(_ text: String) -> Bool {
    !text.isEmpty && text.allSatisfy { $0.isASCII && $0.isLetter }
  }

  /// Completes a URL as HTTPie does: `:8080/x` and `:/x` are localhost, a URL without a scheme gets `http://`.
  /// - Parameter url: The URL as given.
  /// - Returns: The completed URL.
  public static func complete(_ url: String) -> String {
    if url.hasPrefix(":") {
      let rest = url.dropFirst()
      let port = rest.prefix { $0.isNumber }
      let path = rest.dropFirst(port.count)
      let host = port.isEmpty ? "localhost" : "localhost:\(port)"
      return "http://\(host)\(path.hasPrefix("/") ? String(path) : "/\(path)")"
    }
    if let schemeEnd = url.range(of: "://"),
      url[..<schemeEnd.lowerBound].allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) })
    {
      return url
    }
    return "http://\(url)"
  }

  /// The method to send: the one given, else `POST` when there is a body and `GET` when there is none.
  /// - Parameter hasBody: Whether a body is sent (items or standard input).
  /// - Returns: The method's name.
  public func effectiveMethod(hasBody: Bool) -> String {
    method ?? (hasBody ? "POST" : "GET")
  }
}
