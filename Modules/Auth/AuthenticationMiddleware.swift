public import Foundation
public import HTTPTypes
@_spi(Malibu) import MalibuCore
public import MalibuTransport

/// Adds the current ``Authorization`` to every request sent to one origin.
///
/// ```swift
/// let auth = AuthenticationMiddleware(origin: URL(string: "https://api.example.com"))
/// let transport = CurlTransport().with(middleware: [auth])
/// auth.authenticate(bearerToken: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9")
/// // requests to https://api.example.com now carry "Authorization: Bearer eyJ..."
/// auth.clearAuthentication()
/// ```
///
/// - The credentials can be changed at any time from any thread; each request carries the credentials current
///   when it passes through the middleware.
/// - Credentials go only to requests whose origin (scheme, host and port, default ports made explicit, host
///   compared without case) is the middleware's origin: the one given to ``init(authorization:origin:)``, or else
///   the origin of the first request that would have carried credentials, kept for the life of the middleware
///   (changing or clearing the credentials does not move it). Requests to any other origin pass untouched.
/// - A request that already has an `Authorization` field keeps it.
/// - Credentials that cannot be sent fail the request with `NetworkError.Code.invalidHeader` before
///   anything is sent (see ``Authorization/headerValue()``).
public final class AuthenticationMiddleware: Middleware {
  private let current: Locked<Authorization>
  private let scope: OriginScope

  /// Creates the middleware.
  /// - Parameters:
  ///   - authorization: The first credentials; ``Authorization/none`` by default.
  ///   - origin: The origin credentials are sent to (only scheme, host and port count). `nil` binds them to the
  ///     origin of the first request that would carry them.
  public init(authorization: Authorization = .none, origin: URL? = nil) {
    current = Locked(authorization)
    scope = OriginScope(origin: origin)
  }

  /// The current credentials; setting them affects requests that pass through the middleware from then on.
  public var authorization: Authorization {
    get { current.withLock { $0 } }
    set { current.withLock { $0 = newValue } }
  }

  /// The origin credentials are bound to: the configured one, else the pinned one, else `nil` (nothing pinned yet).
  public var origin: URL? { scope.origin }

  /// Uses HTTP Basic credentials from now on (see ``Authorization/basic(username:password:)``).
  /// - Parameters:
  ///   - username: The user id.
  ///   - password: The password.
  public func authenticate(username: String, password: String) {
    authorization = .basic(username: username, password: password)
  }

  /// Uses a Bearer token from now on (see ``Authorization/bearer(_:)``).
  /// - Parameter bearerToken: The token.
  public func authenticate(bearerToken: String) {
    authorization = .bearer(bearerToken)
  }

  /// Uses a custom `Authorization` value from now on (see ``Authorization/header(_:)``).
  /// - Parameter authorizationHeader: The whole field value.
  public func authenticate(authorizationHeader: String) {
    authorization = .header(authorizationHeader)
  }

  /// Stops adding credentials; the origin stays as it was.
  public func clearAuthentication() {
    authorization = .none
  }

  /// Adds the `Authorization` field when the request is to the middleware's origin and has none of its own.
  /// - Parameters:
  ///   - request: The request head.
  ///   - body: The request body, if any.
  ///   - options: The transfer options.
  ///   - next: The rest of the chain.
  /// - Returns: The response of the rest of the chain.
  /// - Throws: `NetworkError` with `NetworkError.Code.invalidHeader` for credentials that
  ///   cannot be sent, `NetworkError.Code.invalidURL` for a configured origin without a scheme or
  ///   host, or whatever the rest of the chain throws.
  public func intercept(
    _ request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions,
    next: Next
  ) async throws -> TransportResponse {
    let authorization = self.authorization
    guard !authorization.isNone, !request.headerFields.contains(.authorization), try scope.admits(request),
      let value = try authorization.headerValue()
    else {
      return try await next(request, body, options)
    }
    var request = request
    request.headerFields[.authorization] = value
    return try await next(request, body, options)
  }
}
