public import Foundation
public import HTTPTypes
@_spi(Malibu) import MalibuCore
import MalibuPromises
import MalibuTransport

extension Networking {
  /// Sends the request of an endpoint and hands back the response head at once, with the body to read as it
  /// arrives.
  ///
  /// ```swift
  /// let response = try await networking.stream(.fetchLog)
  /// guard response.statusCode == 200 else { return }
  /// for try await chunk in response.body { try handle.write(contentsOf: chunk) }
  /// ```
  /// The request travels the path of ``request(_:)``: the mode's queue, ``beforeEach``, the ``middleware`` gate,
  /// encoding, ``preProcessRequest``, logging, authentication and the endpoint's mock, then the transport. The HTTP
  /// cache is bypassed and ``maximumResponseSize`` does not apply. The head is returned whatever its status: check
  /// it before reading.
  ///
  /// The body has back-pressure: the transport reads from the network only as fast as the body is consumed (a few
  /// MiB ahead at most; URLSession on Linux cannot pause, see the README). The request keeps its slot in the mode's
  /// queue until the body has been read to its end, has failed, is cancelled or is dropped.
  /// ``ResponseStream/cancel()``, cancelling the task that reads it, dropping the body unread, or
  /// ``cancelAllRequests()`` stops the transfer at once.
  /// - Parameter endpoint: The endpoint.
  /// - Returns: The response head, its URL and the body.
  /// - Throws: A `NetworkError`, as ``request(_:)``'s promise is rejected with; the body throws `NetworkError`s too
  ///   (code `transportFailed`, `timedOut` or `bodyTooLarge` with the `TransportError`, or `cancelled`).
  public func stream(_ endpoint: R) async throws -> StreamedResponse {
    try await stream(endpoint, adjustingHead: { _ in })
  }

  /// ``stream(_:)``, with the caller's own last changes to the head after `preProcessRequest` (an event stream's
  /// `Accept` and `Last-Event-ID`), before the HTTPS policy and the chain's steps.
  func stream(
    _ endpoint: R,
    adjustingHead adjustHead: @escaping @Sendable (inout HTTPRequest) -> Void
  ) async throws -> StreamedResponse {
    let promise = Promise<StreamHandoff>()
    // The promise is resolved with the head at once; the flight is kept until the body ends or is dropped.
    launcher.launch(promise) { [self] ticket in
      var sent = endpoint.request
      do {
        try await limiter.wait(for: ticket)
        defer { limiter.release() }
        let (request, base) = try uncachedRequest(for: endpoint)
        sent = request
        let response = try await open(
          request,
          of: endpoint,
          through: base,
          storingOffline: false,
          adjustingHead: adjustHead
        ).response
        let lease = StreamLease()
        Self.handOver(response, lease: lease, to: promise)
        // The slot is held until the body ends or is dropped; cancelling this task (cancelAllRequests) stops it.
        await lease.waitUntilReleased { [body = response.body] in
          body.cancel()
        }
        return StreamHandoff(nil)  // the promise was resolved above: this outcome settles nothing
      } catch {
        throw hooks.failed(endpoint, request: sent, error: error)
      }
    }
    guard let response = try await promise.value.take() else { throw NetworkError.cancelled() }
    return response
  }

  /// Resolves `promise` with the response, which the caller takes out of the hand-off: neither the promise (kept in
  /// ``flights`` until the body is done) nor this task keeps the body alive, so dropping it ends the stream. When the
  /// promise was settled already (cancelled), the response is dropped here, which stops the transfer.
  private static func handOver(_ response: TransportResponse, lease: StreamLease, to promise: Promise<StreamHandoff>) {
    let stream = ResponseStream(body: response.body, lease: lease)
    promise.resolve(StreamHandoff(StreamedResponse(head: response.head, url: response.url, body: stream)))
  }
}

/// Hands a streamed response to its caller once, leaving nothing behind that would keep its body alive.
final class StreamHandoff: Sendable {
  private let response: Locked<StreamedResponse?>

  init(_ response: StreamedResponse?) {
    self.response = Locked(response)
  }

