public import HTTPTypes

extension MockTransport {
  /// Which request paths a stub answers: an exact path, a pattern of segments with `*` wildcards, or a predicate.
  ///
  /// A string literal is an exact path unless one of its segments is `*` (any one segment) or `**` (any number of
  /// segments, none included), which makes it a pattern:
  ///
  /// ```swift
  /// transport.stub(.get, "/boards", status: .ok)              // exactly /boards
  /// transport.stub(.get, "/boards/*", status: .ok)            // /boards/1, /boards/abc
  /// transport.stub(.get, "/files/**", status: .ok)            // /files, /files/a/b/c
  /// transport.stub(.get, .matching { $0.path?.hasSuffix(".json") == true }, status: .ok)
  /// ```
  ///
  /// Paths and patterns are compared without the query (`?…`) and fragment, unless the pattern itself contains a
  /// `?`: then the request's full path with its query must equal it.
  public struct PathPattern: Sendable, ExpressibleByStringLiteral {
    private enum Kind: Sendable {
      case exact(String)
      case segments([String])
      case predicate(@Sendable (HTTPRequest) -> Bool)
    }

    private let kind: Kind

    private init(kind: Kind) {
      self.kind = kind
    }

    /// A path or a pattern, as described on the type.
    /// - Parameter value: The path or pattern.
    public init(stringLiteral value: String) {
      self = Self.path(value)
    }

    /// A path or a pattern from a string, as described on the type.
    /// - Parameter path: The path or pattern.
    /// - Returns: The pattern.
    public static func path(_ path: String) -> PathPattern {
      let segments = Self.segments(of: path)
      if !path.contains("?"), segments.contains(where: { $0 == "*" || $0 == "**" }) {
        return PathPattern(kind: .segments(segments))
      }
      return PathPattern(kind: .exact(path))
    }

    /// A path matched literally, even if a segment is `*`.
    /// - Parameter path: The path.
    /// - Returns: The pattern.
    public static func exact(_ path: String) -> PathPattern {
      PathPattern(kind: .exact(path))
    }

    /// Any request for which `predicate` returns `true`.
    /// - Parameter predicate: Decides from the whole request head (path, query, header fields).
    /// - Returns: The pattern.
    public static func matching(_ predicate: @escaping @Sendable (HTTPRequest) -> Bool) -> PathPattern {
      PathPattern(kind: .predicate(predicate))
    }

    /// Every path.
    public static var any: PathPattern { PathPattern(kind: .segments(["**"])) }

    /// Whether the request's path matches.
    /// - Parameter request: The request.
    /// - Returns: `true` when the stub should answer it.
    public func matches(_ request: HTTPRequest) -> Bool {
      let full = request.path ?? ""
      switch kind {
      case .predicate(let predicate):
        return predicate(request)
      case .exact(let path):
        if path.contains("?") { return full == path }
        return Self.trimmed(full) == path
      case .segments(let pattern):
        return Self.match(pattern[...], Self.segments(of: Self.trimmed(full))[...])
      }
    }

    private static func trimmed(_ path: String) -> String {
      String(path.prefix { $0 != "?" && $0 != "#" })
    }

    private static func segments(of path: String) -> [String] {
      path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    private static func match(_ pattern: ArraySlice<String>, _ path: ArraySlice<String>) -> Bool {
      guard let head = pattern.first else { return path.isEmpty }
      if head == "**" {
        let rest = pattern.dropFirst()
        var remaining = path
        while true {
          if match(rest, remaining) { return true }
          guard !remaining.isEmpty else { return false }
          remaining = remaining.dropFirst()
        }
      }
      guard let segment = path.first, head == "*" || head == segment else { return false }
      return match(pattern.dropFirst(), path.dropFirst())
    }
  }
}
