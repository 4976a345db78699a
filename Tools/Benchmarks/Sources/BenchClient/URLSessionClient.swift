import BenchSupport
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `urlsession`: plain Foundation `URLSession`, with the same session settings as `URLSessionTransport` (no cookie
/// storage, no URL cache, connections per host = the workload's concurrency), so the pair of rows measures Malibu's
/// layer. Collects with `data(for:)`, streams with a data delegate (Linux's Foundation has no `bytes(for:)`),
/// downloads with `download(for:)` and uploads with `upload(for:fromFile:)`.
final class URLSessionClient: Client {
  let session: URLSession
  let base: String
  private let streaming = StreamingDelegate()
  private let streamingSession: URLSession

  init(_ options: Options) {
    let configuration = Self.configuration(options)
    session = URLSession(configuration: configuration)
    streamingSession = URLSession(configuration: configuration, delegate: streaming, delegateQueue: nil)
    base = options.base
  }

  static func configuration(_ options: Options) -> URLSessionConfiguration {
    let configuration = URLSessionConfiguration.default
    configuration.httpMaximumConnectionsPerHost = max(6, options.concurrency)
    configuration.httpCookieStorage = nil
    configuration.httpShouldSetCookies = false
    configuration.urlCache = nil
    configuration.urlCredentialStorage = nil
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.timeoutIntervalForRequest = 120
    return configuration
  }

  private func url(_ path: String) throws -> URL {
    guard let url = URL(string: base + path) else { throw BenchError("bad URL \(base + path)") }
    return url
  }

  private static func check(_ response: URLResponse) throws {
    let code = (response as? HTTPURLResponse)?.statusCode ?? 0
    guard code == 200 else { throw BenchError.status(code) }
  }

  func get(_ path: String) async throws -> Int {
    let (data, response) = try await session.data(for: URLRequest(url: try url(path)))
    try Self.check(response)
    return data.count
  }

  func stream(_ path: String) async throws -> Int {
    let task = streamingSession.dataTask(with: try url(path))
    let (code, count) = try await streaming.run(task)
    guard code == 200 else { throw BenchError.status(code) }
    return count
  }

  func download(_ path: String, to destination: String) async throws -> Int {
    let (temporary, response) = try await session.download(for: URLRequest(url: try url(path)))
    try Self.check(response)
    _ = unlink(destination)
    guard rename(temporary.path, destination) == 0 else { throw BenchError("cannot move the download: \(errno)") }
    return fileSize(destination)
  }

  func upload(_ source: String, to path: String) async throws -> String {
    var request = URLRequest(url: try url(path))
    request.httpMethod = "POST"
    request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
    let (data, response) = try await session.upload(for: request, fromFile: URL(fileURLWithPath: source))
    try Self.check(response)
    return String(decoding: data, as: UTF8.self)
  }

  /// `api-mix`: `data(for:)` with the plan's header values (a POST encodes its `Order` with `JSONEncoder`), the body
  /// decoded with `JSONDecoder` into `[Item]` or the `Receipt`. Plain HTTP only in `make bench`: Foundation on Linux
  /// cannot be told to trust the run's CA.
  func api(_ call: ApiCall) async throws -> ApiAnswer {
    var request = URLRequest(url: try url(call.path))
    request.setValue("application/json", forHTTPHeaderField: "Accept")
    request.setValue(call.language, forHTTPHeaderField: "Accept-Language")
    request.setValue(call.requestID, forHTTPHeaderField: "X-Request-Id")
    if let order = call.order {
      request.httpMethod = "POST"
      request.setValue("application/json", forHTTPHeaderField: "Content-Type")
      request.httpBody = try JSONEncoder().encode(order)
    }
    let (data, response) = try await session.data(for: request)
    try Self.check(response)
    if call.isPost {
      _ = try JSONDecoder().decode(Receipt.self, from: data)
      return .decoded(1)
    }
    return .decoded(try JSONDecoder().decode([Item].self, from: data).count)
  }

  /// URLSession on Linux asks libcurl for automatic decoding, so the delegate sees the decoded bytes.
  func decode(_ path: String) async throws -> Int {
    try await stream(path)
  }

  func shutdown() async {
    session.finishTasksAndInvalidate()
    streamingSession.finishTasksAndInvalidate()
  }
}

/// Counts the bytes of one data task at a time and drops them.
final class StreamingDelegate: NSObject, URLSessionDataDelegate, Sendable {
  private struct State {
    var count = 0
    var continuation: CheckedContinuation<(Int, Int), any Error>?
  }

  private let state = Mutex(State())

  /// Runs `task` and returns its status code and byte count.
  func run(_ task: URLSessionDataTask) async throws -> (Int, Int) {
    try await withCheckedThrowingContinuation { continuation in
      state.withLock { $0 = State(count: 0, continuation: continuation) }
      task.resume()
    }
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    state.withLock { $0.count += data.count }
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
    let (count, continuation) = state.withLock { state in
      defer { state.continuation = nil }
      return (state.count, state.continuation)
    }
    let code = (task.response as? HTTPURLResponse)?.statusCode ?? 0
    if let error {
      continuation?.resume(throwing: error)
    } else {
      continuation?.resume(returning: (code, count))
    }
  }
}
