import Foundation
@_spi(Malibu) import MalibuCore
import Testing

@testable import Malibu

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a session configuration means for every transport: options, header fields, cookies, cache policy and the
/// warnings for what no transport uses.
@Suite("Session configuration")
struct SessionConfigurationTests {
  @Test(arguments: [SessionConfiguration.default, .ephemeral])
  func standardConfigurationsKeepMalibusDefaults(_ configuration: SessionConfiguration) {
    let defaults = configuration.defaults(isURLSession: false)
    #expect(defaults.transferOptions.timeouts == Timeouts())
    #expect(defaults.transferOptions.proxy == .environment)
    #expect(defaults.headers.isEmpty)
    #expect(defaults.acceptsCookies == nil)
    #expect(defaults.cachePolicy == nil)
    #expect(defaults.ignored.isEmpty)
  }

  @Test func customConfigurationMapsHeadersTimeoutsCookiesAndCache() {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpAdditionalHeaders = ["X-Client": "board-app", "X-Version": 3]
    configuration.timeoutIntervalForRequest = 2.5
    configuration.timeoutIntervalForResource = 30
    configuration.httpShouldSetCookies = false
    configuration.requestCachePolicy = .returnCacheDataElseLoad
    let defaults = SessionConfiguration.custom(configuration).defaults(isURLSession: false)
    #expect(defaults.headers == ["X-Client": "board-app", "X-Version": "3"])
    #expect(defaults.transferOptions.timeouts.idle == .milliseconds(2500))
    #expect(defaults.transferOptions.timeouts.total == .seconds(30))
    #expect(defaults.transferOptions.timeouts.connect == Timeouts().connect)
    #expect(defaults.acceptsCookies == false)
    #expect(defaults.cachePolicy == .returnCacheDataElseLoad)
  }

  @Test func foundationsResourceDefaultLeavesNoTotalTimeout() {
    let configuration = URLSessionConfiguration.default
    let defaults = SessionConfiguration.custom(configuration).defaults(isURLSession: true)
    #expect(defaults.transferOptions.timeouts.total == nil)
    #expect(defaults.cachePolicy == .useProtocolCachePolicy)
  }

  struct ProxyCase: Sendable, CustomTestStringConvertible {
    let name: String
    let dictionary: [String: any Sendable]
    let expected: ProxySettings
    let warns: Bool
    var testDescription: String { name }
  }

  static let proxyCases: [ProxyCase] = [
    ProxyCase(name: "empty: direct", dictionary: [:], expected: .direct, warns: false),
    ProxyCase(
      name: "HTTP",
      dictionary: ["HTTPEnable": 1, "HTTPProxy": "proxy.local", "HTTPPort": 3128, "ExceptionsList": ["localhost"]],
      expected: .http(host: "proxy.local", port: 3128, bypass: ["localhost"]),
      warns: false
    ),
    ProxyCase(
      name: "SOCKS with credentials",
      dictionary: [
        "SOCKSEnable": true, "SOCKSProxy": "127.0.0.1", "SOCKSPort": 1080, "kCFProxyUsernameKey": "u",
        "kCFProxyPasswordKey": "p",
      ],
      expected: .socks5(host: "127.0.0.1", port: 1080, credentials: ProxyCredentials(user: "u", password: "p")),
      warns: false
    ),
    ProxyCase(
      name: "different HTTP and HTTPS proxies: HTTPS used, with a warning",
      dictionary: [
        "HTTPEnable": 1, "HTTPProxy": "a", "HTTPPort": 1, "HTTPSEnable": 1, "HTTPSProxy": "b", "HTTPSPort": 2,
      ],
      expected: .http(host: "b", port: 2),
      warns: true
    ),
    ProxyCase(
      name: "disabled: direct",
      dictionary: ["HTTPEnable": 0, "HTTPProxy": "a"],
      expected: .direct,
      warns: false
    ),
  ]

  @Test(arguments: proxyCases)
  func proxyDictionaryBecomesTheProxySetting(_ testCase: ProxyCase) {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.connectionProxyDictionary = testCase.dictionary
    let defaults = SessionConfiguration.custom(configuration).defaults(isURLSession: false)
    #expect(defaults.transferOptions.proxy == testCase.expected)
    #expect(defaults.ignored.contains { $0.hasPrefix("connectionProxyDictionary") } == testCase.warns)
  }

  @Test func storesNoTransportUsesAreWarnedAbout() {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: nil)
    configuration.urlCredentialStorage = URLCredentialStorage()
    let defaults = SessionConfiguration.custom(configuration).defaults(isURLSession: false)
    #expect(defaults.ignored.contains { $0.hasPrefix("urlCache") })
    #expect(defaults.ignored.contains { $0.hasPrefix("urlCredentialStorage") })
  }

  @Test func backgroundWithoutBackgroundSessionsIsWarnedAbout() {
    #expect(!SessionConfiguration.background.defaults(isURLSession: false).ignored.isEmpty)
  }

  @Test func theNetworkingStartsFromTheConfiguration() {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = 7
    let networking = Networking<Unsent>(sessionConfiguration: .custom(configuration), transport: .platformDefault)
    #expect(networking.transferOptions.timeouts.idle == .seconds(7))
  }
}

private enum Unsent: RequestConvertible {
  case root

  static let baseUrl: (any URLStringConvertible)? = nil
  var request: Request { .get("/") }
}

extension SessionConfigurationTests {
  @Test func requestCachePolicyAppliesToRequestsThatKeepTheDefault() {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    let configured = Networking<Unsent>(
      sessionConfiguration: .custom(configuration),
      transport: .custom(MockTransport())
    )
    #expect((try? configured.resolve(.root))?.request.cachePolicy == .reloadIgnoringLocalCacheData)
    var own = Request.get("boards", cachePolicy: .returnCacheDataElseLoad)
    own.adoptCachePolicy(configured.settings.withLock { $0.sessionCachePolicy })
    #expect(own.cachePolicy == .returnCacheDataElseLoad)
    let plain = Networking<Unsent>(transport: .custom(MockTransport()))
    #expect((try? plain.resolve(.root))?.request.cachePolicy == .useProtocolCachePolicy)
  }
}
