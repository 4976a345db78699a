internal import MalibuTransport

/// The one way mocks wait: a cancellable sleep that ends with a cancellation `TransportError`.
enum MockDelay {
  /// The longest delay honoured, so that a huge or non-finite number of seconds neither traps nor hangs forever.
  static let maximumSeconds = 86_400.0

  /// Sleeps for `duration`; returns at once for zero or less.
  static func sleep(_ duration: Duration) async throws(TransportError) {
    guard duration > .zero else {
      try checkCancellation()
      return
    }
    do {
      try await Task.sleep(for: min(duration, .seconds(maximumSeconds)))
    } catch {
      throw cancelled()
    }
  }

  /// Sleeps for a number of seconds; NaN, infinite and negative numbers count as none.
  static func sleep(seconds: Double) async throws(TransportError) {
    try await sleep(duration(seconds: seconds))
  }

  /// A number of seconds as a duration: NaN, infinite and negative numbers are zero, huge ones are capped.
  static func duration(seconds: Double) -> Duration {
    guard seconds.isFinite, seconds > 0 else { return .zero }
    return .seconds(min(seconds, maximumSeconds))
  }

  static func checkCancellation() throws(TransportError) {
    if Task.isCancelled { throw cancelled() }
  }

  static func cancelled() -> TransportError {
    TransportError(code: .cancelled, message: "the mocked transfer was cancelled")
  }
}
