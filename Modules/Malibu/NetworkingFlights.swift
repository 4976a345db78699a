@_spi(Malibu) import MalibuCore
import MalibuPromises

/// Something of a networking's that has not finished (a request or a replay): its promise and the task settling it.
///
/// The promise is kept as an existential, not in a closure that captures it with the task: that closure's context
/// was an allocation per request.
struct NetworkingFlight: Sendable {
  let promise: any CancellableAsNetworkError
  let task: Task<Void, Never>

  /// Rejects the promise with `NetworkError` code `cancelled` and cancels the task.
  func cancel() {
    promise.rejectAsCancelled()
    task.cancel()
  }
}

/// A promise that ``NetworkingFlight`` can reject as cancelled, whatever its value.
protocol CancellableAsNetworkError: AnyObject, Sendable {
  /// Rejects the promise with `NetworkError` code `cancelled`, unless it is settled.
  func rejectAsCancelled()
}

extension Promise: CancellableAsNetworkError {
  func rejectAsCancelled() {
    reject(NetworkError.cancelled())
  }
}

/// The unfinished work of a networking: a dictionary by ID, whose count is `Networking.inFlight`. A flight's ID is
/// reserved before its task starts and filled once the task exists; a late removal of an ID gone already changes
/// nothing.
struct NetworkingFlights: Sendable {
  /// Where a flight is kept.
  struct Key: Sendable {
    fileprivate let id: UInt64
  }

  private var nextID: UInt64 = 0
  /// Set by `shutdown(gracePeriod:)`: no new flight is taken from then on.
  var isShutDown = false
  /// Who is told of every change of ``count`` (`Networking.activity`).
  var watchers = ActivityWatchers()
  /// The flights by ID; `nil` for one reserved and not filled yet.
  private var flights: [UInt64: NetworkingFlight?] = [:]

  /// How many flights there are (`Networking.inFlight`).
  var count: Int { flights.count }

  /// Reserves an ID for a flight to come (see ``fill(_:with:)``).
  mutating func reserve() -> Key {
    nextID &+= 1
    flights[nextID] = .some(nil)
    watchers.publish(flights.count)
    return Key(id: nextID)
  }

  /// Keeps `flight` under `key`, unless it was let go of since it was reserved.
  mutating func fill(_ key: Key, with flight: NetworkingFlight) {
    guard flights[key.id] != nil else { return }
    flights[key.id] = .some(flight)
  }

  /// Lets go of the flight kept under `key`, unless it is gone already.
  mutating func remove(_ key: Key) {
    guard flights.removeValue(forKey: key.id) != nil else { return }
    watchers.publish(flights.count)
  }

  /// Lets go of every flight and returns them.
  mutating func removeAll() -> [NetworkingFlight] {
    guard !flights.isEmpty else { return [] }
    let all = flights.values.compactMap { $0 }  // a flight reserved and not filled yet has none
    flights.removeAll()
    watchers.publish(0)
    return all
  }
}
