import Foundation
import Testing

@testable import MalibuTransport

/// Transport and download errors: `localizedDescription` is the message, `description` names code and message.
@Suite("TransportError and DownloadError texts")
struct TransportLocalizedDescriptionTests {
  @Test(
    "TransportError",
    arguments: [
      (TransportError.Code.idleTimeout, "no byte moved for 2 s"),
      (.insecureScheme, "http://example.com is refused: HTTPS only"),
      (.cancelled, "the transfer was cancelled"),
    ]
  )
  func transport(code: TransportError.Code, message: String) {
    let error = TransportError(code: code, message: message)
    #expect((error as any Error).localizedDescription == message)
    #expect(String(describing: error).contains("\(code)"))
    #expect(String(describing: error).contains(message))
  }

  @Test(
    "DownloadError",
    arguments: [
      (DownloadError.Code.rangeMismatch, "the server answered bytes 0- to a request for bytes 100-"),
      (.destinationBusy, "another download writes /tmp/file"),
    ]
  )
  func download(code: DownloadError.Code, message: String) {
    let error = DownloadError(code: code, message: message)
    #expect((error as any Error).localizedDescription == message)
    #expect(String(describing: error).contains("\(code)"))
    #expect(String(describing: error).contains(message))
  }
}
