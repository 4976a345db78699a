public import MalibuTransport
import MalibuURLSession

#if canImport(MalibuCurl)
import MalibuCurl
#endif

/// Which transport a ``Networking`` sends its requests with.
///
/// ```swift
/// let standard = Networking<SharkywatersEndpoint>()                         // .platformDefault
/// let viaURLSession = Networking<SharkywatersEndpoint>(transport: .urlSession)
/// let inTests = Networking<SharkywatersEndpoint>(transport: .custom(MockTransport()))
/// ```
/// The default, ``platformDefault``, is ``curl`` on Linux and macOS: one engine, the same behaviour (HTTP/2,
/// connection reuse, timeouts, TLS pinning, decompression limits) on both. The iOS, tvOS, watchOS and visionOS SDKs
/// ship no libcurl, so there the facade is built without MalibuCurl: ``curl`` does not exist (naming it is a
/// compile error, not a silent fallback) and the default is ``urlSession``. ``urlSession`` is there everywhere, for
/// apps that want the system's cookie and cache stores or background sessions.
public enum TransportKind: Sendable {
  #if canImport(MalibuCurl)
  /// `CurlTransport.shared`: one curl engine shared by every networking of the process. Linux and macOS only.
  case curl
  #endif
  /// A `URLSessionTransport` of the networking's own, made from its ``SessionConfiguration``.
  case urlSession
  /// Any transport: a `MockTransport` in tests, a transport wrapped in middleware of your own, a custom engine.
  case custom(any Transport)

  /// The transport a ``Networking`` uses unless told otherwise: ``curl`` on Linux and macOS, ``urlSession`` on iOS,
  /// tvOS, watchOS and visionOS (whose SDKs have no libcurl).
  public static var platformDefault: TransportKind {
    #if canImport(MalibuCurl)
    return .curl
    #else
    return .urlSession
    #endif
  }
}

extension TransportKind {
  /// Whether this kind is the networking's own URLSession transport.
  var isURLSession: Bool {
    if case .urlSession = self { return true }
    return false
  }

  /// The transport this kind stands for; a URLSession transport is made from `sessionConfiguration`.
  func makeTransport(sessionConfiguration: SessionConfiguration) -> any Transport {
    switch self {
    #if canImport(MalibuCurl)
    case .curl: return CurlTransport.shared
    #endif
    case .urlSession: return URLSessionTransport(configuration: sessionConfiguration.urlSessionConfiguration)
    case .custom(let transport): return transport
    }
  }
}
