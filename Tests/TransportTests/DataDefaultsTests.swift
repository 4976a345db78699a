import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuCore
import MalibuTransport
import Testing

/// What a transport's `data(for:body:options:upTo:)` was called with.
private struct DataCall: Sendable {
  var bodyBytes: Data?
  var hasBody: Bool
  var timeout: Duration?
  var maxRedirects: Int
  var maxBytes: Int
}

/// A transport with a `data(for:body:options:upTo:)` of its own: records each call's arguments and answers with a
/// fixed body, so the tests see which function the defaulted call reached and with what.
private final class RecordingTransport: Transport {
  let calls = Locked<[DataCall]>([])
  let payload = Data("twelve bytes".utf8)

  func send(_ request: HTTPRequest, body: RequestBody?, options: TransferOptions) async throws -> TransportResponse {
    TransportResponse(head: HTTPResponse(status: .ok), url: nil, body: ResponseBody(data: payload))
  }

  func data(
    for request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions,
    upTo maxBytes: Int
  ) async throws -> (HTTPResponse, Data, URL?) {
    let call = DataCall(
      bodyBytes: body.flatMap { if case .data(let bytes) = $0.storage { bytes } else { nil } },
      hasBody: body != nil,
      timeout: options.timeouts.total,
      maxRedirects: options.redirects.maxRedirects,
      maxBytes: maxBytes
    )
    calls.withLock { $0.append(call) }
    return (HTTPResponse(status: .ok), payload, request.url)
  }
}

/// A transport that implements `send` only: `data(for:...)` is the protocol's default (send, then collect).
private struct SendOnlyTransport: Transport {
  let payload: Data

  func send(_ request: HTTPRequest, body: RequestBody?, options: TransferOptions) async throws -> TransportResponse {
    TransportResponse(head: HTTPResponse(status: .ok), url: request.url, body: ResponseBody(data: payload))
  }
}

@Suite("Transport.data(for:) defaults")
struct DataDefaultsTests {
  private let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:9", path: "/d")

  @Test func theDefaultLimitIs256MiB() {
    #expect(RecordingTransport.defaultMaximumResponseSize == 256 << 20)
    #expect(SendOnlyTransport.defaultMaximumResponseSize == 256 << 20)
  }

  /// Each row leaves out some arguments; the transport's own implementation must get the given ones and the defaults
  /// (no body, `TransferOptions()`, 256 MiB) for the rest, also when called through `any Transport`.
  @Test(arguments: [
    ("request only", false, false, nil),
    ("body", true, false, nil),
    ("options", false, true, nil),
    ("upTo", false, false, 5 as Int?),
    ("body and upTo", true, false, 7),
    ("options and upTo", false, true, 9),
  ])
  func leftOutArgumentsTakeTheirDefaults(name: String, giveBody: Bool, giveOptions: Bool, upTo: Int?) async throws {
    let recording = RecordingTransport()
    let transport: any Transport = recording
    var options = TransferOptions()
    options.timeouts.total = .seconds(3)
    options.redirects = .none
    let body = RequestBody.data(Data("abc".utf8))

    let (head, data, _): (HTTPResponse, Data, URL?)
    switch (giveBody, giveOptions, upTo) {
    case (false, false, nil): (head, data, _) = try await transport.data(for: request)
    case (true, false, nil): (head, data, _) = try await transport.data(for: request, body: body)
    case (false, true, nil): (head, data, _) = try await transport.data(for: request, options: options)
    case (false, false, let limit?): (head, data, _) = try await transport.data(for: request, upTo: limit)
    case (true, false, let limit?): (head, data, _) = try await transport.data(for: request, body: body, upTo: limit)
    case (false, true, let limit?):
      (head, data, _) = try await transport.data(for: request, options: options, upTo: limit)
    default:
      Issue.record("no call for the row \(name)")
      return
    }

    #expect(head.status == .ok)
    #expect(data == recording.payload)
    let calls = recording.calls.withLock { $0 }
    try #require(calls.count == 1, "the transport's own data(for:body:options:upTo:) is called once")
    let call = calls[0]
    #expect(call.hasBody == giveBody)
    #expect(call.bodyBytes == (giveBody ? Data("abc".utf8) : nil))
    let defaults = TransferOptions()
    #expect(call.timeout == (giveOptions ? .seconds(3) : defaults.timeouts.total))
    #expect(call.maxRedirects == (giveOptions ? 0 : defaults.redirects.maxRedirects))
    #expect(call.maxBytes == (upTo ?? 256 << 20))
  }

  @Test func everyArgumentGivenCallsTheRequirementDirectly() async throws {
    let recording = RecordingTransport()
    let limit = 11
    _ = try await recording.data(for: request, body: nil, options: TransferOptions(), upTo: limit)
    #expect(recording.calls.withLock { $0.map(\.maxBytes) } == [11])
  }

  /// With the protocol's own `data(for:...)` (send, then collect), the defaulted call collects the whole body; a limit
  /// given below the body's size fails with `bodyTooLarge`, and the same transport then serves a good call.
  @Test func theDefaultImplementationHonoursTheLimitGivenOrDefaulted() async throws {
    let transport: any Transport = SendOnlyTransport(payload: Data(repeating: 0x61, count: 64))

    let (_, whole, url) = try await transport.data(for: request)
    #expect(whole.count == 64)
    #expect(url == request.url)

    let error = await #expect(throws: TransportError.self) { try await transport.data(for: self.request, upTo: 10) }
    #expect(error?.code == .bodyTooLarge)

    let (_, again, _) = try await transport.data(for: request, upTo: 64)
    #expect(again.count == 64)
  }
}
