import Malibu
import MalibuTestSupport
import Testing

/// A header value refused for CR, LF or NUL is typically a credential read from a file with its trailing newline:
/// the error names the field, never the value, and nothing logged at any level quotes it.
@Suite struct SecretsInErrorsTests {
  static let token = "s3cr3t-T0ken-4711"

  @Test(arguments: [
    ("Authorization", "Bearer \(token)\n"),
    ("X-Api-Key", "\(token)\n"),
    ("X-Api-Key", "\(token)\r\nX-Injected: 1"),
    ("Authorization", "Bearer \(token)\u{0}"),
  ])
  func aRefusedValueNeverAppearsInTheErrorOrTheLog(name: String, value: String) async throws {
    let transport = makeTransport()
    let networking = Networking<Probe>(transport: .custom(transport))
    let log = LogCapture()
    networking.logger = NetworkLogger(level: .verbose, logger: log.makeLogger())

    let error = try #require(await networkError(networking.request(Probe(.get("boards", headers: [name: value])))))
    #expect(error.code == .invalidHeader)
    #expect(error.message.contains(name))
    #expect(!error.message.contains(Self.token))
    #expect(!String(describing: error).contains(Self.token))
    #expect(!String(reflecting: error).contains(Self.token))
    #expect(transport.recordedRequests.isEmpty)
    #expect(!log.all.isEmpty, "the refusal is logged")
    #expect(log.all.allSatisfy { !$0.fullText.contains(Self.token) }, "\(log.all)")

    // The same networking then serves a good request, and the secret still appears nowhere.
    _ = try await networking.request(Probe(.get("boards", headers: [name: "Bearer fine"]))).value
    #expect(transport.recordedRequests.count == 1)
    #expect(log.all.allSatisfy { !$0.fullText.contains(Self.token) })
  }
}
