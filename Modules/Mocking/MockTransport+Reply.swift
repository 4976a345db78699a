public import Foundation
public import HTTPTypes
public import MalibuTransport

extension MockTransport {
  /// What a stub answers: a response (status, header fields, body) or an error, after an optional delay.
  ///
  /// ```swift
  /// let ok = MockTransport.Reply(status: .ok, headerFields: [.contentType: "text/plain"], body: Data("hi".utf8))
  /// let slow = MockTransport.Reply(status: .ok, delay: .seconds(2))
  /// let reset = MockTransport.Reply.failure(TransportError(code: .connectionReset, message: "reset"))
  /// ```
  public struct Reply: Sendable {
    /// The response status.
    public var status: HTTPResponse.Status
    /// The response header fields, returned as they are.
    public var headerFields: HTTPFields
    /// The response body.
    public var body: Data
    /// How long the transport waits before answering; cancelling the task ends the wait.
    public var delay: Duration
    /// When set, the request fails with this error (after the delay) instead of answering.
    public var error: TransportError?
    /// A scripted event stream served instead of ``body`` (see ``events(_:headerFields:delay:)``).
    var events: MockEventStream?

    /// A response.
    /// - Parameters:
    ///   - status: The status; 200 by default.
    ///   - headerFields: The header fields.
    ///   - body: The body.
    ///   - delay: How long to wait before answering.
    public init(
      status: HTTPResponse.Status = .ok,
      headerFields: HTTPFields = [:],
      body: Data = Data(),
      delay: Duration = .zero
    ) {
      self.status = status
      self.headerFields = headerFields
      self.body = body
      self.delay = delay
      self.error = nil
    }

    /// The response head: ``status`` and ``headerFields``.
    var head: HTTPResponse { HTTPResponse(status: status, headerFields: headerFields) }

    /// A failure.
    /// - Parameters:
    ///   - error: The error to throw, of any `TransportError.Code`.
    ///   - delay: How long to wait before failing.
    /// - Returns: The reply.
    public static func failure(_ error: TransportError, delay: Duration = .zero) -> Reply {
      var reply = Reply(delay: delay)
      reply.error = error
      return reply
    }
  }
}
