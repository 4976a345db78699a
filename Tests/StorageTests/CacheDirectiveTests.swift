import Foundation
import HTTPTypes
import MalibuCore
import MalibuTransport
import Testing

@testable import MalibuStorage

/// What the second of two identical requests met.
enum CacheOutcome: Sendable {
  /// Answered from the cache without a request.
  case hit
  /// Sent with the stored validator and answered from the cache after a `304`.
  case revalidated
  /// Nothing was stored: sent again without a validator, answered by the network.
  case notStored
  /// Refused with `cacheMiss`, without a request.
  case cacheMiss
}

/// One row of a directive table: the fields of both responses and both requests, the time between the two requests,
/// the second request's policy, and the outcome. `{now}`, `{now+N}` and `{now-N}` in a value become the HTTP date of
/// the first request's time, shifted by N seconds.
struct DirectiveCase: Sendable, CustomTestStringConvertible {
  var name: String
  var response: [(String, String)] = []
  var request: [(String, String)] = []
  var validator = true
  var wait: TimeInterval = 0
  var policy: CachePolicy = .useProtocolCachePolicy
  var expected: CacheOutcome

  var testDescription: String { name }
}

/// `date` as an IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`.
func httpDate(_ date: Date) -> String {
  let formatter = DateFormatter()
  formatter.locale = Locale(identifier: "en_US_POSIX")
  formatter.timeZone = TimeZone(identifier: "GMT")
  formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
  return formatter.string(from: date)
}

private func expand(_ value: String, at now: Date) -> String {
  guard value.hasPrefix("{now"), value.hasSuffix("}") else { return value }
  let offset = Double(value.dropFirst(4).dropLast().replacingOccurrences(of: "+", with: "")) ?? 0
  return httpDate(now.addingTimeInterval(offset))
}

