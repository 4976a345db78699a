import MalibuCore
import Testing

@testable import MalibuTransport

/// `representsCancellation` recognises every shape a cancellation comes in.
@Suite("Error.representsCancellation")
struct RepresentsCancellationTests {
  @Test("cancellations and failures")
  func shapes() {
    let transport = TransportError(code: .cancelled, message: "cancelled")
    #expect(CancellationError().representsCancellation)
    #expect(transport.representsCancellation)
    #expect(NetworkError(code: .cancelled, message: "cancelled").representsCancellation)
    #expect(NetworkError(code: .transportFailed, message: "x", underlyingError: transport).representsCancellation)
    #expect(
      NetworkError(code: .transportFailed, message: "x", underlyingError: CancellationError()).representsCancellation
    )
    #expect(!TransportError(code: .idleTimeout, message: "idle").representsCancellation)
    #expect(!NetworkError(code: .transportFailed, message: "x").representsCancellation)
  }
}
