@_spi(Malibu) import MalibuCore

extension Networking {
  /// How many requests of this networking have started and not finished: waiting in the mode's queue, at the
  /// middleware gate, or transferring (a running ``replay()`` counts as one).
  ///
  /// ```swift
  /// if networking.inFlight == 0 { print("idle") }
  /// ```
  /// A request counts from `request(_:)` until its promise is settled; ``cancelAllRequests()`` brings the count to
  /// zero at once, since it settles every promise.
  public var inFlight: Int {
    flights.withLock { $0.count }
  }

  /// The in-flight count (``inFlight``) now and after every change, for an activity indicator.
  ///
  /// ```swift
  /// Task { @MainActor in
  ///   for await count in networking.activity { spinner.isHidden = count == 0 }
  /// }
  /// ```
  /// Each access is a subscriber of its own, which first gets the current count. A subscriber that falls behind
  /// skips to the newest count (an indicator only needs the latest), so the last value it reads is always the
  /// current one; it lives as long as the sequence or an iterator of it.
  public var activity: AsyncStream<Int> {
    let (stream, continuation) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .bufferingNewest(1))
    let id = flights.withLock { flights in
      continuation.yield(flights.count)
      return flights.watchers.add(continuation)
    }
    continuation.onTermination = { [weak self] _ in
      self?.flights.withLock { $0.watchers.remove(id) }
    }
    return stream
  }

  /// Ends every subscription of ``activity`` and ``failures`` (the networking is going away).
  func finishSubscriptions() {
    // Taken out under the lock and finished outside it: finishing runs the subscription's termination handler.
    let watchers = flights.withLock { $0.watchers.removeAll() }
    for watcher in watchers { watcher.finish() }
    hooks.finishSubscribers()
  }

  /// How many subscribers ``activity`` has.
  var activitySubscriberCount: Int { flights.withLock { $0.watchers.count } }
}

/// The subscribers of a networking's `activity`, kept with its flights so that every change of the count reaches them
/// under the same lock, in order.
struct ActivityWatchers: Sendable {
  private var continuations: [UInt64: AsyncStream<Int>.Continuation] = [:]
  private var nextID: UInt64 = 0

  /// How many subscribers there are.
  var count: Int { continuations.count }

  /// Adds a subscriber.
  /// - Returns: Its ID, for ``remove(_:)``.
  mutating func add(_ continuation: AsyncStream<Int>.Continuation) -> UInt64 {
    nextID &+= 1
    continuations[nextID] = continuation
    return nextID
  }

  /// Removes a subscriber.
  mutating func remove(_ id: UInt64) {
    continuations[id] = nil
  }

  /// Removes every subscriber.
  /// - Returns: Their continuations, to finish outside the lock.
  mutating func removeAll() -> [AsyncStream<Int>.Continuation] {
    defer { continuations.removeAll() }
    return Array(continuations.values)
  }

  /// Hands a new count to every subscriber.
  @inline(__always) func publish(_ count: Int) {
    guard !continuations.isEmpty else { return }
    for continuation in continuations.values { continuation.yield(count) }
  }
}
