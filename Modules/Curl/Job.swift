import Foundation
import HTTPTypes
import MalibuTransport

/// A request on its way from the caller to the loop thread: everything the loop needs to run it, and the
/// continuation that the caller waits on.
///
/// A class, not a struct: it passes through the inbox, the loop's command list and into its ``Transfer``, and each
/// hand-over of a struct this size copied it field by field, retaining every reference in it (three copies and
/// three destructions per request; one allocation costs less).
final class Job: Sendable {
  /// Where the result goes.
  enum Sink: Sendable {
    /// `send`: the caller is woken with the head; the body streams through a ``BodyChannel``.
    case stream(UnsafeContinuation<TransportResponse, any Error>)
    /// `data(for:)`: the caller is woken once, with the head and the whole body.
    case collect(limit: Int, UnsafeContinuation<CollectedResponse, any Error>)

    /// Resumes the caller with an error.
    func fail(_ error: any Error) {
      HandOff.release()
      switch self {
      case .stream(let continuation): continuation.resume(throwing: error)
      case .collect(_, let continuation): continuation.resume(throwing: error)
      }
    }
  }

  let id: UInt64
  let request: HTTPRequest
  let url: String
  let body: RequestBody?
  let options: TransferOptions
  let sink: Sink

  init(id: UInt64, request: HTTPRequest, url: String, body: RequestBody?, options: TransferOptions, sink: Sink) {
    self.id = id
    self.request = request
    self.url = url
    self.body = body
    self.options = options
    self.sink = sink
  }
}

/// What callers ask of the loop thread.
enum Command: Sendable {
  /// Start a new transfer.
  case start(Job)
  /// Stop a transfer now: the caller cancelled, or dropped the body.
  case cancel(UInt64)
  /// The body's consumer drained the channel: read from the network again.
  case resumeReceiving(UInt64)
  /// A streamed request body has more bytes (or ended): send again.
  case resumeSending(UInt64)
  /// Run a task's job: the task prefers the transport's loop thread as its executor
  /// (``CurlTransport/taskExecutor``).
  case run(UnownedJob)

  /// Ends a command the loop will never apply: a transfer fails with `error`, a task's job runs on the global
  /// concurrent executor instead (a job must never be dropped: its task would wait for ever).
  func abandon(with error: TransportError) {
    switch self {
    case .start(let job): job.sink.fail(error)
    case .run(let job): globalConcurrentExecutor.enqueue(ExecutorJob(job))
    case .cancel, .resumeReceiving, .resumeSending: break
    }
  }
}

extension TransportError {
  static func cancelled(_ message: String = "the transfer was cancelled") -> TransportError {
    TransportError(code: .cancelled, message: message)
  }

  static let shutDown = TransportError(code: .cancelled, message: "the CurlTransport has been shut down")
}
