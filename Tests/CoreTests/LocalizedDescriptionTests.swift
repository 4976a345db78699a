import Foundation
import MalibuCore
import Testing

/// A NetworkError's `localizedDescription` is its message, and its `description` names the code and the message.
@Suite("NetworkError.localizedDescription")
struct LocalizedDescriptionTests {
  @Test(
    "localizedDescription is the message; description names code and message",
    arguments: [
      (NetworkError.Code.invalidURL, "the base URL \"ht tp://x\" is not a valid URL"),
      (.cancelled, "the request was cancelled"),
      (.transportFailed, "the server sent nothing for 2 s"),
      (.decodingFailed, "the body does not decode as Board"),
    ]
  )
  func texts(code: NetworkError.Code, message: String) {
    let error = NetworkError(code: code, message: message)
    #expect(error.localizedDescription == message)
    #expect((error as any Error).localizedDescription == message)
    #expect(String(describing: error) == "NetworkError.\(code): \(message)")
    #expect(!error.localizedDescription.contains("could not be completed"))
  }
}
