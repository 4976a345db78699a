import Malibu
import Testing

/// An endpoint the tests never send.
private enum Unsent: RequestConvertible {
  case root

  static let baseUrl: (any URLStringConvertible)? = nil
  var request: Request { .get("/") }
}

/// The facade's transport defaults on this platform (Linux or macOS: MalibuCurl is there), and the limits it shares
/// with `Transport.data(for:)`'s defaults.
@Suite struct PlatformDefaultTests {
  @Test func theDefaultTransportIsTheSharedCurlTransportWhereLibcurlExists() throws {
    guard case .curl = TransportKind.platformDefault else {
      Issue.record("platformDefault is not .curl on a platform with MalibuCurl")
      return
    }
    let networking = Networking<Unsent>()
    let transport = try #require(networking.transport as? CurlTransport)
    #expect(transport === CurlTransport.shared)
  }

  @Test func urlSessionIsUsedWhenAsked() {
    let networking = Networking<Unsent>(transport: .urlSession)
    #expect(networking.transport is URLSessionTransport)
  }

  @Test func theFacadesResponseCeilingIsTheTransportsDefaultLimit() {
    #expect(Networking<Unsent>().maximumResponseSize == CurlTransport.defaultMaximumResponseSize)
  }
}
