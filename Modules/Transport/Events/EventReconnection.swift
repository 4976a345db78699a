/// When and how a stream of server-sent events reconnects after its connection drops or ends.
///
/// ```swift
/// var reconnection = EventReconnection()
/// reconnection.idleTimeout = .seconds(45)       // no byte for 45 s: reconnect
/// reconnection.reconnectsWithBody = true        // also re-send a POST
/// for try await event in transport.events(request, reconnection: reconnection) { ... }
/// ```
///
/// The wait before a reconnection is the stream's last `retry` value, or ``delay`` when it sent none, plus up to
/// ``jitter`` of it at random, and never more than ``maximumDelay``.
public struct EventReconnection: Sendable, Hashable {
  /// The wait before reconnecting when the server set no `retry`: 3 seconds by default.
  public var delay: Duration
  /// The share of the wait added at random (0 for none, 0.25 for up to a quarter more): 0.1 by default.
  public var jitter: Double
  /// The longest wait, whatever the server's `retry` says: 60 seconds by default.
  public var maximumDelay: Duration
  /// How many reconnections in a row may fail (connect, then drop or end with no event) before the sequence
  /// ends with the last error: 10 by default. 0 turns reconnection off.
  public var maxAttempts: Int
  /// Whether a request with a body (a POST that starts a completion) reconnects; off by default, since re-sending
  /// it may repeat its effect.
  public var reconnectsWithBody: Bool
  /// How long the stream may stay silent (no byte: no event, no comment) before it counts as a dropped
  /// connection; `nil` (the default) for no limit.
  public var idleTimeout: Duration?

  /// Creates a policy.
  /// - Parameters:
  ///   - delay: The wait when the server set no `retry`.
  ///   - jitter: The share of the wait added at random.
  ///   - maximumDelay: The longest wait.
  ///   - maxAttempts: How many reconnections in a row may fail.
  ///   - reconnectsWithBody: Whether requests with a body reconnect.
  ///   - idleTimeout: The longest silence before the connection counts as dropped.
  public init(
    delay: Duration = .seconds(3),
    jitter: Double = 0.1,
    maximumDelay: Duration = .seconds(60),
    maxAttempts: Int = 10,
    reconnectsWithBody: Bool = false,
    idleTimeout: Duration? = nil
  ) {
    self.delay = delay
    self.jitter = jitter
    self.maximumDelay = maximumDelay
    self.maxAttempts = maxAttempts
    self.reconnectsWithBody = reconnectsWithBody
    self.idleTimeout = idleTimeout
  }

  /// No reconnection: the sequence ends when the connection ends, and throws when it drops.
  public static var never: EventReconnection { EventReconnection(maxAttempts: 0) }

  /// The wait before a reconnection.
  /// - Parameter retry: The server's last `retry` value in milliseconds, if any.
  /// - Returns: The wait, jitter included, capped at ``maximumDelay``.
  public func wait(retry: Int?) -> Duration {
    let base = retry.map { Duration.milliseconds(min($0, Int(Int32.max))) } ?? delay
    let extra = jitter > 0 ? base * Double.random(in: 0...jitter) : .zero
    return min(base + extra, maximumDelay)
  }
}
