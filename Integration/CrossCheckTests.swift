import Foundation
import HTTPTypes
import MalibuTransport
import Testing

/// The two transports must agree on status, header fields and decoded body for the same requests.
///
/// Both send the same explicit Accept, Accept-Encoding, Accept-Language and User-Agent, so echoed headers match too.
/// `Connection` is the transports' own (a caller's never reaches the wire): URLSession on Linux sends
/// `Connection: keep-alive`, curl none, so httpbin's echo of it is left out of the comparison, with the
/// Content-Length that counts it. Fields that differ by nature are ignored: Date, Server, Connection and Keep-Alive.
@Suite("Cross-check: curl and URLSession agree", .serialized)
struct CrossCheckTests {
  static let ignored: Set<String> = ["date", "server", "connection", "keep-alive", "content-length"]
  static let headers = [
    "Accept": "*/*", "Accept-Encoding": "gzip, deflate", "Accept-Language": "en", "User-Agent": "Malibu-Test",
  ]

  struct Probe: Sendable, CustomTestStringConvertible {
    let method: HTTPRequest.Method
    let server: String
    let path: String
    let body: String?
    var testDescription: String { "\(method) \(server)\(path)" }
  }

  static let probes: [Probe] = [
    Probe(method: .get, server: "httpbin", path: "/get?board=balsa", body: nil),
    Probe(method: .get, server: "httpbin", path: "/headers", body: nil),
    Probe(method: .post, server: "httpbin", path: "/anything", body: "{\"title\":\"Balsa\"}"),
    Probe(method: .put, server: "httpbin", path: "/anything/boards/1", body: "type=1"),
    Probe(method: .get, server: "httpbin", path: "/gzip", body: nil),
    Probe(method: .get, server: "httpbin", path: "/deflate", body: nil),
    Probe(method: .get, server: "httpbin", path: "/status/418", body: nil),
    Probe(method: .get, server: "httpbin", path: "/status/204", body: nil),
    Probe(method: .get, server: "httpbin", path: "/encoding/utf8", body: nil),
    Probe(method: .get, server: "httpbin", path: "/response-headers?X-Board=balsa", body: nil),
    Probe(method: .get, server: "httpbin", path: "/redirect/2", body: nil),
    Probe(method: .get, server: "httpbin", path: "/bytes/1000?seed=3", body: nil),
    Probe(method: .get, server: "nginx", path: "/1k.bin", body: nil),
    Probe(method: .get, server: "nginx", path: "/1m.bin", body: nil),
    Probe(method: .head, server: "nginx", path: "/identity/1m.bin", body: nil),
  ]

  @Test(arguments: probes)
  func transportsAgree(_ probe: Probe) async throws {
    let url = try await probe.server == "httpbin" ? Servers.httpbin(probe.path) : Servers.nginx(probe.path)
    var results: [Exchange] = []
    for backend in Backend.allCases {
      results.append(
        try await backend.exchange(
          probe.method,
          url,
          headers: Self.headers,
          body: probe.body.map { .data(Data($0.utf8)) }
        )
      )
    }
    let curl = results[0]
    let session = results[1]
    #expect(curl.status == session.status)
    #expect(fields(curl.head) == fields(session.head))
    #expect(withoutEchoedConnection(curl.data) == withoutEchoedConnection(session.data))
    #expect(curl.url == session.url)
    for exchange in results where probe.method != .head {
      if let length = exchange.head.headerFields[.contentLength] { #expect(Int(length) == exchange.data.count) }
    }
  }

  /// httpbin's JSON echo without the `Connection` request header it reports; any other body as it is.
  private func withoutEchoedConnection(_ data: Data) -> Data {
    guard var object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      var headers = object["headers"] as? [String: Any]
    else { return data }
    headers["Connection"] = nil
    object["headers"] = headers
    return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? data
  }

  private func fields(_ head: HTTPResponse) -> [String: [String]] {
    var result: [String: [String]] = [:]
    for field in head.headerFields where !Self.ignored.contains(field.name.canonicalName) {
      result[field.name.canonicalName, default: []].append(field.value)
    }
    return result
  }
}