@Suite struct CacheDirectiveTests {
  static let directives: [DirectiveCase] = [
    DirectiveCase(name: "max-age, fresh", response: [("Cache-Control", "max-age=60")], wait: 30, expected: .hit),
    DirectiveCase(
      name: "max-age, stale",
      response: [("Cache-Control", "max-age=60")],
      wait: 61,
      expected: .revalidated
    ),
    DirectiveCase(name: "private", response: [("Cache-Control", "private, max-age=60")], wait: 30, expected: .hit),
    DirectiveCase(name: "public", response: [("Cache-Control", "public, max-age=60")], wait: 30, expected: .hit),
    DirectiveCase(name: "no-cache", response: [("Cache-Control", "no-cache, max-age=60")], expected: .revalidated),
    DirectiveCase(
      name: "no-cache=\"field\" counts as no-cache",
      response: [("Cache-Control", "no-cache=\"Set-Cookie\", max-age=60")],
      expected: .revalidated
    ),
    DirectiveCase(name: "no-store", response: [("Cache-Control", "no-store, max-age=60")], expected: .notStored),
    DirectiveCase(
      name: "request no-store",
      response: [("Cache-Control", "max-age=60")],
      request: [("Cache-Control", "no-store")],
      expected: .notStored
    ),
    DirectiveCase(
      name: "request no-cache",
      response: [("Cache-Control", "max-age=60")],
      request: [("Cache-Control", "no-cache")],
      expected: .revalidated
    ),
    DirectiveCase(
      name: "request Pragma: no-cache",
      response: [("Cache-Control", "max-age=60")],
      request: [("Pragma", "no-cache")],
      expected: .revalidated
    ),
    DirectiveCase(
      name: "request max-age older than the entry",
      response: [("Cache-Control", "max-age=60")],
      request: [("Cache-Control", "max-age=10")],
      wait: 30,
      expected: .revalidated
    ),
    DirectiveCase(
      name: "request max-age younger than the entry",
      response: [("Cache-Control", "max-age=60")],
      request: [("Cache-Control", "max-age=10")],
      wait: 5,
      expected: .hit
    ),
    DirectiveCase(
      name: "s-maxage is ignored",
      response: [("Cache-Control", "s-maxage=600")],
      wait: 1,
      expected: .revalidated
    ),
    DirectiveCase(
      name: "s-maxage does not lengthen max-age",
      response: [("Cache-Control", "max-age=0, s-maxage=600")],
      wait: 1,
      expected: .revalidated
    ),
    DirectiveCase(
      name: "s-maxage does not shorten max-age",
      response: [("Cache-Control", "max-age=600, s-maxage=0")],
      wait: 30,
      expected: .hit
    ),
    DirectiveCase(
      name: "must-revalidate, fresh",
      response: [("Cache-Control", "must-revalidate, max-age=60")],
      wait: 30,
      expected: .hit
    ),
    DirectiveCase(
      name: "must-revalidate, stale",
      response: [("Cache-Control", "must-revalidate, max-age=60")],
      wait: 61,
      expected: .revalidated
    ),
    DirectiveCase(
      name: "malformed max-age is stale",
      response: [("Cache-Control", "max-age=soon")],
      wait: 1,
      expected: .revalidated
    ),
    DirectiveCase(
      name: "Expires, fresh",
      response: [("Date", "{now}"), ("Expires", "{now+60}")],
      wait: 30,
      expected: .hit
    ),
    DirectiveCase(
      name: "Expires, stale",
      response: [("Date", "{now}"), ("Expires", "{now+60}")],
      wait: 61,
      expected: .revalidated
    ),
    DirectiveCase(name: "Expires without Date", response: [("Expires", "{now+60}")], wait: 30, expected: .hit),
    DirectiveCase(
      name: "Expires counts from Date, not from reception",
      response: [("Date", "{now+100}"), ("Expires", "{now+130}")],
      wait: 40,
      expected: .revalidated
    ),
    DirectiveCase(
      name: "Expires from a Date ahead of the clock",
      response: [("Date", "{now+100}"), ("Expires", "{now+130}")],
      wait: 20,
      expected: .hit
    ),
    DirectiveCase(name: "invalid Expires is stale", response: [("Expires", "0")], expected: .revalidated),
    DirectiveCase(
      name: "two Expires are stale",
      response: [("Expires", "{now+60}"), ("Expires", "{now+60}")],
      expected: .revalidated
    ),
    DirectiveCase(
      name: "max-age wins over Expires",
      response: [("Cache-Control", "max-age=0"), ("Expires", "{now+600}")],
      wait: 1,
      expected: .revalidated
    ),
    DirectiveCase(
      name: "Age counts towards the age",
      response: [("Cache-Control", "max-age=60"), ("Age", "50")],
      wait: 20,
      expected: .revalidated
    ),
    DirectiveCase(
      name: "Age below the lifetime",
      response: [("Cache-Control", "max-age=60"), ("Age", "50")],
      wait: 5,
      expected: .hit
    ),
    DirectiveCase(
      name: "malformed Age is old",
      response: [("Cache-Control", "max-age=60"), ("Age", "young")],
      expected: .revalidated
    ),
    DirectiveCase(
      name: "an old Date makes it old",
      response: [("Cache-Control", "max-age=60"), ("Date", "{now-100}")],
      expected: .revalidated
    ),
    DirectiveCase(
      name: "fresh without a validator is stored",
      response: [("Cache-Control", "max-age=60")],
      validator: false,
      wait: 30,
      expected: .hit
    ),
    DirectiveCase(name: "neither validator nor lifetime", validator: false, expected: .notStored),
    DirectiveCase(name: "Vary: *", response: [("Cache-Control", "max-age=60"), ("Vary", "*")], expected: .notStored),
    DirectiveCase(
      name: "returnCacheDataElseLoad uses a stale entry",
      response: [("Cache-Control", "max-age=0")],
      wait: 10,
      policy: .returnCacheDataElseLoad,
      expected: .hit
    ),
    DirectiveCase(
      name: "returnCacheDataDontLoad uses a stale entry",
      response: [("Cache-Control", "max-age=0")],
      wait: 10,
      policy: .returnCacheDataDontLoad,
      expected: .hit
    ),
    DirectiveCase(
      name: "returnCacheDataElseLoad revalidates a stale must-revalidate",
      response: [("Cache-Control", "must-revalidate, max-age=0")],
      wait: 10,
      policy: .returnCacheDataElseLoad,
      expected: .revalidated
    ),
    DirectiveCase(
      name: "returnCacheDataDontLoad refuses a stale must-revalidate",
      response: [("Cache-Control", "must-revalidate, max-age=0")],
      wait: 10,
      policy: .returnCacheDataDontLoad,
      expected: .cacheMiss
    ),
    DirectiveCase(
      name: "returnCacheDataDontLoad uses a fresh must-revalidate",
      response: [("Cache-Control", "must-revalidate, max-age=600")],
      wait: 10,
      policy: .returnCacheDataDontLoad,
      expected: .hit
    ),
    DirectiveCase(
      name: "returnCacheDataElseLoad revalidates no-cache",
      response: [("Cache-Control", "no-cache")],
      policy: .returnCacheDataElseLoad,
      expected: .revalidated
    ),
    DirectiveCase(
      name: "returnCacheDataDontLoad refuses no-cache",
      response: [("Cache-Control", "no-cache")],
      policy: .returnCacheDataDontLoad,
      expected: .cacheMiss
    ),
  ]

