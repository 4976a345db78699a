package import Foundation

/// Parses the three HTTP-date forms of RFC 9110 §5.6.7 (`Sun, 06 Nov 1994 08:49:37 GMT`, the obsolete
/// `Sunday, 06-Nov-94 08:49:37 GMT` and asctime's `Sun Nov  6 08:49:37 1994`) without a formatter, so that it is
/// cheap and safe from any thread. Anything else (`0`, `-1`, an empty value) is `nil`.
///
/// The one parser of the package: the cache reads `Date` and `Expires` with it, the retry step `Retry-After`.
package enum HTTPDate {
  private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

  /// The instant an HTTP-date names.
  /// - Parameter text: A field value.
  /// - Returns: The date, or `nil` when `text` is none of the three forms.
  package static func parse(_ text: String) -> Date? {
    let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
    switch words.count {
    case 6 where words[5] == "GMT":  // Sun, 06 Nov 1994 08:49:37 GMT
      guard words[0].hasSuffix(","), let day = Int(words[1]), let month = month(words[2]),
        let year = Int(words[3]), words[3].count == 4
      else { return nil }
      return date(year: year, month: month, day: day, time: words[4])
    case 4 where words[3] == "GMT":  // Sunday, 06-Nov-94 08:49:37 GMT
      let parts = words[1].split(separator: "-").map(String.init)
      guard words[0].hasSuffix(","), parts.count == 3, let day = Int(parts[0]), let month = month(parts[1]),
        let shortYear = Int(parts[2]), parts[2].count == 2
      else { return nil }
      // RFC 9110: a two-digit year more than 50 years in the future is in the past century.
      return date(year: shortYear < 70 ? 2000 + shortYear : 1900 + shortYear, month: month, day: day, time: words[2])
    case 5:  // Sun Nov  6 08:49:37 1994
      guard let month = month(words[1]), let day = Int(words[2]), let year = Int(words[4]), words[4].count == 4
      else { return nil }
      return date(year: year, month: month, day: day, time: words[3])
    default:
      return nil
    }
  }

  private static func month(_ name: String) -> Int? {
    months.firstIndex(of: name.lowercased()).map { $0 + 1 }
  }

  private static func date(year: Int, month: Int, day: Int, time: String) -> Date? {
    let clock = time.split(separator: ":").map { Int($0) }
    guard clock.count == 3, let hour = clock[0], let minute = clock[1], let second = clock[2],
      (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second), (1...31).contains(day),
      (1...9999).contains(year)
    else { return nil }
    // Days from the civil date (proleptic Gregorian), after Howard Hinnant's algorithm.
    let shifted = month <= 2 ? year - 1 : year
    let era = shifted / 400
    let yearOfEra = shifted - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    let days = era * 146_097 + dayOfEra - 719_468
    return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3_600 + minute * 60 + second))
  }
}
