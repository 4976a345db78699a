import Foundation
@_spi(Malibu) import MalibuCore
import MalibuTransport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one delegate of a transport's sessions: it routes each task's events to that task's ``Exchange``.
///
/// URLSession calls it on the transport's serial delegate queue, except `needNewBodyStream`, which FoundationNetworking
/// calls on the session's own queue and waits for: that one builds a stream and ends a task only from another queue.
///
/// When a body's reader is woken is the ``BodyFlusher``'s call.
final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
  private let exchanges = Locked<[ObjectIdentifier: Exchange]>([:])
  private let flusher: BodyFlusher

  /// A delegate whose sessions call it on `queue`.
  init(queue: OperationQueue) {
    flusher = BodyFlusher(.delegateQueue(queue))
  }

  /// Routes the events of `task` to `exchange` until the task completes.
  func register(_ exchange: Exchange, for task: URLSessionTask) {
    exchanges.withLock { $0[ObjectIdentifier(task)] = exchange }
  }

  /// Ends every exchange in flight with `error` (the transport is shutting down).
  func failAll(_ error: TransportError) {
    for exchange in exchanges.withLock({ Array($0.values) }) { exchange.fail(error) }
  }

  /// How many exchanges are in flight (their tasks not completed).
  var exchangeCount: Int {
    exchanges.withLock { $0.count }
  }

  private func exchange(for task: URLSessionTask) -> Exchange? {
    exchanges.withLock { $0[ObjectIdentifier(task)] }
  }

  func urlSession(
    _ session: URLSession,
    dataTask: URLSessionDataTask,
    didReceive response: URLResponse,
    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
  ) {
    exchange(for: dataTask)?.didReceive(response)
    completionHandler(.allow)
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    guard let channel = exchange(for: dataTask)?.didReceive(data) else { return }
    flusher.wrote(data.count, to: channel)
  }

  func urlSession(
    _ session: URLSession,
    task: URLSessionTask,
    didSendBodyData bytesSent: Int64,
    totalBytesSent: Int64,
    totalBytesExpectedToSend: Int64
  ) {
    exchange(for: task)?.didSend(total: totalBytesSent, expected: totalBytesExpectedToSend)
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
    let exchange = exchanges.withLock { $0.removeValue(forKey: ObjectIdentifier(task)) }
    exchange?.didComplete(error)
  }

  /// URLSession's own redirect handling is switched off: the 3xx response comes back to the transport, which follows
  /// it with the rules every Malibu transport shares.
  func urlSession(
    _ session: URLSession,
    task: URLSessionTask,
    willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest,
    completionHandler: @escaping @Sendable (URLRequest?) -> Void
  ) {
    completionHandler(nil)
  }

  func urlSession(
    _ session: URLSession,
    task: URLSessionTask,
    needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
  ) {
    completionHandler(exchange(for: task)?.bodyStreamForResend())
  }

  func urlSession(
    _ session: URLSession,
    task: URLSessionTask,
    didReceive challenge: URLAuthenticationChallenge,
    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
  ) {
    #if canImport(Security)
    if challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
      let exchange = exchange(for: task)
    {
      let (disposition, credential) = ServerTrust.evaluate(challenge, options: exchange.options.tls)
      completionHandler(disposition, credential)
      return
    }
    #endif
    #if canImport(FoundationNetworking)
    // An HTTP authentication challenge (server trust never reaches the delegate on Linux): the 401 response is the
    // answer; "default handling" would leave the task waiting forever.
    exchange(for: task)?.finishBeforeChallenge()
    completionHandler(.cancelAuthenticationChallenge, nil)
    #else
    // Credential storage is off: no credential is added, and the 401 response comes back as it is.
    completionHandler(.performDefaultHandling, nil)
    #endif
  }
}