  @Test(arguments: directives)
  func directive(_ row: DirectiveCase) async throws {
    let clock = TestClock()
    let start = clock.now
    let fields = row.response.map { ($0.0, expand($0.1, at: start)) } + (row.validator ? [("ETag", "\"v\"")] : [])
    let server = FakeTransport { request in
      if row.validator, request.headerFields[.ifNoneMatch] == "\"v\"" { return (responseHead(.notModified), Data()) }
      return (responseHead(.ok, fields), Data("body".utf8))
    }
    let cache = HTTPCache(now: { clock.now })
    let transport = server.with(middleware: [CacheMiddleware(cache: cache)])
    func send(_ policy: CachePolicy) async throws -> (HTTPResponse, String) {
      var head = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:9", path: "/boards")
      for (name, value) in row.request {
        head.headerFields.append(HTTPField(name: HTTPField.Name(name)!, value: value))
      }
      head.headerFields[CacheMiddleware.policyHeader] = policy.headerValue
      let response = try await transport.send(head, body: nil, options: TransferOptions())
      return (response.head, String(decoding: try await response.body.collect(upTo: 1 << 20), as: UTF8.self))
    }

    _ = try await send(.useProtocolCachePolicy)
    clock.advance(by: row.wait)
    switch row.expected {
    case .hit:
      let (head, body) = try await send(row.policy)
      #expect(head.headerFields[CacheMiddleware.statusHeader] == CacheMiddleware.hit)
      #expect(body == "body")
      #expect(server.requests.count == 1)
    case .revalidated:
      let (head, body) = try await send(row.policy)
      #expect(head.headerFields[CacheMiddleware.statusHeader] == CacheMiddleware.revalidated)
      #expect(body == "body")
      #expect(server.requests.count == 2)
      #expect(server.requests.last?.headerFields[.ifNoneMatch] == "\"v\"")
    case .notStored:
      #expect(cache.count == 0)
      let (head, body) = try await send(row.policy)
      #expect(head.headerFields[CacheMiddleware.statusHeader] == nil)
      #expect(body == "body")
      #expect(server.requests.count == 2)
      #expect(server.requests.last?.headerFields[.ifNoneMatch] == nil)
    case .cacheMiss:
      await #expect {
        _ = try await send(row.policy)
      } throws: { error in
        (error as? StorageError)?.code == .cacheMiss
          && (error as? StorageError)?.message.contains("must be revalidated") == true
      }
      #expect(server.requests.count == 1)
      // The same cache then serves a request that may load.
      let (head, _) = try await send(.useProtocolCachePolicy)
      #expect(head.headerFields[CacheMiddleware.statusHeader] == CacheMiddleware.revalidated)
    }
  }

  /// A hit carries its current age, counting the `Age` it arrived with; the same `Age` makes it stale later.
  @Test func ageHeaderMakesTheResponseStale() async throws {
    let clock = TestClock()
    let server = FakeTransport { request in
      if request.headerFields[.ifNoneMatch] == "\"v\"" { return (responseHead(.notModified), Data()) }
      return (responseHead(.ok, [("ETag", "\"v\""), ("Cache-Control", "max-age=60"), ("Age", "50")]), Data("x".utf8))
    }
    let transport = server.with(middleware: [CacheMiddleware(cache: HTTPCache(now: { clock.now }))])
    let head = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:9", path: "/boards")
    _ = try await transport.send(head, body: nil, options: TransferOptions()).body.collect(upTo: 1 << 20)
    clock.advance(by: 5)
    let hit = try await transport.send(head, body: nil, options: TransferOptions())
    #expect(hit.head.headerFields[CacheMiddleware.statusHeader] == CacheMiddleware.hit)
    #expect(hit.head.headerFields[.age] == "55")
    clock.advance(by: 6)
    let stale = try await transport.send(head, body: nil, options: TransferOptions())
    #expect(stale.head.headerFields[CacheMiddleware.statusHeader] == CacheMiddleware.revalidated)
    #expect(server.requests.count == 2)
  }

  /// `Vary` on a field of the application's own: only a request with the stored request's value (or, when it had
  /// none, also none) is answered from the entry; any other goes to the network without the entry's validator.
  @Test(
    arguments: [
      ("balsa", "balsa", true),
      ("balsa", "foam", false),
      ("balsa", nil, false),
      (nil, nil, true),
      (nil, "balsa", false),
      ("", nil, false),
    ] as [(String?, String?, Bool)]
  )
  func varyOnACustomField(first: String?, second: String?, hit: Bool) async throws {
    let name = HTTPField.Name("X-Board-Type")!
    let server = FakeTransport { request in
      let body = "for " + (request.headerFields[name] ?? "none")
      return (
        responseHead(.ok, [("ETag", "\"v\""), ("Cache-Control", "max-age=600"), ("Vary", "X-Board-Type")]),
        Data(body.utf8)
      )
    }
    let transport = server.with(middleware: [CacheMiddleware(cache: HTTPCache())])
    func send(_ value: String?) async throws -> (HTTPResponse, String) {
      var head = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:9", path: "/boards")
      if let value { head.headerFields[name] = value }
      let response = try await transport.send(head, body: nil, options: TransferOptions())
      return (response.head, String(decoding: try await response.body.collect(upTo: 1 << 20), as: UTF8.self))
    }
    _ = try await send(first)
    let (head, body) = try await send(second)
    #expect(body == "for " + (second ?? "none"))
    if hit {
      #expect(head.headerFields[CacheMiddleware.statusHeader] == CacheMiddleware.hit)
      #expect(server.requests.count == 1)
    } else {
      #expect(head.headerFields[CacheMiddleware.statusHeader] == nil)
      #expect(server.requests.count == 2)
      #expect(server.requests[1].headerFields[.ifNoneMatch] == nil)
    }
  }

  /// Every field `Vary` names must match, over several `Vary` lines, not only `Accept-Encoding`.
  @Test(arguments: [
    ([("Accept-Encoding", "gzip"), ("X-Board-Type", "balsa"), ("Accept-Language", "en")], true),
    ([("Accept-Encoding", "gzip"), ("X-Board-Type", "balsa"), ("Accept-Language", "fr")], false),
    ([("Accept-Encoding", "br"), ("X-Board-Type", "balsa"), ("Accept-Language", "en")], false),
    ([("Accept-Encoding", "gzip"), ("Accept-Language", "en")], false),
    (
      [("Accept-Language", "en"), ("X-Board-Type", "balsa"), ("Accept-Encoding", "gzip"), ("User-Agent", "other")], true
    ),
  ])
  func everyVaryFieldMustMatch(second: [(String, String)], hit: Bool) async throws {
    let server = FakeTransport { _ in
      let fields = [
        ("ETag", "\"v\""), ("Cache-Control", "max-age=600"), ("Vary", "accept-encoding, X-Board-Type"),
        ("Vary", "Accept-Language"),
      ]
      return (responseHead(.ok, fields), Data("x".utf8))
    }
    let transport = server.with(middleware: [CacheMiddleware(cache: HTTPCache())])
    func send(_ fields: [(String, String)]) async throws -> HTTPResponse {
      var head = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:9", path: "/boards")
      for (name, value) in fields { head.headerFields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
      let response = try await transport.send(head, body: nil, options: TransferOptions())
      _ = try await response.body.collect(upTo: 1 << 20)
      return response.head
    }
    _ = try await send([("Accept-Encoding", "gzip"), ("X-Board-Type", "balsa"), ("Accept-Language", "en")])
    let head = try await send(second)
    #expect((head.headerFields[CacheMiddleware.statusHeader] == CacheMiddleware.hit) == hit)
    #expect(server.requests.count == (hit ? 1 : 2))
  }
}
