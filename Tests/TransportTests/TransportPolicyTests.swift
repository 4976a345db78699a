import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuCore
import Testing

@testable import MalibuTransport

@Suite("HTTPS-only policy and proxy settings")
struct TransportPolicyTests {
  struct SchemeCase: Sendable, CustomTestStringConvertible {
    let policy: InsecureHTTPPolicy
    let url: String
    /// The URL sent, or `nil` for a refusal.
    let sent: String?
    var testDescription: String { "\(policy) \(url)" }
  }

  static let schemeCases: [SchemeCase] = [
    SchemeCase(policy: .allow, url: "http://example.com/a?b=1", sent: "http://example.com/a?b=1"),
    SchemeCase(policy: .allow, url: "https://example.com/a", sent: "https://example.com/a"),
    SchemeCase(policy: .refuse, url: "http://example.com/a?token=1", sent: nil),
    SchemeCase(policy: .refuse, url: "HTTP://example.com/a", sent: nil),
    SchemeCase(policy: .refuse, url: "https://example.com/a", sent: "https://example.com/a"),
    SchemeCase(policy: .upgrade, url: "http://example.com/a?b=1", sent: "https://example.com/a?b=1"),
    SchemeCase(policy: .upgrade, url: "http://example.com:80/a", sent: "https://example.com/a"),
    SchemeCase(policy: .upgrade, url: "http://example.com:8080/a", sent: "https://example.com:8080/a"),
    SchemeCase(policy: .upgrade, url: "http://[::1]:80/", sent: "https://[::1]/"),
    SchemeCase(policy: .upgrade, url: "https://example.com/a", sent: "https://example.com/a"),
  ]

