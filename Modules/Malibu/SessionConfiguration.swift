#if canImport(FoundationNetworking)
import Foundation
public import FoundationNetworking
#else
public import Foundation
#endif

/// The `URLSessionConfiguration` a ``Networking`` gives its URLSession transport (``TransportKind/urlSession``).
///
/// ```swift
/// let networking = Networking<SharkywatersEndpoint>(sessionConfiguration: .ephemeral, transport: .urlSession)
/// ```
/// The curl transport and custom transports ignore it.
public enum SessionConfiguration {
  /// `URLSessionConfiguration.default`: the shared cookie, cache and credential stores.
  case `default`
  /// `URLSessionConfiguration.ephemeral`: nothing written to disk.
  case ephemeral
  /// A background configuration with a unique identifier (FoundationNetworking on Linux has no background
  /// sessions: there it is ``default``).
  case background
  /// A configuration of your own.
  case custom(URLSessionConfiguration)

  /// The configuration to create a session with.
  var urlSessionConfiguration: URLSessionConfiguration {
    switch self {
    case .default: return .default
    case .ephemeral: return .ephemeral
    case .background:
      #if canImport(FoundationNetworking)
      return .default
      #else
      return .background(withIdentifier: "malibu.background.\(UUID().uuidString)")
      #endif
    case .custom(let configuration): return configuration
    }
  }
}

// `URLSessionConfiguration` is a mutable class; a `SessionConfiguration` is only read once, when a ``Networking``
// creates its URLSession transport (which copies it into its session), so sharing the value across threads is safe.
extension SessionConfiguration: @unchecked Sendable {}
