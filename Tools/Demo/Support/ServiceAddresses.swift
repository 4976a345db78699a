import Synchronization

/// The base URLs of the demo's services, set once the demo knows them (httpbin's from the command line, the
/// outbox's when the offline step picks a port). Endpoint types read them in `baseUrl`.
enum ServiceAddresses {
  private struct Addresses: Sendable {
    var httpbin = ""
    var outbox = ""
    var events = ""
  }

  private static let addresses = Mutex(Addresses())

  /// httpbin, e.g. `http://127.0.0.1:8080`.
  static var httpbin: String {
    get { addresses.withLock { $0.httpbin } }
    set { addresses.withLock { $0.httpbin = newValue } }
  }

  /// The outbox service of the offline step, e.g. `http://127.0.0.1:41234`.
  static var outbox: String {
    get { addresses.withLock { $0.outbox } }
    set { addresses.withLock { $0.outbox = newValue } }
  }

  /// The fault server of the events step, e.g. `http://127.0.0.1:41235`.
  static var events: String {
    get { addresses.withLock { $0.events } }
    set { addresses.withLock { $0.events = newValue } }
  }
}
