@_spi(Malibu) import MalibuCore
import MalibuPromises
public import MalibuTransport

extension Networking: Drainable {
  /// Shuts the networking down gracefully: a request (typed and GraphQL ones included), stream, download or replay
  /// started from now on fails at once with `NetworkError` code `shutDown` and reaches no transport; those already
  /// started (waiting in the mode's queue, at the middleware gate or transferring, a stream's body included) go on for
  /// up to `gracePeriod`; those still running then are cancelled as by ``cancelAllRequests()``. Returns once none is
  /// left.
  ///
  /// ```swift
  /// await networking.shutdown(gracePeriod: .seconds(10))
  /// ```
  /// The transport is not shut down: the default one, `CurlTransport.shared`, serves every networking of the
  /// process. Shut down a transport of your own after the networking (MalibuLifecycle's `MalibuService` does both).
  /// Cancelling the calling task ends the grace period at once.
  /// - Parameter gracePeriod: How long started requests may go on.
  public func shutdown(gracePeriod: Duration) async {
    // Subscribed before the flag is set, so that the count that reaches zero is never missed.
    let counts = activity
    flights.withLock { $0.isShutDown = true }
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        for await count in counts where count == 0 { return }
      }
      group.addTask { try? await Task.sleep(for: gracePeriod) }
      _ = await group.next()
      group.cancelAll()
    }
    cancelAllRequests()
  }

  /// Whether ``shutdown(gracePeriod:)`` has been called.
  public var isShutDown: Bool {
    flights.withLock { $0.isShutDown }
  }
}

extension NetworkError {
  /// The refusal of work started after `shutdown(gracePeriod:)` began.
  static func shutDown() -> NetworkError {
    NetworkError(
      code: .shutDown,
      message: "the networking is shutting down (shutdown(gracePeriod:) was called): it takes no new requests"
    )
  }
}
