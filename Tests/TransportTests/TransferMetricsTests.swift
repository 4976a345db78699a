import Foundation
@_spi(Malibu) import MalibuCore
import MalibuTransport
import Testing

/// How a transfer's metrics travel: the head's figures on `TransportResponse`, the final ones on the body once it has
/// ended (through a body middleware rebuilt from it, too), and the most complete ones on `collect`'s answer.
@Suite("TransferMetrics")
struct TransferMetricsTests {
  static let atHead = TransferMetrics(firstByte: .milliseconds(3), httpVersion: "1.1")
  static let final = TransferMetrics(firstByte: .milliseconds(3), total: .milliseconds(5), decodedBodyBytes: 2)

  /// Answers with a streamed body that ends with ``final`` (when given), and ``atHead`` on the head.
  struct MeasuringTransport: Transport {
    var finalMetrics: TransferMetrics?

    func send(_ request: HTTPRequest, body: RequestBody?, options: TransferOptions) async throws -> TransportResponse {
      let channel = BodyChannel(expectedLength: 2)
      _ = Data("ok".utf8).withUnsafeBytes { channel.write($0) }
      channel.finish(nil, metrics: finalMetrics)
      return TransportResponse(
        head: HTTPResponse(status: .ok),
        url: request.url,
        body: ResponseBody(channel: channel),
        metrics: TransferMetricsTests.atHead
      )
    }
  }

  /// Rebuilds the body from the one below it, as `MetricsMiddleware` and the cache do.
  struct RewrappingMiddleware: Middleware {
    func intercept(
      _ request: HTTPRequest,
      body: RequestBody?,
      options: TransferOptions,
      next: Next
    ) async throws -> TransportResponse {
      var response = try await next(request, body, options)
      response.body = ResponseBody(chunks: response.body, expectedLength: response.body.expectedLength)
      return response
    }
  }

  static let request = HTTPRequest(method: .get, url: URL(string: "http://127.0.0.1:9/")!)

  @Test func theBodyHasTheFinalFiguresOnlyOnceItHasEnded() async throws {
    let response = try await MeasuringTransport(finalMetrics: Self.final).send(
      Self.request,
      body: nil,
      options: .init()
    )
    #expect(response.metrics == Self.atHead)
    var iterator = response.body.makeAsyncIterator()
    #expect(try await iterator.next() == Data("ok".utf8))
    #expect(try await iterator.next() == nil)
    #expect(response.body.metrics == Self.final)
  }

  /// (middleware, final metrics given) → what `collect` answers with.
  static let collectCases: [(Bool, Bool, TransferMetrics?)] = [
    (false, true, final), (true, true, final), (false, false, atHead), (true, false, atHead),
  ]

  @Test(arguments: collectCases)
  func collectAnswersWithTheMostCompleteFigures(
    rewrapped: Bool,
    hasFinal: Bool,
    expected: TransferMetrics?
  ) async throws {
    let transport = MeasuringTransport(finalMetrics: hasFinal ? Self.final : nil)
    let chain = transport.with(middleware: rewrapped ? [RewrappingMiddleware()] : [])
    let collected = try await chain.collect(Self.request, body: nil, options: .init(), upTo: 100)
    #expect(collected.data == Data("ok".utf8))
    #expect(collected.metrics == expected)
  }

  @Test func aTransportThatMeasuresNothingCollectsWithoutMetrics() async throws {
    let collected = try await MeasuringTransport(finalMetrics: nil).collect(
      Self.request,
      body: nil,
      options: .init(),
      upTo: 100
    )
    // The default `collect` goes through `data(for:)`, which has no metrics to give.
    #expect(collected.metrics == nil)
    #expect(collected.data == Data("ok".utf8))
  }

  @Test func orderedTimesSkipWhatWasNotMeasured() {
    let metrics = TransferMetrics(
      nameLookup: .microseconds(1),
      secureConnect: .microseconds(5),
      firstByte: .microseconds(9),
      redirect: .microseconds(100)
    )
    #expect(metrics.orderedTimes == [.microseconds(1), .microseconds(5), .microseconds(9)])
  }
}
