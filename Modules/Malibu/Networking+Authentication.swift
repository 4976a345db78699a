import Foundation
import MalibuAuth
@_spi(Malibu) import MalibuCore
import MalibuTransport

extension Networking {
  /// Sends HTTP Basic credentials with every request to `R.baseUrl`'s origin from now on, replacing any earlier
  /// form of authentication.
  ///
  /// ```swift
  /// networking.authenticate(username: "surfer", password: "s3cret")
  /// ```
  /// - Parameters:
  ///   - username: The user id.
  ///   - password: The password.
  public func authenticate(username: String, password: String) {
    replaceAuthentication { $0.authenticate(username: username, password: password) }
  }

  /// Sends `Authorization: Bearer <token>` with every request to `R.baseUrl`'s origin from now on, replacing any
  /// earlier form of authentication.
  ///
  /// ```swift
  /// networking.authenticate(bearerToken: token)
  /// ```
  /// - Parameter bearerToken: The token.
  public func authenticate(bearerToken: String) {
    replaceAuthentication { $0.authenticate(bearerToken: bearerToken) }
  }

  /// Sends `Authorization: <value>` with every request to `R.baseUrl`'s origin from now on, replacing any earlier
  /// form of authentication.
  ///
  /// ```swift
  /// networking.authenticate(authorizationHeader: "Token abc123")
  /// ```
  /// - Parameter authorizationHeader: The whole field value.
  public func authenticate(authorizationHeader: String) {
    replaceAuthentication { $0.authenticate(authorizationHeader: authorizationHeader) }
  }

  /// Sends `Authorization: Bearer <token>` with every request to `R.baseUrl`'s origin from now on and, when the
  /// server answers 401, fetches a new token with `refresh` and retries the request once with it. Replaces any
  /// earlier form of authentication.
  ///
  /// ```swift
  /// networking.authenticate(bearerToken: keychain.accessToken) {
  ///   let token = try await authClient.refreshAccessToken()  // your code
  ///   keychain.accessToken = token
  ///   return token
  /// }
  /// ```
  /// - **Single flight.** However many requests get a 401 with the same token, `refresh` runs once; they all wait
  ///   for it and are retried once with the new token. The retry's response, a 401 included, is returned as it is.
  /// - **Failures.** When `refresh` throws (or returns an empty token, or one with white space or control
  ///   characters), every request waiting for it fails with `NetworkError` code `requestRejected`, the thrown
  ///   error as its `underlyingError`. The old token is kept, so the next 401 tries a new refresh.
  /// - **Scope.** The token goes only to `R.baseUrl`'s origin (scheme, host and port), like the other forms; only
  ///   401s from that origin start a refresh. A request with an `Authorization` field of its own is left alone.
  ///
  /// ``clearAuthentication()`` removes this form; the other `authenticate` methods replace it.
  /// - Parameters:
  ///   - bearerToken: The first token; `nil` sends requests without one until the first 401 starts a refresh.
  ///   - refresh: Fetches a new access token; never called concurrently with itself.
  public func authenticate(bearerToken: String?, refresh: @escaping @Sendable () async throws -> String) {
    let middleware = TokenRefreshMiddleware(
      token: bearerToken,
      origin: Self.origin(of: R.baseUrl) ?? authentication.origin,
      refresh: refresh
    )
    settings.withLock { settings in
      authentication.clearAuthentication()
      settings.tokenRefresh = middleware
      rebuildChain(&settings)
    }
  }

  /// Stops sending credentials, whichever form of authentication was set.
  ///
  /// ```swift
  /// networking.clearAuthentication()
  /// ```
  public func clearAuthentication() {
    replaceAuthentication { $0.clearAuthentication() }
  }

  /// Drops the token-refresh form and applies `change` to the plain credentials, under one lock so that no request
  /// sees both forms, and composes the chain again with or without an authentication step.
  private func replaceAuthentication(_ change: (AuthenticationMiddleware) -> Void) {
    settings.withLock { settings in
      settings.tokenRefresh = nil
      change(authentication)
      rebuildChain(&settings)
    }
  }

  /// The chain's step that adds credentials to a request: the token-refresh one when set, else the plain one when it
  /// has credentials, else none.
  func authenticationStep(in settings: Settings) -> (any Middleware)? {
    if let tokenRefresh = settings.tokenRefresh { return tokenRefresh }
    return authentication.authorization.isNone ? nil : authentication
  }
}
