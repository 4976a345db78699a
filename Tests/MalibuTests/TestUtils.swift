import Malibu
@_spi(Malibu) import MalibuCore
import Synchronization
import Testing

/// An endpoint that sends whatever request it holds, with a base URL and headers of its own.
struct Probe: RequestConvertible {
  static let baseUrl: (any URLStringConvertible)? = "http://127.0.0.1:8080/api/"
  static let headers: [String: String] = [
    "Accept": "application/json", "X-Endpoint": "endpoint", "X-Shared": "endpoint",
  ]

  let request: Request

  init(_ request: Request) {
    self.request = request
  }
}

struct Board: Decodable, Sendable, Equatable {
  let id: Int
  let title: String
}

struct CustomValidator: Validating {
  func validate(_ response: Response) throws {
    guard response.headers[HTTPField.Name("X-Checked")!] == "yes" else {
      throw NetworkError(code: .unacceptableStatusCode, message: "not checked", response: response)
    }
  }
}

struct CustomJsonEncoder: ParameterEncoding {
  func encode(parameters: Parameters) throws -> Data? { Data("{}".utf8) }
}

struct CustomXMLEncoder: ParameterEncoding {
  func encode(parameters: Parameters) throws -> Data? {
    let items = parameters.keys.sorted().map { "<\($0)>\(parameters[$0]!)</\($0)>" }.joined()
    return Data("<root>\(items)</root>".utf8)
  }
}

let jsonHeaders: HTTPFields = [.contentType: "application/json"]
let boardsJSON = Data(#"[{"id":1,"title":"Balsa Fish"},{"id":2,"title":"Wave Rider"}]"#.utf8)

/// A transport that answers everything with `[]` (JSON), unless a test stubs more.
func makeTransport() -> MockTransport {
  MockTransport(fallback: MockTransport.Reply(status: .ok, headerFields: jsonHeaders, body: Data("[]".utf8)))
}

/// The outcome of a promise, awaited.
func outcome<T: Sendable>(_ promise: Promise<T>) async -> Result<T, any Error> {
  do {
    return .success(try await promise.value)
  } catch {
    return .failure(error)
  }
}

/// The `NetworkError` a promise was rejected with.
func networkError<T: Sendable>(_ promise: Promise<T>) async -> NetworkError? {
  guard case .failure(let error) = await outcome(promise) else { return nil }
  return error as? NetworkError
}

/// Waits (without any wall-clock assertion) until `condition` holds; records an issue after many tries.
func eventually(
  _ what: String = "condition",
  sourceLocation: SourceLocation = #_sourceLocation,
  _ condition: () -> Bool
) async {
  for _ in 0..<4000 {
    if condition() { return }
    try? await Task.sleep(for: .milliseconds(5))
  }
  Issue.record("\(what) never held", sourceLocation: sourceLocation)
}

/// A thread-safe box for test bookkeeping.
final class Box<Value: Sendable>: Sendable {
  private let mutex: Locked<Value>

  init(_ value: Value) {
    mutex = Locked(value)
  }

  var value: Value {
    mutex.withLock { $0 }
  }

  @discardableResult
  func update<T: Sendable>(_ body: (inout Value) -> T) -> T {
    mutex.withLock { body(&$0) }
  }
}

/// A request logger that keeps what it was given.
struct RecordingRequestLogger: RequestLogging {
  let requests = Box<[LoggedRequest]>([])

  func log(request: LoggedRequest, level: LogLevel) {
    requests.update { $0.append(request) }
  }
}

extension MockTransport {
  /// The recorded request paths, in order.
  var recordedPaths: [String] { recordedRequests.compactMap(\.path) }
}
