@_spi(Malibu) import MalibuCore
import MalibuTransport

/// The timeouts of one exchange.
///
/// - total: a deadline shared by every hop of the transfer, from the moment `send` started.
/// - idle: no delegate event (response head, body bytes received, request-body bytes sent) for that long. Paused
///   while the body's reader applies back-pressure (Apple platforms only), since the stall is then the reader's.
/// - connect: URLSession reports no "connected" event, so this is the time from the start of the hop until the first
///   sign that a connection is up: the response head, or the first request-body bytes sent. For a request without a
///   body that includes the time the server takes to answer.
extension Exchange {
  func startWatchdog() {
    let timeouts = options.timeouts
    guard timeouts.connect != nil || timeouts.idle != nil || totalDeadline != nil else { return }
    let watchdog = Task { [weak self] in
      while !Task.isCancelled {
        guard let wake = self?.checkDeadlines() else { return }
        try? await Task.sleep(until: wake, clock: .continuous)
      }
    }
    let finished = state.withLock { state -> Bool in
      state.watchdog = watchdog
      if case .finished = state.phase { return true }
      return false
    }
    if finished { watchdog.cancel() }
  }

  /// Fails the exchange when a deadline has passed; otherwise the next instant to look again (`nil`: stop looking).
  private func checkDeadlines() -> ContinuousClock.Instant? {
    let now = ContinuousClock.now
    let timeouts = options.timeouts
    let (deadlines, running) = state.withLock { state -> ([(ContinuousClock.Instant, TransportError)], Bool) in
      if case .finished = state.phase { return ([], false) }
      var deadlines: [(ContinuousClock.Instant, TransportError)] = []
      if let totalDeadline, let total = timeouts.total {
        deadlines.append(
          (totalDeadline, TransportError(code: .totalTimeout, message: "the transfer took longer than \(total)"))
        )
      }
      if !state.alive, let connect = timeouts.connect {
        deadlines.append(
          (
            started + connect,
            TransportError(
              code: .connectTimeout,
              message: "no connection within \(connect) (URLSession measures this until the response head or the "
                + "first request-body byte sent)"
            )
          )
        )
      }
      if !state.paused, let idle = timeouts.idle {
        deadlines.append(
          (state.lastActivity + idle, TransportError(code: .idleTimeout, message: "no data moved for \(idle)"))
        )
      }
      return (deadlines, true)
    }
    guard running else { return nil }
    guard let earliest = deadlines.min(by: { $0.0 < $1.0 }) else { return now + .seconds(1) }
    if earliest.0 <= now {
      fail(earliest.1)
      return nil
    }
    return earliest.0
  }
}
