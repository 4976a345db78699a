import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuCore
import MalibuTransport
import Testing

/// A transport that answers from a script, one step per request, and `200 ok` once the script is used up; it records
/// each request with the body bytes it read.
final class ScriptedTransport: Transport {
  /// One answer.
  enum Step: Sendable {
    /// A response with this status and these header fields, its body `status <code>`.
    case status(HTTPResponse.Status, [(String, String)] = [])
    /// A response whose body streams without a known length and never ends (until cancelled).
    case endless(HTTPResponse.Status, BodyWatch)
    /// A transport error.
    case error(TransportError.Code)
    /// Any other error.
    case thrown(any Error)
  }

  private struct State {
    var script: [Step]
    var requests: [(head: HTTPRequest, body: Data?)] = []
  }

  private let state: Locked<State>

  init(_ script: [Step]) {
    state = Locked(State(script: script))
  }

  /// The requests sent so far, in order.
  var requests: [HTTPRequest] { state.withLock { $0.requests.map(\.head) } }
  /// The body bytes each request carried (`nil` without a body).
  var bodies: [Data?] { state.withLock { $0.requests.map(\.body) } }

  func send(_ request: HTTPRequest, body: RequestBody?, options: TransferOptions) async throws -> TransportResponse {
    let sent = try await Self.read(body)
    let step = state.withLock { state in
      state.requests.append((request, sent))
      return state.script.isEmpty ? nil : state.script.removeFirst()
    }
    switch step {
    case nil:
      return TransportResponse(head: HTTPResponse(status: .ok), url: nil, body: ResponseBody(data: Data("ok".utf8)))
    case .status(let status, let fields)?:
      var head = HTTPResponse(status: status)
      for (name, value) in fields { head.headerFields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
      return TransportResponse(head: head, url: nil, body: ResponseBody(data: Data("status \(status.code)".utf8)))
    case .endless(let status, let watch)?:
      return TransportResponse(head: HTTPResponse(status: status), url: nil, body: ResponseBody(chunks: watch.chunks))
    case .error(let code)?:
      throw TransportError(code: code, message: "scripted \(code)")
    case .thrown(let error)?:
      throw error
    }
  }

  /// Reads a body as a transport would: data as it is, a source or a stream to the end.
  private static func read(_ body: RequestBody?) async throws -> Data? {
    guard let body else { return nil }
    switch body.storage {
    case .data(let data):
      return data
    case .source(let source):
      let reader = try source.makeReader()
      var data = Data()
      var buffer = [UInt8](repeating: 0, count: 4096)
      while true {
        let count = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
        if count == 0 { return data }
        data.append(contentsOf: buffer[..<count])
      }
    case .stream(let stream):
      let collected = Locked(Data())
      try await stream.forEachChunk { chunk in collected.withLock { $0.append(chunk) } }
      return collected.withLock { $0 }
    }
  }
}

/// Watches a response body that never ends: whether whoever holds it cancelled it.
final class BodyWatch: Sendable {
  private let cancelled = Locked(false)

  /// Whether the body's reading was cancelled.
  var isCancelled: Bool { cancelled.withLock { $0 } }

  /// One chunk, then nothing until the reading task is cancelled.
  var chunks: AsyncThrowingStream<Data, any Error> {
    AsyncThrowingStream { continuation in
      continuation.yield(Data("partial".utf8))
      continuation.onTermination = { [cancelled] reason in
        if case .cancelled = reason { cancelled.withLock { $0 = true } }
      }
    }
  }
}

/// Records every wait the retry middleware asks for, returning at once (or, with `block`, never until cancelled).
final class SleepRecorder: Sendable {
  private let state = Locked<(waits: [Duration], started: Int)>(([], 0))
  private let blocks: Bool

  init(blocks: Bool = false) {
    self.blocks = blocks
  }

  /// The waits asked for, in order.
  var waits: [Duration] { state.withLock { $0.waits } }
  /// How many waits have begun.
  var started: Int { state.withLock { $0.started } }

  func sleep(_ duration: Duration) async throws {
    state.withLock {
      $0.waits.append(duration)
      $0.started += 1
    }
    if blocks {
      // Far longer than any test: only cancellation ends it.
      try await Task.sleep(for: .seconds(86_400))
    }
  }
}

/// Fractions handed out in order (the last one again once they run out), counting how many were read.
final class FixedRandom: Sendable {
  private let state: Locked<(values: [Double], reads: Int)>

  init(_ values: [Double]) {
    state = Locked((values, 0))
  }

  /// How many fractions were read.
  var reads: Int { state.withLock { $0.reads } }

  func next() -> Double {
    state.withLock { state in
      defer { state.reads += 1 }
      return state.values[min(state.reads, state.values.count - 1)]
    }
  }
}

/// The instant `Sun, 06 Nov 1994 08:49:37 GMT`, the tests' "now".
let retryTestNow = Date(timeIntervalSince1970: 784_111_777)

extension RetryMiddleware {
  /// A middleware whose waits go to `sleeper`, whose fractions come from `random` and whose clock stands at
  /// ``retryTestNow``.
  static func scripted(sleeper: SleepRecorder, random: FixedRandom = FixedRandom([1])) -> RetryMiddleware {
    RetryMiddleware(random: { random.next() }, sleep: { try await sleeper.sleep($0) }, now: { retryTestNow })
  }
}

extension TransferOptions {
  /// Options with this retry policy.
  static func retrying(_ policy: RetryPolicy) -> TransferOptions {
    var options = TransferOptions()
    options.retry = policy
    return options
  }
}

extension HTTPRequest {
  /// A request to a loopback URL that nothing listens on (the scripted transport never connects).
  static func retryTest(_ method: HTTPRequest.Method = .get, path: String = "/boards") -> HTTPRequest {
    HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1:9", path: path)
  }
}

/// Waits until `condition` holds, yielding in between; fails the test after many tries instead of hanging.
func eventually(_ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
  for _ in 0..<20_000 {
    if condition() { return }
    try await Task.sleep(for: .milliseconds(1))
  }
  Issue.record("condition never held", sourceLocation: sourceLocation)
}
