import Dispatch
import Foundation
@_spi(Malibu) import MalibuCore
import MalibuTransport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Exchange {
  /// A new input stream over the request body, for `httpBodyStream` or URLSession's `needNewBodyStream`.
  ///
  /// `nil` when the body is not streamed, when it cannot be read again (a streamed body is read once), or when its
  /// source fails to open — that failure is kept and becomes the error the transfer ends with.
  func makeBodyStream(replay: Bool) -> InputStream? {
    guard case .stream(_, let makeSource) = upload.body, !replay || upload.isReplayable else { return nil }
    let source: any ChunkSource
    do {
      source = try makeSource()
    } catch {
      bodyFailed(error)
      return nil
    }
    let onError: @Sendable (any Error) -> Void = { [weak self] error in self?.bodyFailed(error) }
    #if canImport(FoundationNetworking)
    return BodyInputStream(source: source, onError: onError)
    #else
    return BoundStreamPump.makeStream(source: source, onError: onError)
    #endif
  }

  /// URLSession's `needNewBodyStream`: libcurl sends the request again on a new connection because the kept-alive one
  /// it was sent on died before a byte of the response arrived, and must rewind the body.
  ///
  /// A request whose method is not idempotent is never sent again (it may have reached the server): it gets no new
  /// stream and fails with `connectionReset` at once (``StateMachine/connectionLostBeforeResponse(method:)``). For
  /// an idempotent one, a streamed body gets a new stream when it can be read again. FoundationNetworking rewinds
  /// nothing else (given a stream for a `Data` or file body it traps; given none it sends the head alone and waits),
  /// so for those this task ends and the transport sends the request again on a new one, body included. A body that
  /// cannot be read again fails the transfer with `connectionReset` at once. Runs on the session's own queue, which
  /// `cancel()` waits for: the task is ended from another queue.
  func bodyStreamForResend() -> InputStream? {
    if case .stream = upload.body, method.isIdempotent {
      if let stream = makeBodyStream(replay: true) { return stream }
      let error =
        (bodyError as? TransportError)
        ?? bodyError.map {
          TransportError(code: .invalidRequest, message: "reading the request body failed: \($0)", underlyingError: $0)
        }
        ?? TransportError(
          code: .connectionReset,
          message: "the connection was lost before the response, and the streamed request body cannot be sent again"
        )
      DispatchQueue.global().async { [self] in fail(error) }
      return nil
    }
    DispatchQueue.global().async { [self] in connectionLost() }
    return nil
  }

  /// Ends this task: an idempotent request is sent again on a new one by the waiting caller (it throws ``Resend``),
  /// keeping the body for it; any other fails. Only before the response head: after it, libcurl never sends a request
  /// again.
  private func connectionLost() {
    perform(handle { [method] in $0.connectionLostBeforeResponse(method: method) })
  }

  /// The error that stopped the request body's source, if any.
  var bodyError: (any Error)? { state.withLock { $0.machine.requestBodyError } }
}
