import Malibu
import Testing

@testable import SurfCore

@Suite struct FailureTests {
  /// A transport failure, as the networking rejects with it → exit status and the start of the one-line message.
  static let transportFailures: [(TransportError.Code, SurfExitStatus, String)] = [
    (.connectionRefused, .error, "connection refused: GET http://127.0.0.1:9/"),
    (.dnsFailure, .error, "cannot resolve the host name: GET http://127.0.0.1:9/"),
    (.connectTimeout, .timeout, "timed out while connecting: details"),
    (.idleTimeout, .timeout, "timed out: no data moved: details"),
    (.totalTimeout, .timeout, "timed out: details"),
    (.tls, .error, "TLS failed: details"),
    (.tooManyRedirects, .tooManyRedirects, "too many redirects: details"),
    (.connectionReset, .error, "connectionReset: details"),
  ]

  @Test(arguments: transportFailures)
  func transportFailure(_ code: TransportError.Code, _ status: SurfExitStatus, _ message: String) {
    let error = NetworkError(
      code: .transportFailed,
      message: "the transport failed",
      underlyingError: TransportError(code: code, message: "details")
    )
    let failure = Surf.failure(error, target: "GET http://127.0.0.1:9/")
    #expect(failure.status == status)
    #expect(failure.message == message)
    #expect(!failure.message.contains("\n"))
  }

  @Test func otherNetworkErrorsNameTheirCode() {
    let failure = Surf.failure(NetworkError(code: .invalidHeader, message: "the header field X-A has CR or LF"))
    #expect(failure.status == .error)
    #expect(failure.message == "invalidHeader: the header field X-A has CR or LF")
  }

  @Test func cancellationIsAnInterruption() {
    #expect(Surf.failure(CancellationError()).status == .interrupted)
  }
}
