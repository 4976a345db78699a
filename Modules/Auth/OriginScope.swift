import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuCore
import MalibuTransport

/// The one origin (scheme, host, port) credentials may be sent to: the configured one, or else the origin of the
/// first request that would have carried them, pinned for the life of the middleware.
struct OriginScope: Sendable {
  private let configured: URL?
  private let pinned = Locked<URL?>(nil)

  init(origin: URL?) {
    configured = origin
  }

  /// The configured origin, else the pinned one, else `nil`.
  var origin: URL? {
    configured ?? pinned.withLock { $0 }
  }

  /// Whether credentials may be added to `request`; pins the request's origin when none is configured or pinned.
  /// - Throws: ``NetworkError/Code/invalidURL`` when the configured origin has no HTTP(S) scheme or no host.
  func admits(_ request: HTTPRequest) throws(NetworkError) -> Bool {
    guard let target = Self.originURL(of: request) else { return false }
    if let configured {
      guard let scheme = configured.scheme?.lowercased(), scheme == "http" || scheme == "https",
        let host = configured.host, !host.isEmpty
      else {
        throw NetworkError(
          code: .invalidURL,
          message: "the authentication origin '\(configured.absoluteString)' has no http(s) scheme or no host"
        )
      }
      return Redirects.isSameOrigin(configured, target)
    }
    return pinned.withLock { pinned in
      guard let origin = pinned else {
        pinned = target
        return true
      }
      return Redirects.isSameOrigin(origin, target)
    }
  }

  /// `scheme://authority` of an absolute HTTP(S) request, or `nil` for any other request.
  private static func originURL(of request: HTTPRequest) -> URL? {
    guard let scheme = request.scheme?.lowercased(), scheme == "http" || scheme == "https",
      let authority = request.authority, !authority.isEmpty,
      let url = URL(string: "\(scheme)://\(authority)"), let host = url.host, !host.isEmpty
    else { return nil }
    return url
  }
}
