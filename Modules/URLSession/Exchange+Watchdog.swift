@_spi(Malibu) import MalibuCore
import MalibuTransport

/// The timeouts of one exchange, enforced by the transport's ``Watchdog``: total, connect and idle (see
/// ``Exchange/StateMachine/earliestDeadline(now:)`` for how URLSession's events measure each).
extension Exchange {
  /// The earliest deadline still to watch, or `nil` when the exchange has ended or has no timeouts. While the idle
  /// timeout is paused and nothing else is due, one second from `now` (to look again).
  func nextDeadline(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
    state.withLock { $0.machine.earliestDeadline(now: now)?.instant }
  }

  /// Fails the exchange when a deadline has passed; otherwise the next instant to look again (`nil`: stop looking).
  func checkDeadlines(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
    let (step, next) = state.withLock { state in
      let action = state.machine.checkDeadlines(now: now)
      return (self.step(action, &state), state.machine.earliestDeadline(now: now)?.instant)
    }
    perform(step)
    return next
  }
}