  /// The response, the first time; `nil` after.
  func take() -> StreamedResponse? {
    response.withLock { response in
      defer { response = nil }
      return response
    }
  }
}

/// A response whose body is read as it arrives: see `Networking.stream(_:)`.
public struct StreamedResponse: Sendable {
  /// The status and header fields.
  public let head: HTTPResponse
  /// The URL of the response, after redirects.
  public let url: URL?
  /// The body, chunk by chunk; it can be iterated once.
  public let body: ResponseStream

  /// The status code.
  public var statusCode: Int { head.status.code }
}

/// The body of a streamed response: an `AsyncSequence` of `Data` chunks, read once, with back-pressure.
///
/// Errors are `NetworkError`s with the `TransportError` as the underlying error: code `timedOut` for a timeout,
/// `bodyTooLarge`, `transportFailed` for the rest (a reset connection, a body that cannot be decoded), or
/// `cancelled`. Dropping the body (and its iterator) before the end, or ``cancel()``, stops the transfer.
public final class ResponseStream: AsyncSequence, Sendable {
  /// A chunk of the body.
  public typealias Element = Data
  /// The errors thrown while reading: `NetworkError`.
  public typealias Failure = any Error

  private let body: ResponseBody
  private let lease: StreamLease

  init(body: ResponseBody, lease: StreamLease) {
    self.body = body
    self.lease = lease
  }

  deinit {
    body.cancel()
    lease.release()
  }

  /// Creates the iterator; the body can be iterated once.
  /// - Returns: The iterator.
  public func makeAsyncIterator() -> Iterator {
    Iterator(stream: self, chunks: body.makeAsyncIterator())
  }

  /// Stops the transfer now and frees the request's slot in the networking's mode, whoever holds the body: a read
  /// waiting for the next chunk, and every later one, throws `NetworkError` code `cancelled`. Calling it again, or
  /// after the end, does nothing.
  ///
  /// ```swift
  /// let response = try await networking.stream(.tail(log: "app"))
  /// Task { try await Task.sleep(for: .seconds(10)); response.body.cancel() }  // ten seconds of the log
  /// for try await chunk in response.body { print(String(decoding: chunk, as: UTF8.self)) }
  /// ```
  public func cancel() {
    body.cancel()
    lease.release()
  }

  /// Reads the body chunk by chunk.
  public struct Iterator: AsyncIteratorProtocol {
    private let stream: ResponseStream
    private var chunks: ResponseBody.Iterator

    fileprivate init(stream: ResponseStream, chunks: ResponseBody.Iterator) {
      self.stream = stream
      self.chunks = chunks
    }

    /// The next chunk, or `nil` at the end.
    /// - Returns: The chunk.
    /// - Throws: A `NetworkError` when the transfer fails or is cancelled.
    public mutating func next() async throws -> Data? {
      do {
        guard let chunk = try await chunks.next() else {
          stream.lease.release()
          return nil
        }
        return chunk
      } catch {
        stream.lease.release()
        throw NetworkError.wrapping(error)
      }
    }
  }
}

@available(*, unavailable)
extension ResponseStream.Iterator: Sendable {}

/// Holds a streamed request's slot until its body is done: released once, by the end of the body, its failure, its
/// being dropped, or the cancellation of the task that waits.
final class StreamLease: Sendable {
  private struct State {
    var released = false
    var waiter: CheckedContinuation<Void, Never>?
  }

  private let state = Locked(State())

  /// Lets the waiting task go on (and release the slot); later calls do nothing.
  func release() {
    let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
      state.released = true
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume()
  }

  /// Waits until ``release()``; when the waiting task is cancelled, calls `onCancel` and stops waiting.
  func waitUntilReleased(onCancel: @escaping @Sendable () -> Void) async {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let releasedAlready = state.withLock { state in
          if state.released || Task.isCancelled { return true }
          state.waiter = continuation
          return false
        }
        if releasedAlready { continuation.resume() }
      }
    } onCancel: {
      onCancel()
      release()
    }
  }
}
