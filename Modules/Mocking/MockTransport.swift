public import Foundation
public import HTTPTypes
@_spi(Malibu) internal import MalibuCore
public import MalibuTransport

/// A `Transport` for tests: answers from stubs registered by method and path, and records every request it was
/// sent, so a test can swap the transport under the whole stack and then assert on what went out.
///
/// ```swift
/// let transport = MockTransport()
/// transport.stub(.get, "/boards", headerFields: [.contentType: "application/json"], body: Data("[]".utf8))
/// transport.stub(.get, "/boards/*", status: .notFound)
/// transport.stub(.post, "/boards", error: TransportError(code: .connectionReset, message: "reset by peer"))
///
/// let response = try await transport.send(request, body: .data(payload), options: TransferOptions())
/// #expect(transport.recordedRequests.map(\.path) == ["/boards"])
/// ```
///
/// - The most recently added stub that matches wins, so a test can override a general stub with a specific one.
/// - A request no stub matches fails with `TransportError.Code.other` and a message naming the method and the
///   URL, unless the transport was created with a `fallback` reply.
/// - A request is recorded before it is answered, with its body collected: bytes, files and streams alike. A body
///   that cannot be read fails the request with `TransportError.Code.invalidRequest`; the request is still
///   recorded, with a `nil` body.
/// - A delay is a `Task.sleep`; cancelling the calling task ends it with `TransportError.Code.cancelled`.
/// - Redirects are not followed and content codings are not decoded: the stub's reply is returned as it is.
/// - A reply made with `Reply.events(_:)` streams a ``MockEventStream``: events, pauses and a dropped connection.
public final class MockTransport: Transport {
  private struct Stub: Sendable {
    let method: HTTPRequest.Method
    let path: PathPattern
    let answer: @Sendable (RecordedRequest) async throws -> Reply
  }

  private struct State: Sendable {
    var stubs: [Stub] = []
    var recorded: [RecordedRequest] = []
  }

  private let state = Locked(State())
  private let fallback: Reply?

  /// Creates a transport without stubs.
  /// - Parameter fallback: The reply to requests that no stub matches; `nil` (the default) makes them fail with
  ///   `TransportError.Code.other`.
  public init(fallback: Reply? = nil) {
    self.fallback = fallback
  }

  /// Every request sent so far, oldest first: the head and the collected body.
  public var recordedRequests: [RecordedRequest] {
    state.withLock { $0.recorded }
  }

  /// Forgets every stub and every recorded request.
  public func reset() {
    state.withLock { $0 = State() }
  }

  /// Forgets the recorded requests and keeps the stubs.
  public func removeRecordedRequests() {
    state.withLock { $0.recorded.removeAll() }
  }

  /// Answers requests of `method` whose path matches `path` with `reply`.
  /// - Parameters:
  ///   - method: The method to match.
  ///   - path: An exact path (`"/boards"`), a pattern with `*` segments (`"/boards/*"`), or a predicate.
  ///   - reply: The answer: a response or an error, after an optional delay.
  public func stub(_ method: HTTPRequest.Method, _ path: PathPattern, reply: Reply) {
    stub(method, path) { _ in reply }
  }

  /// Answers requests of `method` whose path matches `path` with a response.
  ///
  /// ```swift
  /// transport.stub(.get, "/boards/*", status: .ok, body: Data(#"{"id":1}"#.utf8), delay: .milliseconds(50))
  /// ```
  /// - Parameters:
  ///   - method: The method to match.
  ///   - path: An exact path, a pattern with `*` segments, or a predicate.
  ///   - status: The response status; 200 by default.
  ///   - headerFields: The response header fields.
  ///   - body: The response body.
  ///   - delay: How long to wait before answering.
  public func stub(
    _ method: HTTPRequest.Method,
    _ path: PathPattern,
    status: HTTPResponse.Status = .ok,
    headerFields: HTTPFields = [:],
    body: Data = Data(),
    delay: Duration = .zero
  ) {
    stub(method, path, reply: Reply(status: status, headerFields: headerFields, body: body, delay: delay))
  }

  /// Makes requests of `method` whose path matches `path` fail with `error`.
  /// - Parameters:
  ///   - method: The method to match.
  ///   - path: An exact path, a pattern with `*` segments, or a predicate.
  ///   - error: The error to throw, of any `TransportError.Code`.
  ///   - delay: How long to wait before failing.
  public func stub(_ method: HTTPRequest.Method, _ path: PathPattern, error: TransportError, delay: Duration = .zero) {
    stub(method, path, reply: .failure(error, delay: delay))
  }

  /// Answers requests of `method` whose path matches `path` with a ``Mock``, resolved at request time (a missing
  /// mock file fails that request with a `NetworkError`).
  /// - Parameters:
  ///   - method: The method to match.
  ///   - path: An exact path, a pattern with `*` segments, or a predicate.
  ///   - mock: The mock; its delay, when set, is honoured, and its error is thrown as it is.
  public func stub(_ method: HTTPRequest.Method, _ path: PathPattern, mock: Mock) {
    add(Stub(method: method, path: path) { _ in try await mock.makeReply(defaultDelay: 0) })
  }

