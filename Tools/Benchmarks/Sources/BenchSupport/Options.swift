import Foundation

/// The command line of one measurement.
package struct Options: Sendable {
  package static let usage = """
    usage: bench-client <contender> <workload> --base URL [--requests N] [--concurrency N] [--bytes N] \
    [--file PATH] [--out PATH] [--max-seconds S] [--request-fields facade] [--plan PATH] [--ca PATH] [--pool N]
    """

  package var contender: String
  package var workload: String
  /// `http://127.0.0.1:PORT`, the runner's nginx.
  package var base = "http://127.0.0.1:8080"
  package var requests = 1000
  package var concurrency = 1
  /// The byte count every response body must have (decoded, for gzip-decode).
  package var bytes = -1
  package var file: String?
  package var out: String?
  /// A GET workload stops starting requests after this long; its rate is then over the requests done.
  package var maxSeconds: Double?
  /// With `true` (`--request-fields facade`), the direct-transport contenders send the facade's default header fields
  /// (`DefaultHeaders.fields`) with every request, so that they put the same bytes on the wire as the `facade-`
  /// contenders and a comparison by hand measures the facade's own work alone. Off in `make bench`.
  package var sendsFacadeFields = false
  /// `api-mix`: the request plan (see ``ApiCall``).
  package var plan: String?
  /// The CA file that signed an https `base`'s certificate; the clients trust it.
  package var caFile: String?
  /// `fan-out`: the connections the client's pool may open to the host (the workload's concurrency otherwise).
  package var pool: Int?

  package init(_ arguments: [String]) throws(UsageError) {
    guard arguments.count >= 2 else { throw UsageError("missing <contender> <workload>") }
    contender = arguments[0]
    workload = arguments[1]
    var index = 2
    while index < arguments.count {
      guard index + 1 < arguments.count else { throw UsageError("\(arguments[index]) needs a value") }
      let value = arguments[index + 1]
      switch arguments[index] {
      case "--base": base = value
      case "--requests": requests = try Self.positive(value, arguments[index])
      case "--concurrency": concurrency = try Self.positive(value, arguments[index])
      case "--bytes": bytes = Int(value) ?? -1
      case "--file": file = value
      case "--out": out = value
      case "--plan": plan = value
      case "--ca": caFile = value
      case "--pool": pool = try Self.positive(value, arguments[index])
      case "--max-seconds": maxSeconds = Double(value).flatMap { $0 > 0 ? $0 : nil }
      case "--request-fields":
        guard value == "facade" || value == "none" else { throw UsageError("--request-fields is facade or none") }
        sendsFacadeFields = value == "facade"
      default: throw UsageError("unknown option \(arguments[index])")
      }
      index += 2
    }
  }

  /// `http` or `https`: the scheme of ``base``.
  package var scheme: String {
    base.hasPrefix("https:") ? "https" : "http"
  }

  /// `host:port` of ``base``, for building `HTTPRequest`s.
  package var authority: String {
    String(base.drop { $0 != "/" }.drop { $0 == "/" })
  }

  private static func positive(_ value: String, _ name: String) throws(UsageError) -> Int {
    guard let number = Int(value), number > 0 else { throw UsageError("\(name) must be a positive integer") }
    return number
  }
}

/// A command line that cannot be run.
package struct UsageError: Error, CustomStringConvertible {
  package let description: String

  init(_ description: String) {
    self.description = description
  }
}
