import Malibu
import Testing

/// `TransportKind` compares by case (and by instance for `custom`) and describes itself by name.
@Suite("TransportKind")
struct TransportKindTests {
  @Test("equality and description")
  func equalityAndDescription() {
    let mock = MockTransport()
    #expect(TransportKind.urlSession == .urlSession)
    #expect(TransportKind.custom(mock) == .custom(mock))
    #expect(TransportKind.custom(mock) != .custom(MockTransport()))
    #expect(TransportKind.custom(mock) != .urlSession)
    #expect(TransportKind.urlSession.description == "urlSession")
    #expect(TransportKind.custom(mock).description == "custom(MockTransport)")
    #if canImport(MalibuCurl)
    #expect(TransportKind.curl == .curl)
    #expect(TransportKind.curl != .urlSession)
    #expect(TransportKind.platformDefault.description == "curl")
    #endif
  }
}
