@_spi(Malibu) import MalibuCore
import MalibuPromises
import MalibuTransport

/// Starts the work of one networking, and keeps it in the flights until it lands.
///
/// It is not generic over the endpoint type, so that a request's promise, of a concrete type, is settled by code
/// specialized for it rather than by the promise library's generic entry points.
struct NetworkingLauncher: Sendable {
  /// The networking's unfinished work.
  let flights: Locked<NetworkingFlights>
  /// The mode's queue.
  let limiter: RequestLimiter
  /// The networking's transport, whose executor a caller on its thread keeps.
  let transport: any Transport

  /// Starts a piece of work (a request of any kind, a download, a stream, a replay): the one path every entry point
  /// takes from its call to its promise.
  ///
  /// In order: a flight in `flights` (refused with `NetworkError` code `shutDown` once
  /// `Networking.shutdown(gracePeriod:)` has begun, before anything else happens), a place in `queue`, then a task that runs
  /// `work`, leaves the flights and only then settles `promise`, so that a caller it wakes never still counts it in
  /// `Networking.inFlight`. Cancelling `promise`, or `Networking.cancelAllRequests()`, cancels the task.
  ///
  /// Where the runtime has `Task.immediate` (Linux, and Apple platforms from their 26 releases), the work runs on the
  /// calling thread until it first waits (for its slot, the middleware gate or the transport), which saves a thread
  /// hop per request; elsewhere it starts as a plain `Task`. A caller running on the transport's own thread
  /// (`Transport.taskExecutor`) keeps it for the work too.
  /// - Parameters:
  ///   - promise: The promise `work`'s outcome settles (a stream resolves it itself, before its body is read, and
  ///     keeps its flight until then).
  ///   - queue: Where the work takes its turn; the mode's queue (`limiter`) when `nil`. `work` waits for the
  ///     ticket itself, since some checks come before its turn.
  ///   - rejection: The error `promise` is rejected with, from the one `work` threw.
  ///   - work: The work, given its ticket in `queue`.
  /// - Returns: `promise`.
  @discardableResult @inline(__always)
  func launch<Value: Sendable>(
    _ promise: Promise<Value> = Promise(),
    queue: RequestLimiter? = nil,
    rejecting rejection: @escaping @Sendable (any Error) -> any Error = NetworkError.rejection(for:),
    _ work: @escaping @Sendable (RequestLimiter.Ticket) async throws -> Value
  ) -> Promise<Value> {
    guard let key = reserveFlight() else { return refuseAfterShutdown(promise) }
    let ticket = (queue ?? limiter).reserve()
    let executor = inheritedExecutor()
    let task: Task<Void, Never>
    if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
      task = Task.immediate(executorPreference: executor) {
        await run(work, ticket: ticket, settling: promise, flight: key, rejecting: rejection)
      }
    } else {
      task = Task(executorPreference: executor) {
        await run(work, ticket: ticket, settling: promise, flight: key, rejecting: rejection)
      }
    }
    track(promise, task: task, under: key)
    return promise
  }

  /// Runs the work of a flight, lets go of the flight, then settles its promise.
  private func run<Value: Sendable>(
    _ work: @Sendable (RequestLimiter.Ticket) async throws -> Value,
    ticket: RequestLimiter.Ticket,
    settling promise: Promise<Value>,
    flight key: NetworkingFlights.Key,
    rejecting rejection: (any Error) -> any Error
  ) async {
    let outcome: Result<Value, any Error>
    do {
      outcome = .success(try await work(ticket))
    } catch {
      outcome = .failure(error)
    }
    // Out of the flights (and `inFlight`) before the promise settles: a caller it wakes never still counts it.
    land(key)
    switch outcome {
    case .success(let value): promise.resolve(value)
    case .failure(let error): promise.reject(rejection(error))
    }
  }

  /// The transport's executor when the calling task prefers it, else `nil`: a new task does not inherit its creator's
  /// preference, and without it every response would hop from the transport's thread to the global pool and back.
  private func inheritedExecutor() -> (any TaskExecutor)? {
    guard let executor = transport.taskExecutor else { return nil }
    let preferred = withUnsafeCurrentTask { $0?.unownedTaskExecutor }
    return preferred == executor.asUnownedTaskExecutor() ? executor : nil
  }

  /// A slot in ``flights`` for new work, or `nil` once the networking is shutting down.
  private func reserveFlight() -> NetworkingFlights.Key? {
    flights.withLock { $0.isShutDown ? nil : $0.reserve() }
  }

  /// Rejects the promise of work started after ``shutdown(gracePeriod:)`` began.
  private func refuseAfterShutdown<Value: Sendable>(_ promise: Promise<Value>) -> Promise<Value> {
    promise.reject(NetworkError.shutDown())
    return promise
  }

  /// Keeps `promise` and its `task` in ``flights`` under `key` until the task lands (``land(_:)``), so
  /// ``cancelAllRequests()`` reaches them; cancelling the promise cancels the task.
  ///
  /// The slot is reserved before the task starts and the task clears it as its last step, which needs no observer on
  /// the promise (an `always` hook cost two allocations per request). A task that landed before this call, as a
  /// request answered at once by a mock does, leaves a slot this call finds gone.
  @inline(__always) private func track<Value: Sendable>(
    _ promise: Promise<Value>,
    task: Task<Void, Never>,
    under key: NetworkingFlights.Key
  ) {
    flights.withLock { $0.fill(key, with: NetworkingFlight(promise: promise, task: task)) }
    promise.onCancel { task.cancel() }
  }

  /// Lets go of the flight under `key`: the last step of its task.
  private func land(_ key: NetworkingFlights.Key) {
    flights.withLock { $0.remove(key) }
  }
}
