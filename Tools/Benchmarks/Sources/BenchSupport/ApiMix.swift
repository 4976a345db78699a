package import Foundation

/// One request of the `api-mix` plan (`Scripts/bench.py` writes it, one request a line, tab-separated: method, path
/// with query, expected body bytes, expected decoded records, `X-Request-Id`, `Accept-Language`, JSON body or `-`).
package struct ApiCall: Sendable {
  package var isPost: Bool
  /// Path and query, joined to `--base`.
  package var path: String
  /// The response body's byte count (the transfer-only contenders check it).
  package var bytes: Int
  /// The records the response decodes into: the items of a GET, 1 (the receipt) for a POST.
  package var records: Int
  package var requestID: String
  package var language: String
  /// The JSON order of a POST, as the plan has it (sent as it is by the transfer-only contenders).
  package var body: Data?
  /// The same order decoded, for the contenders that encode a `Codable` value per request.
  package var order: Order?

  /// Reads the plan at `path`.
  package static func plan(_ path: String) throws -> [ApiCall] {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    let calls = try text.split(separator: "\n").map { line throws -> ApiCall in
      let field = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
      guard field.count == 7, let bytes = Int(field[2]), let records = Int(field[3]) else {
        throw BenchError("malformed plan line: \(line.prefix(120))")
      }
      let body = field[6] == "-" ? nil : Data(field[6].utf8)
      return ApiCall(
        isPost: field[0] == "POST",
        path: field[1],
        bytes: bytes,
        records: records,
        requestID: field[4],
        language: field[5],
        body: body,
        order: try body.map { try JSONDecoder().decode(Order.self, from: $0) }
      )
    }
    guard !calls.isEmpty else { throw BenchError("empty plan \(path)") }
    return calls
  }
}

/// What a contender got from one ``ApiCall``: the body's byte count (transfer only) or the decoded records.
package struct ApiAnswer: Sendable {
  package var bytes: Int?
  package var records: Int?

  package static func transferred(_ bytes: Int) -> ApiAnswer { ApiAnswer(bytes: bytes) }
  package static func decoded(_ records: Int) -> ApiAnswer { ApiAnswer(records: records) }

  /// Whether the answer is the one the plan expects.
  func matches(_ call: ApiCall) -> Bool {
    switch (bytes, records) {
    case (let bytes?, _): bytes == call.bytes
    case (nil, let records?): records == call.records
    case (nil, nil): false
    }
  }
}

/// One record of an `api-mix` JSON response (`Scripts/bench.py`'s `json_document`).
package struct Item: Codable, Sendable {
  package struct Location: Codable, Sendable {
    package var lat: Double
    package var lon: Double
  }

  package var id: Int
  package var uuid: String
  package var name: String
  package var score: Double
  package var active: Bool
  package var tags: [String]
  package var location: Location
  package var note: String?
}

/// The JSON body of an `api-mix` POST.
package struct Order: Codable, Sendable {
  package var sku: String
  package var quantity: Int
  package var note: String
}

/// nginx's answer to an `api-mix` POST.
package struct Receipt: Codable, Sendable {
  package var accepted: Bool
  package var queue: String
  package var eta: Int
}

/// CPU time of this process (user + system, all threads), in seconds.
package func processCPUSeconds() -> Double {
  var usage = rusage()
  getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
  return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
    + Double(usage.ru_stime.tv_usec) / 1e6
}
