@_spi(Malibu) import MalibuCore
public import MalibuEncoding
public import MalibuLogging
public import MalibuStorage

// The facade's module-level API. The module is named `Malibu`, so these read `Malibu.request(_:)`,
// `Malibu.parameterEncoders`, ... in user code: module qualification, with no type named `Malibu` that would shadow
// the module (and break `Malibu.Networking` and the like).

/// The encoders request parameters are encoded with, by content type (the shared `ParameterEncoderRegistry`).
///
/// ```swift
/// Malibu.parameterEncoders[.json] = CustomJsonEncoder()
/// Malibu.parameterEncoders[.custom("application/xml")] = CustomXMLEncoder()
/// ```
public let parameterEncoders = ParameterEncoderRegistry.shared

/// The logger of every networking created without a swift-log `Logger` of its own (the shared `NetworkLogger`): it
/// writes to `Logger(label: "malibu")` and is quiet (`LogLevel.none`) until you choose a level.
///
/// ```swift
/// Malibu.logger.level = .verbose
/// Malibu.logger.logger = appLogger  // the application's swift-log Logger, instead of the "malibu" one
/// ```
public let logger = NetworkLogger.shared

/// Sends a request on the shared networking: no endpoint type, no base URL, default settings.
///
/// ```swift
/// Malibu.request(Request.get("http://127.0.0.1:8080/get")).validate(statusCodes: [200]).toString()
/// ```
/// - Parameter request: The request; its resource must be an absolute URL.
/// - Returns: The promise of the response.
@discardableResult
public func request(_ request: Request) -> NetworkPromise {
  SharedNetworking.current.request(AnyEndpoint(request: request))
}

/// Keeps a networking under a name, for code that should not pass it around.
///
/// ```swift
/// Malibu.register("base", networking: networking)
/// ```
/// - Parameters:
///   - name: The name; registering another networking under it replaces the first.
///   - networking: The networking.
public func register<R: RequestConvertible>(_ name: String, networking: Networking<R>) {
  NetworkingRegistry.shared.register(name, networking: networking)
}

/// The networking registered under a name.
///
/// ```swift
/// let same: Networking<SharkywatersEndpoint>? = Malibu.networking("base")
/// ```
/// - Parameter name: The name it was registered under.
/// - Returns: The networking, or `nil` when none is registered under `name` or it is for another endpoint type.
public func networking<R: RequestConvertible>(_ name: String) -> Networking<R>? {
  NetworkingRegistry.shared.networking(name)
}

/// Forgets the networking registered under a name (nothing happens when there is none).
///
/// ```swift
/// Malibu.unregister("base")
/// ```
/// - Parameter name: The name.
public func unregister(_ name: String) {
  NetworkingRegistry.shared.unregister(name)
}

/// The endpoint type of the shared networking: any request, no base URL.
struct AnyEndpoint: RequestConvertible {
  static let baseUrl: (any URLStringConvertible)? = nil
  let request: Request
}

/// The networking behind ``request(_:)``; tests may swap it.
enum SharedNetworking {
  private static let box = Locked(Networking<AnyEndpoint>())

  static var current: Networking<AnyEndpoint> {
    get { box.withLock { $0 } }
    set { box.withLock { $0 = newValue } }
  }
}

/// The named networkings, safe to use from any thread.
final class NetworkingRegistry: Sendable {
  static let shared = NetworkingRegistry()

  private let entries = Locked<[String: any Sendable]>([:])

  func register<R: RequestConvertible>(_ name: String, networking: Networking<R>) {
    entries.withLock { $0[name] = networking }
  }

  func networking<R: RequestConvertible>(_ name: String) -> Networking<R>? {
    entries.withLock { $0[name] } as? Networking<R>
  }

  func unregister(_ name: String) {
    entries.withLock { _ = $0.removeValue(forKey: name) }
  }
}

/// Removes every request stored for replay in the default offline store, `OfflineRequestStore.defaultDirectory()`,
/// which every networking created without an `offlineStore` shares (corrupt files set aside are kept).
///
/// ```swift
/// try Malibu.clearOfflineRequestStorage()
/// ```
/// - Throws: `StorageError` with code `ioFailed` when a file cannot be removed.
public func clearOfflineRequestStorage() throws(StorageError) {
  try DefaultOfflineStore.store.removeAll()
}
