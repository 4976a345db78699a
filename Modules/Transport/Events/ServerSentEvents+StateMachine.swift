import HTTPTypes

extension ServerSentEvents {
  /// The life of a reconnecting event stream as a value: the iterator reports what happened (a connection opened or
  /// failed, events arrived, the body ended) and performs the action it gets back (connect, after the wait or not;
  /// read; stop; throw). No I/O and no clock inside, so every transition is tested without a server.
  struct StateMachine {
    /// Where the stream is.
    enum State: Equatable {
      /// Nothing sent yet: the first connection goes at once.
      case initial
      /// A connection's body is being read; `failures` reconnections in a row have failed so far.
      case streaming(failures: Int)
      /// The last connection ended, dropped or failed: the next one goes after the wait.
      case reconnecting(failures: Int)
      /// The stream is over.
      case finished
    }

    /// What to do to get the next connection.
    enum ConnectAction: Equatable {
      /// Connect; after the reconnection wait when `afterWait`.
      case connect(afterWait: Bool)
      /// The stream is over: return `nil`.
      case stop
    }

    /// What to do after a connection attempt or the end of a body.
    enum Action {
      /// Read the body.
      case read
      /// Connect again (``nextConnection()`` says when).
      case reconnect
      /// The stream is over: return `nil`.
      case stop
      /// The stream is over: throw the error.
      case fail(any Error)
    }

    private(set) var state = State.initial
    /// How many reconnections in a row may fail.
    let maxAttempts: Int

    init(maxAttempts: Int) {
      self.maxAttempts = maxAttempts
    }

    /// The next connection: at once the first time, after the wait later, none once finished.
    func nextConnection() -> ConnectAction {
      switch state {
      case .initial: return .connect(afterWait: false)
      case .reconnecting: return .connect(afterWait: true)
      case .streaming, .finished: return .stop
      }
    }

    /// A connection answered with `head`: a 204 ends the stream, a head that is not an event stream ends it with its
    /// ``EventStreamError``, any other is read.
    mutating func connected(_ head: HTTPResponse) -> Action {
      if head.status.code == 204 {
        state = .finished
        return .stop
      }
      if let error = EventStreamError.check(head) {
        state = .finished
        return .fail(error)
      }
      state = .streaming(failures: failures)
      return .read
    }

    /// A connection attempt failed with `error`; only a failure of the network (`retryable`) is worth another one.
    mutating func connectFailed(_ error: any Error, retryable: Bool) -> Action {
      guard retryable else {
        state = .finished
        return .fail(error)
      }
      return countFailure(error)
    }

    /// Events arrived: the connection works, so the count of failures starts again.
    mutating func receivedEvents() {
      if case .streaming = state { state = .streaming(failures: 0) }
    }

    /// The body ended: cleanly (`error` is `nil`) or dropped.
    mutating func bodyEnded(_ error: (any Error)?) -> Action {
      countFailure(error)
    }

    /// Cancelled: the stream is over.
    mutating func cancelled() {
      state = .finished
    }

    private var failures: Int {
      switch state {
      case .streaming(let failures), .reconnecting(let failures): return failures
      case .initial, .finished: return 0
      }
    }

    /// One more failed reconnection: another attempt while ``maxAttempts`` allows, else the end (with `error`).
    private mutating func countFailure(_ error: (any Error)?) -> Action {
      let failures = failures + 1
      guard failures <= maxAttempts else {
        state = .finished
        return error.map(Action.fail) ?? .stop
      }
      state = .reconnecting(failures: failures)
      return .reconnect
    }
  }
}
