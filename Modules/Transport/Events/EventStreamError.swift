import Foundation
public import HTTPTypes

/// Why a stream of server-sent events was refused: a status other than 2xx, or a content type other than
/// `text/event-stream`. The sequence ends with it and does not reconnect.
public struct EventStreamError: Error, Sendable, CustomStringConvertible {
  /// What went wrong.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    /// The response's status is not 2xx.
    public static let unexpectedStatus = Code("unexpectedStatus")
    /// The response's content type is not `text/event-stream`.
    public static let unexpectedContentType = Code("unexpectedContentType")

    private let name: String

    private init(_ name: String) {
      self.name = name
    }

    /// The code's name.
    public var description: String { name }
  }

  /// What went wrong.
  public var code: Code
  /// What went wrong, in words: the status or the content type received.
  public var message: String
  /// The response head that was refused.
  public var response: HTTPResponse

  /// Creates an error.
  /// - Parameters:
  ///   - code: What went wrong.
  ///   - message: The words.
  ///   - response: The refused response head.
  public init(code: Code, message: String, response: HTTPResponse) {
    self.code = code
    self.message = message
    self.response = response
  }

  /// The code and the message.
  public var description: String { "EventStreamError.\(code): \(message)" }

  /// Checks a response head for an event stream: `nil` when it is one (2xx, `text/event-stream`), the error
  /// otherwise. A 204 is checked by the caller first (it ends the stream).
  static func check(_ head: HTTPResponse) -> EventStreamError? {
    guard head.status.kind == .successful else {
      return EventStreamError(
        code: .unexpectedStatus,
        message: "the event stream was answered with status \(head.status.code), not 2xx",
        response: head
      )
    }
    let contentType = head.headerFields[.contentType]
    let mediaType = contentType?.split(separator: ";", maxSplits: 1).first?
      .trimmingCharacters(in: .whitespaces).lowercased()
    guard mediaType == "text/event-stream" else {
      return EventStreamError(
        code: .unexpectedContentType,
        message: "the event stream was answered with content type \(contentType.map { "'\($0)'" } ?? "none"), "
          + "not 'text/event-stream'",
        response: head
      )
    }
    return nil
  }
}
