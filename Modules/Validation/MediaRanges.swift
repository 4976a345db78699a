import MalibuCore

/// A parsed list of expected media ranges (`application/json`, `text/*;q=0`, `*/*`) and the rule that decides
/// whether a concrete media type is acceptable.
///
/// The rule follows RFC 9110 §12.5.1: of the ranges that match the type, the most specific one decides
/// (`type/subtype` over `type/*` over `*/*`); among equally specific ones the highest quality wins; the type is
/// acceptable when that quality is above zero. Parameters other than `q` play no part.
struct MediaRanges: Sendable {
  /// Why a media type was or wasn't acceptable.
  enum Verdict: Equatable {
    /// A range with a positive quality matched.
    case accepted
    /// The deciding range has quality 0.
    case excluded(by: MediaType)
    /// No range matched.
    case unmatched
  }

  let ranges: [MediaType]

  /// `*/*`: every type is acceptable (what a request without `Accept` asks for).
  static let anyType = MediaRanges(valid: [MediaType(type: "*", subtype: "*")])

  private init(valid ranges: [MediaType]) {
    self.ranges = ranges
  }

  /// Parses and checks ranges.
  /// - Parameters:
  ///   - texts: Media ranges, each possibly a comma-separated list.
  ///   - allowEmpty: Whether an element without any range is allowed (an empty `Accept` value) or an error.
  ///   - origin: Names the source in error messages, such as "the request's Accept header".
  /// - Throws: ``NetworkError`` with code `.invalidContentType` when an element is not a list of media ranges.
  init(parsing texts: [String], allowEmpty: Bool, origin: String) throws(NetworkError) {
    var ranges: [MediaType] = []
    for text in texts {
      let before = ranges.count
      do {
        try MediaType.parseList(text, appendingTo: &ranges)
      } catch {
        throw NetworkError(
          code: .invalidContentType,
          message: "\(origin) is invalid: \(error.message)",
          underlyingError: error
        )
      }
      if ranges.count == before && !allowEmpty {
        throw NetworkError(code: .invalidContentType, message: "\(origin) is invalid: '\(text)' names no media type")
      }
    }
    try self.init(checking: ranges, origin: origin)
  }

  /// Checks already-parsed ranges.
  /// - Throws: ``NetworkError`` with code `.invalidContentType` for a range such as `*/json`.
  init(checking ranges: [MediaType], origin: String) throws(NetworkError) {
    for range in ranges where range.type == "*" && range.subtype != "*" {
      throw NetworkError(
        code: .invalidContentType,
        message: "\(origin) is invalid: '\(range)' is not a media range (a wildcard type needs a wildcard subtype)"
      )
    }
    self.ranges = ranges
  }

  /// Decides whether a concrete media type is acceptable.
  /// - Parameter type: The response's media type.
  /// - Returns: The verdict, naming the excluding range when there is one.
  func verdict(for type: MediaType) -> Verdict {
    var deciding: MediaType?
    for range in ranges where range.matches(type) {
      guard let current = deciding else {
        deciding = range
        continue
      }
      let specificity = Self.specificity(of: range)
      let currentSpecificity = Self.specificity(of: current)
      if specificity > currentSpecificity || (specificity == currentSpecificity && range.quality > current.quality) {
        deciding = range
      }
    }
    guard let deciding else { return .unmatched }
    return deciding.quality > 0 ? .accepted : .excluded(by: deciding)
  }

  /// Whether every media type is acceptable, so that a response which names none can pass: a `*/*` range with a
  /// positive quality, and no range with quality 0.
  var acceptsAnyType: Bool {
    var anyQuality = 0.0
    for range in ranges {
      let quality = range.quality
      if quality == 0 { return false }
      if range.type == "*" && range.subtype == "*" { anyQuality = max(anyQuality, quality) }
    }
    return anyQuality > 0
  }

  private static func specificity(of range: MediaType) -> Int {
    if range.type == "*" { return 0 }
    return range.subtype == "*" ? 1 : 2
  }
}
