import MalibuCurl
public import MalibuTransport
import MalibuURLSession

/// Which transport a ``Networking`` sends its requests with.
///
/// ```swift
/// let viaCurl = Networking<SharkywatersEndpoint>()                          // .curl, the default everywhere
/// let viaURLSession = Networking<SharkywatersEndpoint>(transport: .urlSession)
/// let inTests = Networking<SharkywatersEndpoint>(transport: .custom(MockTransport()))
/// ```
/// The default is ``curl`` on every platform, Linux and Apple alike: one engine, the same behaviour (HTTP/2,
/// connection reuse, timeouts, TLS pinning, decompression limits) wherever the code runs. ``urlSession`` is there
/// for apps that want the system's cookie and cache stores or background sessions.
public enum TransportKind: Sendable {
  /// `CurlTransport.shared`: one curl engine shared by every networking of the process.
  case curl
  /// A `URLSessionTransport` of the networking's own, made from its ``SessionConfiguration``.
  case urlSession
  /// Any transport: a `MockTransport` in tests, a transport wrapped in middleware of your own, a custom engine.
  case custom(any Transport)
}

extension TransportKind {
  /// The transport this kind stands for; a URLSession transport is made from `sessionConfiguration`.
  func makeTransport(sessionConfiguration: SessionConfiguration) -> any Transport {
    switch self {
    case .curl: return CurlTransport.shared
    case .urlSession: return URLSessionTransport(configuration: sessionConfiguration.urlSessionConfiguration)
    case .custom(let transport): return transport
    }
  }
}
