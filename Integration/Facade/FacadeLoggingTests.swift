import Foundation
import Malibu
import MalibuTestSupport
import Testing

/// What the facade logs at each level, captured by loggers of our own.
@Suite("Facade: logging")
struct FacadeLoggingTests {
  private static let secret = "sekrit-bearer-value-123"

  /// Sends a GET with a query and secret header, a JSON POST, and a request to a port that refuses connections.
  private func run(_ backend: Backend, level: LogLevel) async throws -> (LogCapture, base: String, refused: String) {
    let base = try await FacadeServer.start()
    let capture = LogCapture()
    let networking = Networking<HttpbinProbe>(transport: backend.kind)
    networking.logger = capture.makeLogger(level: level)
    let headers = ["Authorization": "Bearer \(Self.secret)", "X-Trace": "trace-1"]
    let get = try await networking.request(HttpbinProbe(.get("get", parameters: ["color": "blue"], headers: headers)))
      .value
    #expect(get.statusCode == 200)
    let post = try await networking.request(HttpbinProbe(.post("post", parameters: ["board": "Balsa Fish"]))).value
    #expect(post.statusCode == 200)
    let refused = "http://127.0.0.1:\(try refusedPort())/nowhere"
    let error = try #require(await rejection(networking.request(HttpbinProbe(.get(refused)))))
    #expect(error.code == .transportFailed)
    return (capture, base, refused)
  }

  @Test(arguments: Backend.allCases)
  func noneWritesNothing(_ backend: Backend) async throws {
    let (capture, _, _) = try await run(backend, level: .none)
    #expect(capture.requests.isEmpty)
    #expect(capture.responses.isEmpty)
    #expect(capture.errors.isEmpty)
  }

  @Test(arguments: Backend.allCases)
  func errorWritesOnlyTheError(_ backend: Backend) async throws {
    let (capture, _, refused) = try await run(backend, level: .error)
    #expect(capture.requests.isEmpty)
    #expect(capture.responses.isEmpty)
    #expect(capture.errors.count == 1)
    #expect(capture.errors.first?.request?.summary == "GET \(refused)")
    #expect(capture.errors.first?.description.contains("connectionRefused") == true)
  }

  @Test(arguments: Backend.allCases)
  func infoWritesMethodURLAndStatusWithoutDetails(_ backend: Backend) async throws {
    let (capture, base, refused) = try await run(backend, level: .info)
    #expect(capture.requests.map(\.summary) == ["GET \(base)get?color=blue", "POST \(base)post", "GET \(refused)"])
    #expect(capture.requests.allSatisfy { $0.headerFields.isEmpty && $0.body == nil })
    #expect(capture.responses.map(\.status.code) == [200, 200])
    #expect(capture.responses.map(\.request.summary) == ["GET \(base)get?color=blue", "POST \(base)post"])
    #expect(capture.responses.allSatisfy { $0.headerFields.isEmpty })
    #expect(capture.errors.count == 1)
    #expect(!capture.everything.contains(Self.secret))
  }

  @Test(arguments: Backend.allCases)
  func verboseWritesHeadersAndParametersWithAuthorizationRedacted(_ backend: Backend) async throws {
    let (capture, base, _) = try await run(backend, level: .verbose)
    #expect(capture.requests.count == 3)
    let get = try #require(capture.requests.first)
    #expect(get.summary == "GET \(base)get?color=blue")
    #expect(get.headerFields[HTTPField.Name("X-Trace")!] == "trace-1")
    #expect(get.headerFields[.authorization] == Redactor.placeholder)
    #expect(get.headerFields[HTTPField.Name("X-Endpoint")!] == nil)  // HttpbinProbe has no endpoint headers
    let post = try #require(capture.requests.dropFirst().first)
    let body = try #require(post.body)
    #expect(body.contentType?.hasPrefix("application/json") == true)
    #expect(body.preview?.contains("Balsa Fish") == true)
    #expect(capture.responses.count == 2)
    #expect(capture.responses.allSatisfy { $0.headerFields[.contentType]?.hasPrefix("application/json") == true })
    #expect(capture.errors.count == 1)
    #expect(!capture.everything.contains(Self.secret))
  }

  @Test(arguments: Backend.allCases)
  func credentialsSetOnTheNetworkingNeverReachTheLog(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let capture = LogCapture()
    let networking = Networking<Httpbin>(transport: backend.kind)
    networking.logger = capture.makeLogger(level: .verbose)
    networking.authenticate(bearerToken: Self.secret)
    #expect(try await networking.request(.bearer).validate().value.statusCode == 200)
    #expect(capture.requests.count == 1)
    #expect(!capture.everything.contains(Self.secret))
  }

  /// A networking given the application's swift-log `Logger` writes single-line `.debug`/`.trace` records with
  /// metadata to it, over real HTTP; a failed `validate()` goes to the same logger.
  @Test(arguments: Backend.allCases)
  func theApplicationsLoggerReceivesSingleLineRecordsWithMetadata(_ backend: Backend) async throws {
    let base = try await FacadeServer.start()
    let sink = MalibuTestSupport.LogCapture()
    let appLogger = sink.makeLogger(label: "com.example.app")
    let networking = Networking<HttpbinProbe>(transport: backend.kind, logger: appLogger)
    let headers = ["Authorization": "Bearer \(Self.secret)"]
    let get = HttpbinProbe(.get("get", parameters: ["color": "blue", "token": Self.secret], headers: headers))
    #expect(try await networking.request(get).validate().value.statusCode == 200)
    let missing = try #require(await rejection(networking.request(HttpbinProbe(.get("status/404"))).validate()))
    #expect(missing.code == .unacceptableStatusCode)

    let records = sink.all
    #expect(
      records.map(\.message) == [
        "request sent", "response received", "request sent", "response received", "request failed",
      ]
    )
    #expect(records.map(\.level) == [.trace, .debug, .trace, .debug, .debug])
    let response = try #require(records.dropFirst().first)
    #expect(response.values[LogMetadataKey.url] == "\(base)get?color=blue&token=<redacted>")
    #expect(response.values[LogMetadataKey.status] == "200")
    #expect(response.values[LogMetadataKey.responseBodySize].flatMap { Int($0) }.map { $0 > 0 } == true)
    #expect(records.last?.values[LogMetadataKey.errorCode] == "unacceptableStatusCode")
    #expect(records.last?.values[LogMetadataKey.url] == "\(base)status/404")
    for record in records {
      let text = ([record.message] + record.metadata.map { "\($0.key)=\($0.value)" }).joined(separator: " ")
      #expect(!text.contains("\n") && !text.contains(Self.secret), "\(text)")
    }
  }
}
