import MalibuTestSupport
import Testing

@testable import Malibu

/// `Malibu.request`, the registry, `Malibu.parameterEncoders` and `Malibu.logger`. Serialized: the shared networking
/// is swapped for one over a MockTransport while these run.
@Suite("Malibu namespace", .serialized)
struct MalibuNamespaceTests {
  @Test func requestUsesTheSharedNetworking() async throws {
    let transport = makeTransport()
    transport.stub(.get, "/get", headerFields: [.contentType: "text/plain"], body: Data("hello".utf8))
    let original = SharedNetworking.current
    SharedNetworking.current = Networking(transport: .custom(transport))
    defer { SharedNetworking.current = original }
    let text = try await Malibu.request(Request.get("http://127.0.0.1:8080/get")).validate(statusCodes: [200])
      .toString().value
    #expect(text == "hello")
    #expect(transport.recordedRequests.first?.url?.absoluteString == "http://127.0.0.1:8080/get")
    let relative = await networkError(Malibu.request(Request.get("boards")))
    #expect(relative?.code == .invalidURL)
  }

  @Test func sharedNetworkingDefaultsToCurl() {
    #expect(SharedNetworking.current.transport is CurlTransport)
    #expect(SharedNetworking.current.mode == .async)
  }

  @Test func registry() async throws {
    let first = Networking<SharkywatersEndpoint>(transport: .custom(makeTransport()))
    let other = Networking<Probe>(transport: .custom(makeTransport()))
    let name = "registry-\(UUID().uuidString)"
    Malibu.register(name, networking: first)
    #expect((Malibu.networking(name) as Networking<SharkywatersEndpoint>?) === first)
    #expect((Malibu.networking(name) as Networking<Probe>?) == nil)  // another endpoint type
    Malibu.register(name, networking: other)
    #expect((Malibu.networking(name) as Networking<Probe>?) === other)
    Malibu.unregister(name)
    #expect((Malibu.networking(name) as Networking<Probe>?) == nil)
    Malibu.unregister(name)  // nothing there: no effect
  }

  @Test func registryIsThreadSafe() async {
    await withTaskGroup(of: Void.self) { group in
      for index in 0..<50 {
        group.addTask {
          let name = "concurrent-\(index % 5)"
          Malibu.register(name, networking: Networking<Probe>(transport: .custom(makeTransport())))
          _ = Malibu.networking(name) as Networking<Probe>?
          Malibu.unregister(name)
        }
      }
    }
  }

  @Test func globalsAreTheSharedObjects() {
    #expect(Malibu.parameterEncoders === ParameterEncoderRegistry.shared)
    #expect(Malibu.logger === NetworkLogger.shared)
    #expect(Malibu.parameterEncoders[.json] != nil)
  }

  @Test func transportKinds() {
    #expect(Networking<Probe>().transport is CurlTransport)
    #expect(
      Networking<Probe>(sessionConfiguration: .ephemeral, transport: .urlSession).transport is URLSessionTransport
    )
    let configured = Networking<Probe>(
      sessionConfiguration: .custom(URLSessionConfiguration.ephemeral),
      transport: .urlSession
    )
    #expect(configured.transport is URLSessionTransport)
    #expect(
      Networking<Probe>(sessionConfiguration: .background, transport: .urlSession).transport is URLSessionTransport
    )
    let custom = MockTransport()
    #expect(Networking<Probe>(transport: .custom(custom)).transport as? MockTransport === custom)
  }
}
