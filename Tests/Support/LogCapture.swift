public import Logging
@_spi(Malibu) import MalibuCore
import Synchronization

/// One record caught by a ``LogCapture``: the logger's label, the level, the message and the metadata (the logger's
/// and the record's).
public struct CapturedRecord: Sendable, Equatable {
  /// The label of the logger that wrote it.
  public var label: String
  /// The record's level.
  public var level: Logger.Level
  /// The record's message.
  public var message: String
  /// The logger's metadata merged with the record's.
  public var metadata: Logger.Metadata

  /// A record as a test expects it.
  public init(level: Logger.Level, message: String, metadata: Logger.Metadata = [:], label: String = "malibu-test") {
    self.level = level
    self.message = message
    self.metadata = metadata
    self.label = label
  }

  /// The metadata value under `key` as text, `nil` when absent.
  public subscript(key: String) -> String? { metadata[key].map { "\($0)" } }

  /// Every metadata value as text.
  public var values: [String: String] { metadata.mapValues { "\($0)" } }

  /// The message and every metadata key and value, for searching a record for a secret.
  public var fullText: String {
    ([message] + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }).joined(separator: " ")
  }
}

/// Collects every record written through the loggers it makes, without touching the process-wide `LoggingSystem`
/// (which can be bootstrapped once): hand the logger to the code under test.
public final class LogCapture: Sendable {
  private let records = Locked<[CapturedRecord]>([])

  /// A capture with no records yet.
  public init() {}

  /// A swift-log logger, at `trace`, whose records land here.
  public func makeLogger(label: String = "malibu-test") -> Logger {
    var logger = Logger(label: label) { label in CapturingHandler(capture: self, label: label) }
    logger.logLevel = .trace
    return logger
  }

  /// Adds a record.
  public func append(_ record: CapturedRecord) {
    records.withLock { $0.append(record) }
  }

  /// Every record so far, oldest first.
  public var all: [CapturedRecord] { records.withLock { $0 } }
  /// The messages of every record so far.
  public var messages: [String] { all.map(\.message) }
}

/// The handler behind ``LogCapture/makeLogger(label:)``.
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
