/// Something that sends requests and can stop gracefully: take no new request, let the running ones finish for a
/// while, then cancel what is left.
///
/// `CurlTransport`, `URLSessionTransport` and `Networking` conform; MalibuLifecycle's `MalibuService` drains them when
/// a swift-service-lifecycle `ServiceGroup` shuts down (on `SIGTERM`, say).
///
/// ```swift
/// let transport = CurlTransport()
/// // ... requests ...
/// await transport.shutdown(gracePeriod: .seconds(10))   // returns once nothing runs any more
/// ```
public protocol Drainable: Sendable {
  /// Stops taking requests at once: a request started from now on fails with a clear error (`TransportError` code
  /// ``TransportError/Code/shutDown``, `NetworkError` code `shutDown` for a `Networking`). The requests already
  /// running go on for up to `gracePeriod`; those still running then are cancelled. Returns when none is left.
  ///
  /// Cancelling the calling task ends the grace period at once. Calling it again (or after the other kind of
  /// shutdown) waits for the same end.
  /// - Parameter gracePeriod: How long running requests may go on; `.zero` cancels them at once.
  func shutdown(gracePeriod: Duration) async
}
