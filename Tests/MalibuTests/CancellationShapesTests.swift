import Malibu
import Testing

/// `isCancellationError(_:)` recognises every shape a cancellation comes in (the assertions of the former
/// `representsCancellation` tests, asked through the one helper), with nothing but `import Malibu`, as a user asks.
@Suite("isCancellationError: every shape")
struct CancellationShapesTests {
  @Test("cancellations and failures")
  func shapes() {
    let transport = TransportError(code: .cancelled, message: "cancelled")
    #expect(isCancellationError(CancellationError()))
    #expect(isCancellationError(transport))
    #expect(isCancellationError(NetworkError(code: .cancelled, message: "cancelled")))
    #expect(isCancellationError(NetworkError(code: .transportFailed, message: "x", underlyingError: transport)))
    #expect(
      isCancellationError(NetworkError(code: .transportFailed, message: "x", underlyingError: CancellationError()))
    )
    #expect(!isCancellationError(TransportError(code: .idleTimeout, message: "idle")))
    #expect(!isCancellationError(NetworkError(code: .transportFailed, message: "x")))
  }
}