  /// Answers requests of `method` whose path matches `path` with whatever `handler` returns, so a test can script
  /// a sequence (a 401, then a 200) or echo the request.
  ///
  /// ```swift
  /// let calls = Mutex(0)
  /// transport.stub(.get, "/me") { request in
  ///   let call = calls.withLock { count in
  ///     count += 1
  ///     return count
  ///   }
  ///   return MockTransport.Reply(status: call == 1 ? .unauthorized : .ok)
  /// }
  /// ```
  /// - Parameters:
  ///   - method: The method to match.
  ///   - path: An exact path, a pattern with `*` segments, or a predicate.
  ///   - handler: Builds the reply from the recorded request; an error it throws fails the request (a
  ///     `TransportError` or `NetworkError` as it is, anything else wrapped in `TransportError.Code.other`).
  public func stub(
    _ method: HTTPRequest.Method,
    _ path: PathPattern,
    handler: @escaping @Sendable (RecordedRequest) async throws -> Reply
  ) {
    add(
      Stub(method: method, path: path) { request in
        do {
          return try await handler(request)
        } catch let error as TransportError {
          throw error
        } catch let error as NetworkError {
          throw error
        } catch {
          throw TransportError(code: .other, message: "the stub's handler failed: \(error)", underlyingError: error)
        }
      }
    )
  }

  private func add(_ stub: Stub) {
    state.withLock { $0.stubs.append(stub) }
  }

  /// Records the request, finds the stub that matches it and answers with its reply.
  /// - Parameters:
  ///   - request: The request head; its URL must be absolute.
  ///   - body: The request body, if any; it is collected and recorded.
  ///   - options: Only `progress` is used: it is told the sizes once the reply is ready.
  /// - Returns: The stub's response, with the request's URL.
  /// - Throws: The stub's `TransportError`; `TransportError.Code.other` when no stub matches;
  ///   `TransportError.Code.invalidRequest` for a request that cannot be sent; `TransportError.Code.cancelled`
  ///   when the task is cancelled.
  public func send(
    _ request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions
  ) async throws -> TransportResponse {
    let (reply, url) = try await exchange(request, body: body, options: options)
    if let script = reply.events {
      let (head, body) = script.response(to: request, head: reply.head)
      return TransportResponse(head: head, url: url, body: body)
    }
    return TransportResponse(head: reply.head, url: url, body: ResponseBody(data: reply.body))
  }

  /// Like ``send(_:body:options:)``, returning the body collected.
  /// - Parameters:
  ///   - request: The request head.
  ///   - body: The request body, if any.
  ///   - options: Transfer options.
  ///   - maxBytes: The largest body accepted.
  /// - Returns: The response head, the body and the request's URL.
  /// - Throws: As ``send(_:body:options:)``, and `TransportError.Code.bodyTooLarge` past `maxBytes`.
  public func data(
    for request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions,
    upTo maxBytes: Int
  ) async throws -> (HTTPResponse, Data, URL?) {
    let (reply, url) = try await exchange(request, body: body, options: options)
    if let script = reply.events {
      let (head, body) = script.response(to: request, head: reply.head)
      return (head, try await body.collect(upTo: maxBytes), url)
    }
    let (head, data) = (reply.head, reply.body)
    guard data.count <= max(0, maxBytes) else {
      throw TransportError.bodyTooLarge(limit: maxBytes, size: data.count)
    }
    return (head, data, url)
  }

  private func exchange(
    _ request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions
  ) async throws -> (Reply, URL?) {
    let recorded: RecordedRequest
    do {
      recorded = RecordedRequest(head: request, body: try await RecordedRequest.collect(body))
    } catch {
      state.withLock { $0.recorded.append(RecordedRequest(head: request, body: nil)) }
      try MockDelay.checkCancellation()
      throw TransportError(code: .invalidRequest, message: "the request body cannot be read", underlyingError: error)
    }
    let stub = state.withLock { state in
      state.recorded.append(recorded)
      return state.stubs.last { $0.method == request.method && $0.path.matches(request) }
    }
    let url = try Self.validate(request)
    try MockDelay.checkCancellation()
    guard let stub else {
      guard let fallback else { throw Self.unmatched(request) }
      return try await answer(fallback, to: url, options: options, uploaded: recorded.body?.count ?? 0)
    }
    let reply = try await stub.answer(recorded)
    return try await answer(reply, to: url, options: options, uploaded: recorded.body?.count ?? 0)
  }

  private func answer(
    _ reply: Reply,
    to url: URL,
    options: TransferOptions,
    uploaded: Int
  ) async throws -> (Reply, URL?) {
    try await MockDelay.sleep(reply.delay)
    if let error = reply.error { throw error }
    let size = Int64(reply.body.count)
    options.progress?(
      TransferProgress(uploaded: Int64(uploaded), uploadTotal: Int64(uploaded), downloaded: size, downloadTotal: size)
    )
    return (reply, url)
  }

  /// Checks that `request` could be sent and returns its URL.
  private static func validate(_ request: HTTPRequest) throws(TransportError) -> URL {
    guard request.scheme != nil, request.authority != nil, let url = request.url else {
      throw TransportError(
        code: .invalidRequest,
        message: "the request has no absolute URL (scheme \(request.scheme ?? "nil"), "
          + "authority \(request.authority ?? "nil"), path \(request.path ?? "nil"))"
      )
    }
    for field in request.headerFields where field.valueContainsLineBreakOrNUL {
      throw TransportError(
        code: .invalidRequest,
        message: "the value of header '\(field.name)' contains CR, LF or NUL"
      )
    }
    return url
  }

  private static func unmatched(_ request: HTTPRequest) -> TransportError {
    let url = request.url?.absoluteString ?? request.path ?? "?"
    return TransportError(code: .other, message: "MockTransport has no stub for \(request.method) \(url)")
  }
}
