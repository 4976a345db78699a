import Foundation
import HTTPTypes
import MalibuCore
import MalibuMocking
import MalibuTransport

/// A request head for 127.0.0.1 (never sent anywhere: the mock answers it).
func makeRequest(_ method: HTTPRequest.Method = .get, _ path: String, fields: HTTPFields = [:]) -> HTTPRequest {
  HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1:8080", path: path, headerFields: fields)
}

/// The error a throwing call ended with, or `nil` when it succeeded.
func caughtError(_ body: () async throws -> Void) async -> (any Error)? {
  do {
    try await body()
    return nil
  } catch {
    return error
  }
}

/// A scratch directory removed by the caller.
func makeTemporaryDirectory() throws -> URL {
  let url = FileManager.default.temporaryDirectory.appendingPathComponent("MalibuMockingTests-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  return url
}

/// The endpoint enum of API.md.
enum SharkywatersEndpoint: RequestConvertible {
  case fetchBoards
  case showBoard(id: Int)
  case deleteBoard(id: Int)

  static let baseUrl: (any URLStringConvertible)? = "http://127.0.0.1:8080/api/"

  var request: Request {
    switch self {
    case .fetchBoards: return Request(method: .get, resource: "boards")
    case .showBoard(let id): return Request(method: .get, resource: "boards/\(id)")
    case .deleteBoard(let id): return Request(method: .delete, resource: "boards/\(id)")
    }
  }
}
