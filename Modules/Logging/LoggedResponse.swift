public import HTTPTypes
public import Logging

/// A response as the loggers see it: secrets already redacted.
public struct LoggedResponse: Sendable, Hashable {
  /// The request this response answers.
  public var request: LoggedRequest
  /// The status.
  public var status: HTTPResponse.Status
  /// The header fields, secret values (`Set-Cookie`, ...) replaced (``LogLevel/verbose`` only).
  public var headerFields: HTTPFields
  /// The time from sending the request to receiving the response head.
  public var duration: Duration
  /// The body's length when the server announced it; the body itself is never read for logging.
  public var length: Int?

  /// Creates a logged response.
  /// - Parameters:
  ///   - request: The logged request.
  ///   - status: The status.
  ///   - headerFields: The redacted header fields.
  ///   - duration: The time until the response head arrived.
  ///   - length: The announced body length, if any.
  public init(
    request: LoggedRequest,
    status: HTTPResponse.Status,
    headerFields: HTTPFields = [:],
    duration: Duration,
    length: Int?
  ) {
    self.request = request
    self.status = status
    self.headerFields = headerFields
    self.duration = duration
    self.length = length
  }

  /// `200 OK GET https://example.com/boards (12 ms, 42 bytes)`.
  public var summary: String {
    let reason = status.reasonPhrase.isEmpty ? "" : " \(status.reasonPhrase)"
    var timing = LogFormat.milliseconds(duration)
    if let length { timing += ", \(LogFormat.bytes(UInt64(max(length, 0))))" }
    return "\(status.code)\(reason) \(request.summary) (\(timing))"
  }

  /// The response as swift-log metadata: the request's method and URL, ``LogMetadataKey/status``,
  /// ``LogMetadataKey/durationMilliseconds``, ``LogMetadataKey/responseBodySize`` when announced, and at
  /// ``LogLevel/verbose`` the header fields (``LogMetadataKey/responseHeaders``). Every value is redacted already.
  public var metadata: Logger.Metadata {
    var metadata = request.summaryMetadata
    metadata[LogMetadataKey.status] = .stringConvertible(status.code)
    metadata[LogMetadataKey.durationMilliseconds] = .stringConvertible(LogFormat.milliseconds(of: duration))
    if let length { metadata[LogMetadataKey.responseBodySize] = .stringConvertible(max(length, 0)) }
    if !headerFields.isEmpty { metadata[LogMetadataKey.responseHeaders] = LogFormat.metadata(of: headerFields) }
    return metadata
  }

  /// Detail lines for a text logger of your own: one per header field, indented by four spaces.
  public var detailLines: [String] {
    headerFields.map { "    \($0.name.rawName): \($0.value)" }
  }
}

/// Shared text formats.
enum LogFormat {
  static func bytes(_ count: UInt64) -> String {
    count == 1 ? "1 byte" : "\(count) bytes"
  }

  static func milliseconds(_ duration: Duration) -> String {
    let milliseconds = (duration / .milliseconds(1)).rounded()
    return "\(Int(milliseconds)) ms"
  }
}
