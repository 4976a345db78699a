import Foundation
@_spi(Malibu) public import MalibuCore
import MalibuLogging
public import MalibuPromises
public import MalibuStorage
import MalibuTransport

/// The outcome of one replayed request: its response, or the `NetworkError` it failed with.
public typealias ReplayOutcome = Result<Response, NetworkError>

extension Networking {
  /// The `TransportError` codes that mean "the host could not be reached", so an `.offline` request is saved:
  /// `connectionRefused`, `dnsFailure` and `connectTimeout`. Everything else (a response of any status, another
  /// timeout, a reset connection, TLS, cancellation) is not saved. The saving is the chain's offline-store step
  /// (`OfflineStoreMiddleware`, under the cache step), taken only by requests with `storePolicy: .offline`.
  public static var offlineErrorCodes: Set<TransportError.Code> { OfflineStoreMiddleware.hostUnreachableCodes }

  /// Re-sends the stored offline requests, oldest first, one after another.
  ///
  /// Replays of one store run one at a time, whichever networking starts them (they are keyed by the store's
  /// directory): a second `replay()` waits for the running one and then sends what is left, so no stored request
  /// is sent twice. ``cancelAllRequests()`` and cancelling the returned promise stop a replay; the requests not yet
  /// answered stay in the store.
  ///
  /// ```swift
  /// networking.replay().done { outcomes in print("\(outcomes.count) requests replayed") }
  /// ```
  /// Each stored request was saved after ``beforeEach``, so it is not passed to it again; it goes through the
  /// ``middleware`` gate, encoding (with the current ``headers``), ``preProcessRequest``, logging,
  /// authentication, the cache and ``transport`` (never the mock provider), taking its turn in the mode's queue.
  /// A request that gets a response (of any status) is removed from the store; one that fails because the host
  /// still cannot be reached (``offlineErrorCodes``) or is cancelled is kept; one that fails otherwise is removed,
  /// since sending it again would fail again. Only entries the store itself saved are sent: a file it did not write
  /// (a forged `uploadFile` entry naming a local file, say) or cannot read is moved aside by the store, reported
  /// through ``logger`` as a `StorageError` with the problem's code (`untrustedEntry`, `corruptEntry`), and never
  /// sent, nor is it among the outcomes. An empty store resolves at once.
  /// In ``mockMode`` `mocksOnly` it sends nothing and keeps every stored request (they have no endpoint a mock could
  /// answer, and that mode never touches the network). Like ``request(_:)``, a replay starts on the calling thread and
  /// goes on there until it first has to wait.
  /// - Returns: The outcome of every replayed request, in replay order; rejected with a `StorageError` when the
  ///   store directory cannot be read, and with `NetworkError` code `missingMock` in ``mockMode`` `mocksOnly`.
  @discardableResult
  public func replay() -> Promise<[ReplayOutcome]> {
    let turns = ReplayTurns.limiter(for: offlineStore)
    let work: @Sendable (RequestLimiter.Ticket) async throws -> [ReplayOutcome] = { [self] ticket in
      try await turns.wait(for: ticket)
      defer { turns.release() }
      return try await replayStoredRequests()
    }
    // A storage error reaches the promise as it is; only a cancellation becomes a `NetworkError`.
    return launcher.launch(queue: turns, rejecting: { $0 is CancellationError ? NetworkError.cancelled() : $0 }, work)
  }

  /// Removes every stored offline request of ``offlineStore`` (corrupt files set aside are kept).
  ///
  /// ```swift
  /// try networking.clearOfflineRequestStorage()
  /// ```
  /// - Throws: `StorageError` with code `ioFailed` when a file cannot be removed.
  public func clearOfflineRequestStorage() throws(StorageError) {
    try offlineStore.removeAll()
  }

  private func replayStoredRequests() async throws -> [ReplayOutcome] {
    let logger = self.logger
    try refuseReplayInMocksOnlyMode(logger: logger)
    let contents: OfflineStoreContents
    do {
      contents = try offlineStore.load()
    } catch {
      logger.log(error: error)
      throw error
    }
    for problem in contents.problems {
      logger.log(
        error: StorageError(
          code: problem.code,
          message: "offline store: \(problem)",
          underlyingError: problem.underlyingError
        )
      )
    }
    var outcomes: [ReplayOutcome] = []
    for entry in contents.requests {
      try Task.checkCancellation()
      let outcome: ReplayOutcome
      do {
        outcome = .success(try await sendInTurn(entry.request))
      } catch {
        outcome = .failure(NetworkError.wrapping(error))
      }
      outcomes.append(outcome)
      if case .failure(let error) = outcome, error.isCancellation || Self.isHostUnreachable(error) { continue }
      do {
        try offlineStore.remove(entry)
      } catch {
        logger.log(error: error)
      }
    }
    return outcomes
  }

  /// Whether an error means the host could not be reached (see ``offlineErrorCodes``).
  static func isHostUnreachable(_ error: any Error) -> Bool {
    let transportError =
      (error as? TransportError) ?? ((error as? NetworkError)?.underlyingError as? TransportError)
    guard let transportError else { return false }
    return offlineErrorCodes.contains(transportError.code)
  }
}

/// One queue per offline store directory, so that replays of one store never overlap.
enum ReplayTurns {
  private static let limiters = Locked<[String: RequestLimiter]>([:])

  /// The one-slot queue of the store's directory.
  static func limiter(for store: OfflineRequestStore) -> RequestLimiter {
    let key = store.directory.standardizedFileURL.path
    return limiters.withLock { limiters in
      if let limiter = limiters[key] { return limiter }
      let limiter = RequestLimiter(limit: 1)
      limiters[key] = limiter
      return limiter
    }
  }
}

/// The offline store networkings use unless given one: `OfflineRequestStore.defaultDirectory()`, one instance per
/// process so that every networking shares its lock and sequence numbers.
enum DefaultOfflineStore {
  static let store = OfflineRequestStore(directory: OfflineRequestStore.defaultDirectory())
}
