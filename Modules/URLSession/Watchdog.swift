@_spi(Malibu) import MalibuCore

/// One timer for the timeouts of every exchange of a transport.
///
/// A timer of its own per exchange would cost each request a task, a sleep and a wake-up when the request ends. Here an exchange is added to a table under a lock, and one task sleeps until
/// the earliest deadline of all of them. As deadlines lie at least a timeout after the start of each exchange, a new
/// exchange rarely moves the wake-up earlier; when it does (or nothing was watched), the sleeping task is replaced.
/// At each wake-up every watched exchange checks its own deadlines (`Exchange+Watchdog.swift`): one that has passed
/// fails its exchange; the earliest one still ahead is the next wake-up. With nothing left to watch the task ends.
final class Watchdog: Sendable {
  private struct State {
    var exchanges: [ObjectIdentifier: Exchange] = [:]
    /// The instant the running timer wakes at, or `nil` when no timer runs.
    var wake: ContinuousClock.Instant?
    var timer: Task<Void, Never>?
    /// Tells the current timer from a replaced one.
    var generation: UInt64 = 0
  }

  private let state = Locked(State())

  /// Enforces the timeouts of `exchange` until ``forget(_:)``, or until one of them fails it.
  func watch(_ exchange: Exchange) {
    state.withLock { state in
      // Asked under this lock (the exchange's own lock nests inside it, never the other way round), so an exchange
      // that ends meanwhile is either seen as ended here or removed by its `forget` after it was added.
      guard let deadline = exchange.nextDeadline(now: .now) else { return }
      state.exchanges[ObjectIdentifier(exchange)] = exchange
      if let wake = state.wake, wake <= deadline { return }
      startTimer(at: deadline, &state)
    }
  }

  /// Stops watching `exchange` (it has ended).
  func forget(_ exchange: Exchange) {
    state.withLock { state in
      _ = state.exchanges.removeValue(forKey: ObjectIdentifier(exchange))
    }
  }

  /// Replaces the running timer (if any) with one that first wakes at `wake`.
  private func startTimer(at wake: ContinuousClock.Instant, _ state: inout State) {
    state.timer?.cancel()
    state.generation &+= 1
    let generation = state.generation
    state.wake = wake
    state.timer = Task { [weak self] in
      var next = wake
      while true {
        try? await Task.sleep(until: next, clock: .continuous)
        guard !Task.isCancelled, let self, let after = self.sweep(generation) else { return }
        next = after
      }
    }
  }

  /// Lets every watched exchange check its deadlines; returns the next instant to wake at, or `nil` when the timer
  /// that called it should end (nothing left to watch, or it was replaced).
  private func sweep(_ generation: UInt64) -> ContinuousClock.Instant? {
    let watched = state.withLock { state in
      state.generation == generation ? Array(state.exchanges.values) : []
    }
    let now = ContinuousClock.now
    let swept = Set(watched.map(ObjectIdentifier.init))
    var ended: [ObjectIdentifier] = []
    var earliest: ContinuousClock.Instant?
    for exchange in watched {
      // Outside the lock: a deadline that has passed fails the exchange, which calls `forget`.
      if let next = exchange.checkDeadlines(now: now) {
        earliest = min(earliest ?? next, next)
      } else {
        ended.append(ObjectIdentifier(exchange))
      }
    }
    return state.withLock { state in
      guard state.generation == generation else { return nil }
      for id in ended { state.exchanges.removeValue(forKey: id) }
      // An exchange added during the sweep may wake earlier than the ones swept.
      for (id, exchange) in state.exchanges where !swept.contains(id) {
        if let next = exchange.nextDeadline(now: now) { earliest = min(earliest ?? next, next) }
      }
      state.wake = earliest
      if earliest == nil { state.timer = nil }
      return earliest
    }
  }
}
