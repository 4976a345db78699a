import Foundation
import HTTPTypes
import Logging
import MalibuLogging
import MalibuTransport
import Synchronization

/// One record caught by a ``CapturingHandler``: its level, message and metadata (the logger's and the record's).
struct CapturedRecord: Sendable, Equatable {
  var level: Logger.Level
  var message: String
  var metadata: Logger.Metadata = [:]
  var label = "malibu-test"

  /// The metadata value under `key` as text, `nil` when absent.
  subscript(key: String) -> String? { metadata[key].map { "\($0)" } }

  /// The message and every metadata key and value, for searching a record for a secret.
  var fullText: String {
    ([message] + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }).joined(separator: " ")
  }
}

/// Collects every record written through the loggers it makes; no global `LoggingSystem` involved.
final class LogCapture: Sendable {
  private let records = Mutex<[CapturedRecord]>([])

  /// A swift-log logger whose records land here.
  func makeLogger(label: String = "malibu-test") -> Logger {
    var logger = Logger(label: label) { label in CapturingHandler(capture: self, label: label) }
    logger.logLevel = .trace
    return logger
  }

  func append(_ record: CapturedRecord) {
    records.withLock { $0.append(record) }
  }

  var all: [CapturedRecord] { records.withLock { $0 } }
  var messages: [String] { all.map(\.message) }
}

struct CapturingHandler: LogHandler {
  let capture: LogCapture
  let label: String
  var metadata: Logger.Metadata = [:]
  var logLevel: Logger.Level = .trace

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) {
    let merged = metadata.merging(event.metadata ?? [:]) { $1 }
    capture.append(
      CapturedRecord(level: event.level, message: event.message.description, metadata: merged, label: label)
    )
  }
}

/// A clock whose `now` moves forward by `step` each time it is read, so the first measured duration is `step`.
struct SteppingClock: Clock {
  struct Instant: InstantProtocol {
    var offset: Duration
    func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
    func duration(to other: Instant) -> Duration { other.offset - offset }
    static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
  }

  let step: Duration
  private let reads = Counter()

  init(step: Duration = .milliseconds(12)) {
    self.step = step
  }

  var now: Instant {
    Instant(offset: step * reads.next())
  }

  var minimumResolution: Duration { .nanoseconds(1) }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {}
}

/// A thread-safe counter that hands out 0, 1, 2, ...
final class Counter: Sendable {
  private let count = Mutex<Int64>(0)

  func next() -> Int64 {
    count.withLock { count in
      defer { count += 1 }
      return count
    }
  }
}

/// A transport that answers with a fixed response or fails with a fixed error.
struct StubTransport: Transport {
  enum Outcome: Sendable {
    case respond(HTTPResponse, Data, announced: Bool)
    case fail(TransportError)
  }

  let outcome: Outcome

  func send(_ request: HTTPRequest, body: RequestBody?, options: TransferOptions) async throws -> TransportResponse {
    switch outcome {
    case .respond(let head, let data, let announced):
      let body =
        announced
        ? ResponseBody(data: data)
        : ResponseBody(
          chunks: AsyncStream { continuation in
            continuation.yield(data)
            continuation.finish()
          }
        )
      return TransportResponse(head: head, url: nil, body: body)
    case .fail(let error):
      throw error
    }
  }
}