  @Test(arguments: schemeCases)
  func requestsFollowThePolicy(_ testCase: SchemeCase) throws {
    let request = HTTPRequest(method: .get, url: try #require(URL(string: testCase.url)))
    do {
      let sent = try testCase.policy.apply(to: request)
      #expect(sent.url?.absoluteString == testCase.sent)
    } catch {
      #expect(testCase.sent == nil, "refused: \(error)")
      #expect(error.code == .insecureScheme)
      #expect(error.message.contains("http://example.com"))
      #expect(!error.message.contains("token"), "the message names the host, never the path or query")
    }
  }

  @Test func redirectRefusalNamesBothOrigins() throws {
    let from = HTTPRequest(method: .get, url: try #require(URL(string: "https://secure.example/start")))
    let to = HTTPRequest(method: .get, url: try #require(URL(string: "http://plain.example/next")))
    #expect(throws: TransportError.self) { try InsecureHTTPPolicy.refuse.apply(to: to, redirectedFrom: from) }
    do {
      _ = try InsecureHTTPPolicy.refuse.apply(to: to, redirectedFrom: from)
    } catch {
      #expect(error.code == .insecureScheme)
      #expect(error.message.contains("redirect from https://secure.example to http://plain.example"))
    }
    let upgraded = try InsecureHTTPPolicy.upgrade.apply(to: to, redirectedFrom: from)
    #expect(upgraded.url?.absoluteString == "https://plain.example/next")
  }

  @Test func defaultsKeepTodaysBehaviour() {
    let options = TransferOptions()
    #expect(options.insecureHTTP == .allow)
    #expect(options.proxy == .environment)
  }

  @Test func passwordsNeverShow() {
    let credentials = ProxyCredentials(user: "alice", password: "hunter2-secret")
    let setting = ProxySettings.socks5(host: "127.0.0.1", port: 1080, credentials: credentials)
    var dumped = ""
    dump(setting, to: &dumped)
    for text in [
      "\(credentials)", String(reflecting: credentials), "\(setting)", String(reflecting: setting), dumped,
    ] {
      #expect(!text.contains("hunter2"), "\(text)")
      #expect(text.contains("alice"), "\(text)")
    }
  }

  struct ValidationCase: Sendable, CustomTestStringConvertible {
    let server: ProxyServer
    let valid: Bool
    var testDescription: String { "\(server.host):\(server.port) \(server.bypass) → \(valid)" }
  }

  @Test(arguments: [
    ValidationCase(server: ProxyServer(kind: .http, host: "proxy.local", port: 3128), valid: true),
    ValidationCase(server: ProxyServer(kind: .socks5, host: "::1", port: 1080), valid: true),
    ValidationCase(
      server: ProxyServer(kind: .http, host: "p", port: 1, bypass: ["*", ".corp", "10.0.0.0/8"]),
      valid: true
    ),
    ValidationCase(server: ProxyServer(kind: .http, host: "", port: 3128), valid: false),
    ValidationCase(server: ProxyServer(kind: .http, host: "user@proxy", port: 3128), valid: false),
    ValidationCase(server: ProxyServer(kind: .http, host: "proxy/x", port: 3128), valid: false),
    ValidationCase(server: ProxyServer(kind: .http, host: "proxy", port: 0), valid: false),
    ValidationCase(server: ProxyServer(kind: .http, host: "proxy", port: 65536), valid: false),
    ValidationCase(server: ProxyServer(kind: .http, host: "proxy", port: 1, bypass: ["a b"]), valid: false),
    ValidationCase(server: ProxyServer(kind: .http, host: "proxy", port: 1, bypass: [""]), valid: false),
  ])
  func proxyServersAreChecked(_ testCase: ValidationCase) {
    do {
      try testCase.server.validate()
      #expect(testCase.valid)
    } catch {
      #expect(!testCase.valid)
      #expect(error.code == .invalidRequest)
    }
  }

  @Test func ipv6HostsAreBracketed() {
    #expect(ProxyServer(kind: .http, host: "::1", port: 1).urlHost == "[::1]")
    #expect(ProxyServer(kind: .http, host: "[::1]", port: 1).urlHost == "[::1]")
    #expect(ProxyServer(kind: .http, host: "proxy", port: 1).urlHost == "proxy")
  }

  /// A `407` is the proxy's only when a proxy stood in the way; an origin server's own `407` (httpbin's
  /// `/status/407`, with no proxy) is a response like any other.
  @Test func a407IsAnErrorOnlyThroughAProxy() {
    let response = HTTPResponse(status: .proxyAuthenticationRequired)
    let request = HTTPRequest(method: .get, scheme: "http", authority: "api.example:8080", path: "/")
    #expect(ProxySettings.direct.refusal(in: response, to: request) == nil)
    // The environment names no proxy in the test process (the integration suite sets one only for a moment).
    #expect(ProcessInfo.processInfo.environment["http_proxy"] == nil)
    #expect(ProxySettings.environment.refusal(in: response, to: request) == nil)
    let without = ProxySettings.http(host: "p", port: 1).refusal(in: response, to: request)
    #expect(without?.message.contains("none were given") == true)
    let with = ProxySettings.http(host: "p", port: 1, credentials: .init(user: "u", password: "pw-x")).refusal(
      in: response,
      to: request
    )
    #expect(with?.message.contains("refused the credentials") == true)
    #expect(with?.message.contains("pw-x") == false)
    for bypass in [["api.example"], [".example"], ["*"], [" API.example "]] {
      #expect(ProxySettings.http(host: "p", port: 1, bypass: bypass).refusal(in: response, to: request) == nil)
    }
    #expect(ProxySettings.http(host: "p", port: 1, bypass: ["other.example"]).refusal(in: response, to: request) != nil)
    #expect(ProxySettings.http(host: "p", port: 1).refusal(in: HTTPResponse(status: .ok), to: request) == nil)
  }
}

extension TransportPolicyTests {
  @Test(arguments: [InsecureHTTPPolicy.allow, .refuse, .upgrade])
  func theMiddlewareAppliesThePolicyBeforeAnyTransport(_ policy: InsecureHTTPPolicy) async throws {
    let echo = MiddlewareTests.EchoTransport()
    let transport = MiddlewareTransport(transport: echo, middleware: [InsecureHTTPMiddleware()])
    var options = TransferOptions()
    options.insecureHTTP = policy
    let request = HTTPRequest(method: .get, url: try #require(URL(string: "http://example.com/boards")))
    do {
      let response = try await transport.send(request, body: nil, options: options)
      #expect(policy != .refuse)
      #expect(response.url?.absoluteString == (policy == .upgrade ? "https" : "http") + "://example.com/boards")
    } catch let error as TransportError {
      #expect(policy == .refuse)
      #expect(error.code == .insecureScheme)
      #expect(echo.seen.withLock { $0.isEmpty }, "nothing reached the transport")
    }
    // The same chain serves an https:// request under every policy.
    let secure = HTTPRequest(method: .get, url: try #require(URL(string: "https://example.com/boards")))
    #expect(try await transport.send(secure, body: nil, options: options).head.status == .ok)
  }
}
