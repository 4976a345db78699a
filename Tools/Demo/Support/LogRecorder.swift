import Malibu
import Synchronization

/// A swift-log `Logger` that keeps what it is given, so a step can show a record Malibu wrote (the retry step reads
/// `http.request.resend_count` from the response record).
final class LogRecorder: Sendable {
  /// One log record: its message and metadata.
  struct Record: Sendable {
    var message: String
    var metadata: Logger.Metadata
  }

  private let records = Mutex<[Record]>([])

  /// A logger at `.trace` that writes into this recorder.
  var logger: Logger {
    Logger(label: "malibu-demo.recorder") { _ in Handler(recorder: self) }
  }

  /// Every record so far, oldest first.
  var all: [Record] { records.withLock { $0 } }

  fileprivate func append(_ record: Record) {
    records.withLock { $0.append(record) }
  }

  private struct Handler: LogHandler {
    let recorder: LogRecorder
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
      get { metadata[key] }
      set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
      let metadata = self.metadata.merging(event.metadata ?? [:]) { $1 }
      recorder.append(Record(message: event.message.description, metadata: metadata))
    }
  }
}

/// Runs `body`, or throws a ``TourFailure`` naming `what` when it has not finished within `limit`, so that a
/// misbehaving capability fails the tour rather than hanging it.
func within<T: Sendable>(
  _ limit: Duration,
  _ what: String,
  _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
  try await withThrowingTaskGroup(of: T?.self) { group in
    group.addTask { try await body() }
    group.addTask {
      try await Task.sleep(for: limit)
      return nil
    }
    defer { group.cancelAll() }
    guard let first = try await group.next(), let result = first else {
      throw TourFailure("\(what) did not finish within \(limit.shortDescription)")
    }
    return result
  }
}
