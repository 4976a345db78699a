import Foundation
import Malibu
@_spi(Malibu) import MalibuCore
import Testing

/// The base URL of the suite's httpbin, `http://127.0.0.1:PORT/`, kept once it started so that endpoint types,
/// whose `baseUrl` is static, can read it at run time.
enum FacadeServer {
  private static let base = Locked<String?>(nil)

  /// Starts httpbin (once per test process) and returns its base URL, with a trailing slash.
  @discardableResult
  static func start() async throws -> String {
    let url = try await LocalServers.shared.httpbin().absoluteString
    let string = url.hasSuffix("/") ? url : url + "/"
    base.withLock { $0 = string }
    return string
  }

  /// The base URL; a port nothing listens on before ``start()`` (every test starts first).
  static var baseURL: String { base.withLock { $0 } ?? "http://127.0.0.1:9/" }
}

/// httpbin's endpoints, as an application would describe its API.
enum Httpbin: RequestConvertible {
  case query(Parameters)
  case postJSON(Parameters)
  case postForm(Parameters)
  case multipart(Parameters)
  case put(Parameters)
  case patch(Parameters)
  case delete(Parameters)
  case upload(Data)
  case uploadFile(URL)
  case status(Int)
  case path(String)
  case basicAuth(user: String, password: String)
  case bearer
  case etag(String, CachePolicy)
  case cache(CachePolicy)
  case delay(Int)

  static var baseUrl: (any URLStringConvertible)? { FacadeServer.baseURL }
  static var headers: [String: String] { ["X-Endpoint": "httpbin"] }

  var request: Request {
    switch self {
    case .query(let parameters): return .get("get", parameters: parameters)
    case .postJSON(let parameters): return .post("post", parameters: parameters)
    case .postForm(let parameters): return .post("post", contentType: .formURLEncoded, parameters: parameters)
    case .multipart(let parameters): return .upload(multipartParameters: parameters, to: "post")
    case .put(let parameters): return .put("put", parameters: parameters)
    case .patch(let parameters): return .patch("patch", parameters: parameters)
    case .delete(let parameters): return .delete("delete", parameters: parameters)
    case .upload(let data): return .upload(data: data, to: "post", contentType: .custom("text/plain"))
    case .uploadFile(let file):
      return .upload(fileAt: file, to: "put", method: .put, contentType: .custom("text/plain"))
    case .status(let code): return .get("status/\(code)")
    case .path(let path): return .get(path)
    case .basicAuth(let user, let password): return .get("basic-auth/\(user)/\(password)")
    case .bearer: return .get("bearer")
    case .etag(let tag, let policy): return .get("etag/\(tag)", cachePolicy: policy)
    case .cache(let policy): return .get("cache", cachePolicy: policy)
    case .delay(let seconds): return .get("delay/\(seconds)")
    }
  }
}

/// An endpoint that sends whatever request it holds, against httpbin (or an absolute URL of its own).
struct HttpbinProbe: RequestConvertible {
  static var baseUrl: (any URLStringConvertible)? { FacadeServer.baseURL }

  let request: Request

  init(_ request: Request) {
    self.request = request
  }
}

extension Backend {
  /// The facade's transport kind for this backend.
  var kind: TransportKind {
    switch self {
    case .curl: return .curl
    case .urlSession: return .urlSession
    }
  }
}

/// A transport that hands every request to a real one and records what came back on the wire: the request head
/// as sent, the status (or the error), so a test can see 304s and retries the facade hides from the caller.
final class RecordingTransport: Transport {
  struct Record: Sendable {
    let request: HTTPRequest
    let status: Int?
    let error: (any Error)?
  }

  private let base: any Transport
  private let records = Locked<[Record]>([])
  private let started = Locked(0)

  init(_ base: any Transport) {
    self.base = base
  }

  /// Every finished exchange, in the order they finished.
  var all: [Record] { records.withLock { $0 } }
  /// The statuses of the exchanges that got a response.
  var statuses: [Int] { all.compactMap(\.status) }
  /// How many requests were handed to the real transport so far (finished or not).
  var startedCount: Int { started.withLock { $0 } }

  func send(_ request: HTTPRequest, body: RequestBody?, options: TransferOptions) async throws -> TransportResponse {
    started.withLock { $0 += 1 }
    do {
      let response = try await base.send(request, body: body, options: options)
      records.withLock { $0.append(Record(request: request, status: response.head.status.code, error: nil)) }
      return response
    } catch {
      records.withLock { $0.append(Record(request: request, status: nil, error: error)) }
      throw error
    }
  }
}

/// What a `NetworkLogger` wrote, captured by loggers of our own.
final class LogCapture: Sendable {
  struct LoggedError: Sendable {
    let description: String
    let request: LoggedRequest?
  }

  private let requestsLock = Locked<[LoggedRequest]>([])
  private let responsesLock = Locked<[LoggedResponse]>([])
  private let errorsLock = Locked<[LoggedError]>([])

  var requests: [LoggedRequest] { requestsLock.withLock { $0 } }
  var responses: [LoggedResponse] { responsesLock.withLock { $0 } }
  var errors: [LoggedError] { errorsLock.withLock { $0 } }

  /// Every text a logger was handed, for "the secret never appears" checks.
  var everything: String {
    let lines =
      requests.flatMap { [$0.summary] + $0.detailLines } + responses.flatMap { [$0.summary] + $0.detailLines }
      + errors.map { $0.description + " " + ($0.request?.summary ?? "") }
    return lines.joined(separator: "\n")
  }

  /// A logger at `level` writing into this capture.
  func makeLogger(level: LogLevel) -> NetworkLogger {
    let logger = NetworkLogger(level: level)
    logger.requestLogger = RequestSink(capture: self)
    logger.responseLogger = ResponseSink(capture: self)
    logger.errorLogger = ErrorSink(capture: self)
    return logger
  }

  private struct RequestSink: RequestLogging {
    let capture: LogCapture
    func log(request: LoggedRequest, level: LogLevel) { capture.requestsLock.withLock { $0.append(request) } }
  }

  private struct ResponseSink: ResponseLogging {
    let capture: LogCapture
    func log(response: LoggedResponse, level: LogLevel) { capture.responsesLock.withLock { $0.append(response) } }
  }

  private struct ErrorSink: ErrorLogging {
    let capture: LogCapture
    func log(error: any Error, request: LoggedRequest?, duration: Duration?, level: LogLevel) {
      let entry = LoggedError(description: request?.redacting("\(error)") ?? "\(error)", request: request)
      capture.errorsLock.withLock { $0.append(entry) }
    }
  }
}

/// The `NetworkError` a promise was rejected with; records an issue when it resolved or failed otherwise.
func rejection<T: Sendable>(
  _ promise: Promise<T>,
  sourceLocation: SourceLocation = #_sourceLocation
) async -> NetworkError? {
  do {
    let value = try await promise.value
    Issue.record("expected a NetworkError, got \(value)", sourceLocation: sourceLocation)
    return nil
  } catch let error as NetworkError {
    return error
  } catch {
    Issue.record("expected a NetworkError, got \(error)", sourceLocation: sourceLocation)
    return nil
  }
}

/// A fresh directory under the temporary directory, removed by ``remove()``.
struct TemporaryDirectory: Sendable {
  let url: URL

  init(_ prefix: String) throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  func remove() {
    try? FileManager.default.removeItem(at: url)
  }
}
