public import MalibuCore

/// Accepts a response whose status code is one of a given set, such as `200..<300` or `[200, 204]`.
///
/// The codes are read once, when the validator is made, and kept as sorted, merged runs, so the validator is
/// `Sendable` whatever sequence it was built from. `Range`, `ClosedRange` and `PartialRangeFrom` are taken as
/// bounds without being iterated, so `StatusCodeValidator(200...)` is cheap; any other sequence must be finite.
///
/// ```swift
/// let validator = StatusCodeValidator(200..<300)
/// try validator.validate(response)   // NetworkError.unacceptableStatusCode: status 404 is not one of 200..<300
/// ```
public struct StatusCodeValidator: Validating, CustomStringConvertible {
  /// The accepted codes as sorted, non-overlapping, non-adjacent runs.
  private let runs: [ClosedRange<Int>]

  /// Creates a validator accepting the given status codes.
  /// - Parameter statusCodes: The accepted codes: a range, an array, a set, or any other finite sequence.
  public init(_ statusCodes: some Sequence<Int>) {
    runs = Self.runs(of: statusCodes)
  }

  /// Accepts the successful codes, `200..<300`.
  public static let successful = StatusCodeValidator(200..<300)

  /// Whether a status code is accepted.
  /// - Parameter statusCode: The code, such as `404`.
  /// - Returns: `true` when the code is one of the accepted ones.
  public func accepts(_ statusCode: Int) -> Bool {
    var low = 0
    var high = runs.count
    while low < high {
      let middle = (low + high) / 2
      if runs[middle].upperBound < statusCode {
        low = middle + 1
      } else {
        high = middle
      }
    }
    return low < runs.count && runs[low].contains(statusCode)
  }

  /// Checks the response's status code.
  /// - Parameter response: The response to check.
  /// - Throws: ``/MalibuCore/NetworkError`` with code ``/MalibuCore/NetworkError/Code/unacceptableStatusCode`` and
  ///   the response attached when its code is not accepted.
  public func validate(_ response: Response) throws(NetworkError) {
    guard !accepts(response.statusCode) else { return }
    let message =
      runs.isEmpty
      ? "status \(response.statusCode) is not accepted: no status code is"
      : "status \(response.statusCode) is not one of \(description)"
    throw NetworkError(code: .unacceptableStatusCode, message: message, response: response)
  }

  /// The accepted codes, such as `200..<300` or `200, 204`; runs of three codes or more are written as ranges.
  public var description: String {
    guard !runs.isEmpty else { return "(none)" }
    return runs.map { run in
      if run.lowerBound == run.upperBound { return "\(run.lowerBound)" }
      if run.upperBound == Int.max { return "\(run.lowerBound)..." }
      if run.lowerBound &+ 1 == run.upperBound { return "\(run.lowerBound), \(run.upperBound)" }
      return "\(run.lowerBound)..<\(run.upperBound + 1)"
    }
    .joined(separator: ", ")
  }

  private static func runs(of codes: some Sequence<Int>) -> [ClosedRange<Int>] {
    if let range = codes as? Range<Int> {
      return range.isEmpty ? [] : [range.lowerBound...(range.upperBound - 1)]
    }
    if let range = codes as? ClosedRange<Int> { return [range] }
    if let range = codes as? PartialRangeFrom<Int> { return [range.lowerBound...Int.max] }
    var runs: [ClosedRange<Int>] = []
    for code in Set(codes).sorted() {
      if let last = runs.last, last.upperBound &+ 1 == code, last.upperBound != Int.max {
        runs[runs.count - 1] = last.lowerBound...code
      } else {
        runs.append(code...code)
      }
    }
    return runs
  }
}
