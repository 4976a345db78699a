import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuCore
import MalibuTransport
import Testing

@Suite("Middleware and request bodies")
struct MiddlewareTests {
  /// Answers every request with its own header fields echoed as the body, and records the requests.
  final class EchoTransport: Transport {
    let seen = Locked<[HTTPRequest]>([])

    func send(
      _ request: HTTPRequest,
      body: RequestBody?,
      options: TransferOptions
    ) async throws
      -> TransportResponse
    {
      seen.withLock { $0.append(request) }
      let names = request.headerFields.map { "\($0.name)=\($0.value)" }.joined(separator: ";")
      return TransportResponse(
        head: HTTPResponse(status: .ok),
        url: request.url,
        body: ResponseBody(data: Data(names.utf8))
      )
    }
  }

  struct Tag: Middleware {
    let name: String
    let log: Locked<[String]>

    func intercept(
      _ request: HTTPRequest,
      body: RequestBody?,
      options: TransferOptions,
      next: Middleware.Next
    ) async throws -> TransportResponse {
      log.withLock { $0.append("> \(name)") }
      var request = request
      request.headerFields.append(HTTPField(name: HTTPField.Name("X-Tag")!, value: name))
      let response = try await next(request, body, options)
      log.withLock { $0.append("< \(name)") }
      return response
    }
  }

  struct Refuse: Middleware {
    struct Refused: Error {}
    func intercept(
      _ request: HTTPRequest,
      body: RequestBody?,
      options: TransferOptions,
      next: Middleware.Next
    ) async throws -> TransportResponse {
      throw Refused()
    }
  }

  @Test func middlewareRunsOutermostFirst() async throws {
    let log = Locked<[String]>([])
    let echo = EchoTransport()
    let transport = echo.with(middleware: [Tag(name: "a", log: log), Tag(name: "b", log: log)])
    let (head, data, _) = try await transport.data(
      for: HTTPRequest(method: .get, url: URL(string: "http://127.0.0.1/")!),
      body: nil,
      options: TransferOptions(),
      upTo: 1000
    )
    #expect(head.status == .ok)
    #expect(String(decoding: data, as: UTF8.self) == "X-Tag=a;X-Tag=b")
    #expect(log.withLock { $0 } == ["> a", "> b", "< b", "< a"])
  }

  @Test func middlewareCanRefuse() async {
    let echo = EchoTransport()
    let transport = echo.with(middleware: [Refuse()])
    await #expect(throws: Refuse.Refused.self) {
      try await transport.send(
        HTTPRequest(method: .get, url: URL(string: "http://127.0.0.1/")!),
        body: nil,
        options: TransferOptions()
      )
    }
    #expect(echo.seen.withLock { $0.isEmpty })
  }

  @Test func requestBodyLengths() throws {
    #expect(RequestBody.data(Data("abc".utf8)).length == 3)
    #expect(RequestBody.data(Data("abc".utf8)).isRepeatable)
    let stream = AsyncStream<Data> { $0.finish() }
    #expect(RequestBody.stream(stream, length: 7).length == 7)
    #expect(!RequestBody.stream(stream, length: nil).isRepeatable)
    #expect {
      try RequestBody.file(URL(fileURLWithPath: "/nonexistent/upload.bin"))
    } throws: { error in
      (error as? TransportError)?.code == .invalidRequest
    }
  }

  @Test func optionsDefaults() {
    let options = TransferOptions()
    #expect(options.redirects == .follow(max: 10))
    #expect(options.decompression == .enabled(limit: 256 << 20))
    #expect(options.decompression.maximumRatio == 1000)
    #expect(Decompression.enabled(limit: nil, maximumRatio: 0).maximumRatio == 1)
    #expect(Decompression.disabled.maximumRatio == nil)
    #expect(options.timeouts.connect == .seconds(30))
    #expect(options.timeouts.total == nil)
    #expect(!options.tls.insecure)
    #expect(RedirectPolicy.follow(max: -3).maxRedirects == 0)
    #expect(!options.requestCompression.isEnabled)
  }

  @Test func errorsDescribeThemselves() {
    let error = TransportError(code: .idleTimeout, message: "no byte for 1 s")
    #expect(error.isTimeout)
    #expect(!error.isCancellation)
    #expect(error.description == "TransportError.idleTimeout: no byte for 1 s")
  }
}
