import Foundation
import MalibuTransport
import Testing

/// The one HTTP-date parser of the package, read by the cache (`Date`, `Expires`) and the retry step (`Retry-After`).
@Suite struct HTTPDateTests {
  @Test(
    arguments: [
      ("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777.0),
      ("Sunday, 06-Nov-94 08:49:37 GMT", 784_111_777.0),
      ("Sun Nov  6 08:49:37 1994", 784_111_777.0),
      ("Thu, 29 Feb 2024 23:59:60 GMT", 1_709_251_200.0),
      ("0", nil),
      ("-1", nil),
      ("", nil),
      ("120", nil),
      ("Sun, 06 Nov 1994 08:49:37 CET", nil),
      ("Sun, 06 Foo 1994 08:49:37 GMT", nil),
      ("Sun, 32 Nov 1994 08:49:37 GMT", nil),
      ("Sun, 06 Nov 1994 24:00:00 GMT", nil),
    ] as [(String, Double?)]
  )
  func httpDates(text: String, seconds: Double?) {
    #expect(HTTPDate.parse(text)?.timeIntervalSince1970 == seconds)
  }
}
