@_spi(Malibu) import MalibuCore
import MalibuTransport

/// The timeouts of one exchange, enforced by the transport's ``Watchdog``.
///
/// - total: a deadline shared by every hop of the transfer, from the moment `send` started.
/// - idle: no delegate event (response head, body bytes received, request-body bytes sent) for that long. Paused
///   while the body's reader applies back-pressure (Apple platforms only), since the stall is then the reader's.
/// - connect: URLSession reports no "connected" event, so this is the time from the start of the hop until the first
///   sign that a connection is up: the response head, or the first request-body bytes sent. For a request without a
///   body that includes the time the server takes to answer.
extension Exchange {
  /// A timeout of the exchange and the instant it runs out.
  private enum Deadline {
    case total(ContinuousClock.Instant)
    case connect(ContinuousClock.Instant)
    case idle(ContinuousClock.Instant)

    var instant: ContinuousClock.Instant {
      switch self {
      case .total(let instant), .connect(let instant), .idle(let instant): instant
      }
    }
  }

  /// The earliest deadline still to watch, or `nil` when the exchange has ended or has no timeouts. While the idle
  /// timeout is paused and nothing else is due, one second from `now` (to look again).
  func nextDeadline(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
    earliestDeadline(now: now)?.instant
  }

  /// Fails the exchange when a deadline has passed; otherwise the next instant to look again (`nil`: stop looking).
  func checkDeadlines(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
    guard let deadline = earliestDeadline(now: now) else { return nil }
    guard deadline.instant <= now else { return deadline.instant }
    let timeouts = options.timeouts
    switch deadline {
    case .total:
      fail(TransportError(code: .totalTimeout, message: "the transfer took longer than \(timeouts.total ?? .zero)"))
    case .connect:
      fail(
        TransportError(
          code: .connectTimeout,
          message: "no connection within \(timeouts.connect ?? .zero) (URLSession measures this until the response "
            + "head or the first request-body byte sent)"
        )
      )
    case .idle:
      fail(TransportError(code: .idleTimeout, message: "no data moved for \(timeouts.idle ?? .zero)"))
    }
    return nil
  }

  private func earliestDeadline(now: ContinuousClock.Instant) -> Deadline? {
    let timeouts = options.timeouts
    guard timeouts.connect != nil || timeouts.idle != nil || totalDeadline != nil else { return nil }
    let snapshot = state.withLock { state -> (alive: Bool, paused: Bool, lastActivity: ContinuousClock.Instant)? in
      if case .finished = state.phase { return nil }
      return (state.alive, state.paused, state.lastActivity)
    }
    guard let snapshot else { return nil }
    var earliest: Deadline?
    func consider(_ deadline: Deadline) {
      if earliest.map({ deadline.instant < $0.instant }) ?? true { earliest = deadline }
    }
    if let totalDeadline { consider(.total(totalDeadline)) }
    if !snapshot.alive, let connect = timeouts.connect { consider(.connect(started + connect)) }
    if !snapshot.paused, let idle = timeouts.idle { consider(.idle(snapshot.lastActivity + idle)) }
    return earliest ?? .idle(now + .seconds(1))
  }
}
