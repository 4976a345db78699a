import Foundation
import Malibu
import Testing

/// One networking, a mock provider answering one endpoint and httpbin the others.
@Suite("Facade: mocks mixed with real calls")
struct FacadeMockTests {
  @Test(arguments: Backend.allCases)
  func mockedAndRealRequestsShareOneNetworking(_ backend: Backend) async throws {
    let base = try await FacadeServer.start()
    let provider = MockProvider<Httpbin> { endpoint in
      if case .path("json") = endpoint { return Mock(json: ["mocked": true, "board": "Balsa Fish"]) }
      if case .status(503) = endpoint { return Mock(httpResponse: HTTPResponse(status: .ok), data: Data("up".utf8)) }
      return nil
    }
    let recorder = RecordingTransport(backend.transport)
    let networking = Networking<Httpbin>(mockProvider: provider, transport: .custom(recorder))
    let capture = LogCapture()
    networking.logger = capture.makeLogger(level: .info)
    networking.beforeEach = { $0.adding(headers: ["X-Before": "each"]) }

    async let mocked = networking.request(.path("json")).validate().toJsonDictionary().value
    async let real = networking.request(.query(["q": "real"])).validate().toJsonDictionary().value
    async let realJSON = networking.request(.path("uuid")).validate().toJsonDictionary().value
    async let mockedStatus = networking.request(.status(503)).validate().toString().value

    let mockedBody = try await mocked
    #expect(mockedBody["mocked"] as? Bool == true)
    #expect(mockedBody["board"] as? String == "Balsa Fish")
    #expect(try await mockedStatus == "up")
    let realBody = try await real
    #expect((realBody["args"] as? [String: any Sendable])?["q"] as? String == "real")
    #expect((realBody["headers"] as? [String: any Sendable])?["X-Before"] as? String == "each")
    #expect(try await realJSON["uuid"] is String)

    // Only the real requests reached the wire; every request, mocked or real, was logged.
    let sent = recorder.all.compactMap { $0.request.path }.sorted()
    #expect(sent == ["/get?q=real", "/uuid"])
    #expect(
      Set(capture.requests.map(\.summary)) == [
        "GET \(base)json", "GET \(base)get?q=real", "GET \(base)uuid", "GET \(base)status/503",
      ]
    )
  }
}
