import Foundation
import MalibuCore
import Testing

/// A cause with a description of its own, like a library's error.
private struct PlainCause: Error, CustomStringConvertible {
  var description: String { "connection reset by peer" }
}

/// A NetworkError's description says its cause's text once.
@Suite("NetworkError.description")
struct ErrorDescriptionTests {
  struct Case: Sendable, CustomTestStringConvertible {
    let name: String
    let error: NetworkError
    let description: String
    var testDescription: String { name }
  }

  static let cases: [Case] = [
    Case(
      name: "a wrapper that took over its cause's message keeps only the cause's type and code",
      error: NetworkError(
        code: .transportFailed,
        message: "the server sent nothing for 2 s",
        underlyingError: NetworkError(code: .requestRejected, message: "the server sent nothing for 2 s")
      ),
      description: "NetworkError.transportFailed: the server sent nothing for 2 s (cause: NetworkError.requestRejected)"
    ),
    Case(
      name: "a message that quotes the whole cause",
      error: NetworkError(
        code: .transportFailed,
        message: "the request failed: connection reset by peer",
        underlyingError: PlainCause()
      ),
      description: "NetworkError.transportFailed: the request failed: connection reset by peer"
    ),
    Case(
      name: "a message that quotes the cause's message, whose own cause stays",
      error: NetworkError(
        code: .decodingFailed,
        message: "could not decode: the body is empty",
        underlyingError: NetworkError(
          code: .emptyResponse,
          message: "the body is empty",
          underlyingError: PlainCause()
        )
      ),
      description:
        "NetworkError.decodingFailed: could not decode: the body is empty (cause: NetworkError.emptyResponse "
        + "(cause: connection reset by peer))"
    ),
    Case(
      name: "a Foundation error whose text the message quotes is named by its domain and code",
      error: NetworkError(
        code: .transportFailed,
        message: "the server did not answer in time: The request timed out. (URLError -1001)",
        underlyingError: NSError(
          domain: NSURLErrorDomain,
          code: -1001,
          userInfo: [NSLocalizedDescriptionKey: "The request timed out.", NSURLErrorFailingURLErrorKey: "http://x"]
        )
      ),
      description: "NetworkError.transportFailed: the server did not answer in time: The request timed out. "
        + "(URLError -1001) (cause: NSURLErrorDomain -1001)"
    ),
    Case(
      name: "a cause the message does not mention is shown whole",
      error: NetworkError(code: .requestRejected, message: "the middleware said no", underlyingError: PlainCause()),
      description: "NetworkError.requestRejected: the middleware said no (cause: connection reset by peer)"
    ),
  ]

  @Test(arguments: cases)
  func theCauseTextAppearsOnce(_ testCase: Case) {
    #expect(testCase.error.description == testCase.description)
  }
}
