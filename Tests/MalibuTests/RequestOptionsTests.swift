import Foundation
import HTTPTypes
import Malibu
import Testing

/// Transfer options per request, and progress that names its request.
@Suite("Per-request options")
struct RequestOptionsTests {
  /// A transport that records the options each request was sent with, then answers through MockTransport.
  final class OptionsRecorder: Transport {
    let mock = makeTransport()
    let recorded = Box<[(path: String, options: TransferOptions)]>([])

    func send(_ request: HTTPRequest, body: RequestBody?, options: TransferOptions) async throws -> TransportResponse {
      recorded.update { $0.append((request.path ?? "", options)) }
      return try await mock.send(request, body: body, options: options)
    }
  }

  /// The closure changes this request's options alone; the next request has the networking's again.
  @Test func aRequestsOwnOptionsOverrideTheNetworkingsForItAlone() async throws {
    let transport = OptionsRecorder()
    let networking = Networking<Probe>(transport: .custom(transport))
    networking.transferOptions.timeouts.total = .seconds(60)
    networking.transferOptions.redirects = .follow(max: 3)
    _ = try await networking.request(Probe(.get("own"))) { options in
      options.timeouts.total = .seconds(5)
      options.redirects = .none
      options.decompression = .disabled
      options.requestCompression = .gzip
    }.value
    _ = try await networking.request(Probe(.get("shared"))).value
    let recorded = transport.recorded.value
    #expect(recorded.map(\.path) == ["/api/own", "/api/shared"])
    #expect(recorded[0].options.timeouts.total == .seconds(5))
    #expect(recorded[0].options.redirects == .none)
    #expect(recorded[0].options.decompression == .disabled)
    #expect(recorded[0].options.requestCompression == .gzip)
    #expect(recorded[1].options.timeouts.total == .seconds(60))
    #expect(recorded[1].options.redirects == .follow(max: 3))
    #expect(recorded[1].options.decompression.isEnabled)
    #expect(recorded[1].options.requestCompression == .none)
    #expect(networking.transferOptions.timeouts.total == .seconds(60))
  }

  /// The networking's options, then the endpoint hook, then the request's own closure: the later one wins.
  @Test func theEndpointHookRunsBeforeTheRequestsOwnOptions() async throws {
    let transport = OptionsRecorder()
    let networking = Networking<Probe>(transport: .custom(transport))
    networking.transferOptions.timeouts.idle = .seconds(30)
    networking.transferOptionsForEndpoint = { probe, options in
      guard probe.request.resource.urlString.hasPrefix("slow") else { return }
      options.timeouts.total = .seconds(120)
      options.timeouts.connect = .seconds(2)
    }
    #expect(networking.transferOptionsForEndpoint != nil)
    _ = try await networking.request(Probe(.get("slow/a"))).value
    _ = try await networking.request(Probe(.get("slow/b"))) { $0.timeouts.total = .seconds(7) }.value
    _ = try await networking.request(Probe(.get("fast"))).value
    let options = transport.recorded.value.map(\.options.timeouts)
    #expect(options[0] == Timeouts(connect: .seconds(2), idle: .seconds(30), total: .seconds(120)))
    #expect(options[1] == Timeouts(connect: .seconds(2), idle: .seconds(30), total: .seconds(7)))
    #expect(options[2] == Timeouts(connect: .seconds(30), idle: .seconds(30), total: nil))
  }

  /// Every progress event reaches the networking's handler with its endpoint and request; a request's own progress
  /// handler is still called.
  @Test func progressNamesItsRequest() async throws {
    let transport = makeTransport()
    let networking = Networking<Probe>(transport: .custom(transport))
    let events = Box<[(String, String, Int64)]>([])
    networking.progress = { event in
      let resource = event.endpoint?.request.resource.urlString ?? "?"
      events.update { $0.append((resource, event.request.path ?? "", event.progress.uploaded)) }
    }
    let own = Box(0)
    async let first = networking.request(Probe(.post("boards", body: ["title": "Balsa"]))).value
    async let second = networking.request(Probe(.put("boards/2", body: ["title": "Fish"]))) { options in
      options.progress = { _ in own.update { $0 += 1 } }
    }.value
    _ = try await (first, second)
    let seen = events.value.sorted { $0.0 < $1.0 }
    #expect(seen.map(\.0) == ["boards", "boards/2"])
    #expect(seen.map(\.1) == ["/api/boards", "/api/boards/2"])
    #expect(seen.map(\.2) == [17, 16])
    #expect(own.value == 1)
  }

  /// A request refused before it is sent (bad input) never calls the options closure's progress, and the next
  /// request with options of its own is served.
  @Test func aFailedRequestWithOptionsLeavesTheNextOneAlone() async throws {
    let transport = OptionsRecorder()
    let networking = Networking<Probe>(transport: .custom(transport))
    let error = await networkError(
      networking.request(Probe(.get("bad", headers: ["X-Bad": "a\nb"]))) { $0.timeouts.total = .seconds(1) }
    )
    #expect(error?.code == .invalidHeader)
    _ = try await networking.request(Probe(.get("good"))) { $0.timeouts.total = .seconds(2) }.value
    #expect(transport.recorded.value.map(\.path) == ["/api/good"])
    #expect(transport.recorded.value.first?.options.timeouts.total == .seconds(2))
  }
}
