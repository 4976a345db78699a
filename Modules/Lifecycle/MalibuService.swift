#if Lifecycle
public import MalibuTransport
public import ServiceLifecycle

/// A swift-service-lifecycle `Service` that stops Malibu cleanly with the rest of a server: it runs until the
/// `ServiceGroup` shuts down gracefully (on `SIGTERM`, say), then drains what it was given — `Networking`s,
/// `CurlTransport`s, `URLSessionTransport`s, anything ``/MalibuTransport/Drainable`` — all at once, each with the
/// same grace period.
///
/// ```swift
/// let transport = CurlTransport()
/// let networking = Networking<SharkywatersEndpoint>(transport: .custom(transport))
/// let group = ServiceGroup(
///   services: [MalibuService([networking, transport], gracePeriod: .seconds(10)), server],
///   gracefulShutdownSignals: [.sigterm],
///   logger: logger
/// )
/// try await group.run()
/// ```
///
/// A `ServiceGroup` shuts its services down in reverse order: list this service before the services that use Malibu
/// (an HTTP server whose handlers send requests), so that they stop and finish their handlers first, and Malibu's
/// requests then get the whole grace period. From the moment the drain starts, a new request fails at once
/// (`TransportError` or `NetworkError` code `shutDown`); running ones go on for up to the grace period and are
/// cancelled after it. When the group cancels the service instead (a cancellation signal, or the group's own
/// deadline), everything still running is cancelled at once.
public struct MalibuService: Service {
  /// What is drained, all at once.
  public let parts: [any Drainable]
  /// How long running requests may go on once the drain starts.
  public let gracePeriod: Duration

  /// Creates the service.
  /// - Parameters:
  ///   - parts: The networkings and transports to drain.
  ///   - gracePeriod: How long running requests may go on once the drain starts; 10 seconds by default.
  public init(_ parts: [any Drainable], gracePeriod: Duration = .seconds(10)) {
    self.parts = parts
    self.gracePeriod = gracePeriod
  }

  /// Waits for the group's graceful shutdown, then drains every part and returns once nothing runs any more.
  /// Cancelled before or during the drain, it cancels every request still running and returns.
  public func run() async {
    let cancelled: Bool
    do {
      try await gracefulShutdown()
      cancelled = false
    } catch {
      cancelled = true
    }
    let grace = cancelled ? Duration.zero : gracePeriod
    await withTaskGroup(of: Void.self) { group in
      for part in parts {
        group.addTask { await part.shutdown(gracePeriod: grace) }
      }
    }
  }
}
#endif
