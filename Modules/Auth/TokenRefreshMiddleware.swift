public import Foundation
public import HTTPTypes
@_spi(Malibu) import MalibuCore
public import MalibuTransport

/// Sends `Authorization: Bearer <token>` and, when the server answers 401, refreshes the token once for every
/// request that got the 401 and retries each of them once.
///
/// ```swift
/// let tokens = TokenRefreshMiddleware(token: storedToken, origin: URL(string: "https://api.example.com")) {
///   let token = try await authClient.refreshAccessToken()   // your code: returns the new access token
///   keychain.save(token)
///   return token
/// }
/// let transport = CurlTransport().with(middleware: [tokens])
/// ```
///
/// - **Single flight.** However many requests get a 401 with the same token, `refresh` runs once; they all wait
///   for it and retry with its token. A request whose 401 arrives after its token was already replaced retries
///   with the new token without a refresh. The refresh runs in its own task: cancelling a waiting request ends that
///   request only.
/// - **One retry.** Each request is retried once; the retry's response, a 401 included, is returned as it is, and
///   the retry is counted in `TransferAttempts.current` (logged as `http.request.resend_count`). The
///   401 body is read (when small and of known length) or cancelled before waiting, so its connection is free.
/// - **Streamed bodies** (`RequestBody.isRepeatable` is false) cannot be sent again: the refresh
///   still happens, so the next attempt carries the new token, and then the 401 is returned as it is.
/// - **Failures.** When `refresh` throws, every request waiting for it fails with `NetworkError`
///   (`NetworkError.Code.requestRejected`; the thrown error is its `underlyingError`). The stale token
///   is kept, so the next 401 tries a fresh refresh. An empty token or one with white space or control
///   characters counts as a failed refresh.
/// - **Scope.** Like ``AuthenticationMiddleware``: only requests to the middleware's origin get the token or trigger
///   a refresh (the configured origin, or else the origin of the first request that passes through), and a request
///   that has its own `Authorization` field is left alone.
public final class TokenRefreshMiddleware: Middleware {
  private let state: Locked<StateMachine>
  private let scope: OriginScope
  private let refresh: @Sendable () async throws -> String

  /// Creates the middleware.
  /// - Parameters:
  ///   - token: The first token; `nil` sends the first request without one and refreshes on its 401.
  ///   - origin: The origin the token is sent to (only scheme, host and port count). `nil` binds it to the origin of
  ///     the first request that passes through.
  ///   - refresh: Fetches a new access token. It is called once per burst of 401s, never concurrently with itself.
  public init(
    token: String? = nil,
    origin: URL? = nil,
    refresh: @escaping @Sendable () async throws -> String
  ) {
    state = Locked(StateMachine(token: token))
    scope = OriginScope(origin: origin)
    self.refresh = refresh
  }

  /// The token sent with the next request; `nil` when there is none yet.
  public var token: String? { state.withLock { $0.token } }

  /// The origin the token is bound to: the configured one, else the pinned one, else `nil` (nothing pinned yet).
  public var origin: URL? { scope.origin }

  /// Replaces the token, after a login say, or removes it with `nil`. A refresh in flight replaces it again.
  /// - Parameter token: The new token.
  public func setToken(_ token: String?) {
    state.withLock { $0.setToken(token) }
  }

  /// How many requests wait for a refresh now (for tests).
  package var waitingCount: Int { state.withLock { $0.waitingCount } }

  /// Sends the request with the current token and handles a 401 as the type describes.
  /// - Parameters:
  ///   - request: The request head.
  ///   - body: The request body, if any.
  ///   - options: The transfer options.
  ///   - next: The rest of the chain.
  /// - Returns: The response, or the response to the retry.
  /// - Throws: `NetworkError` with `NetworkError.Code.requestRejected` when the refresh
  ///   failed, `NetworkError.Code.cancelled` when the task was cancelled while waiting for it,
  ///   `NetworkError.Code.invalidHeader` for a token set with ``setToken(_:)`` that cannot be sent,
  ///   or whatever the rest of the chain throws.
  public func intercept(
    _ request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions,
    next: Next
  ) async throws -> TransportResponse {
    guard !request.headerFields.contains(.authorization), try scope.admits(request) else {
      return try await next(request, body, options)
    }
    let used = token
    let response = try await next(try Self.authorized(request, with: used), body, options)
    guard response.head.status.code == 401 else { return response }
    guard body?.isRepeatable ?? true else {
      _ = try await freshToken(replacing: used)
      return response
    }
    await response.body.discard()
    let fresh = try await freshToken(replacing: used)
    TransferAttempts.current?.recordResend()
    return try await next(try Self.authorized(request, with: fresh), body, options)
  }

  /// A token newer than `used`: the current one if it was already replaced, else the result of the refresh in
  /// flight, started if need be.
  private func freshToken(replacing used: String?) async throws -> String {
    let id = state.withLock { $0.makeWaiterID() }
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: StateMachine.Waiter) in
        switch state.withLock({ $0.join(id, replacing: used, continuation: continuation) }) {
        case .retry(let token): continuation.resume(returning: token)
        case .cancelled: continuation.resume(throwing: Self.cancelledWhileWaiting())
        case .wait: break
        case .startRefresh: Task { await self.performRefresh() }
        }
      }
    } onCancel: {
      state.withLock { $0.cancel(id) }?.resume(throwing: Self.cancelledWhileWaiting())
    }
  }

  private func performRefresh() async {
    let result: Result<String, NetworkError>
    do {
      let fresh = try await refresh()
      if Authorization.isSendableToken(fresh) {
        result = .success(fresh)
      } else {
        result = .failure(
          NetworkError(
            code: .requestRejected,
            message: "the token refresh returned an empty token or one with white space or control characters"
          )
        )
      }
    } catch {
      result = .failure(
        NetworkError(
          code: .requestRejected,
          message: "the access token could not be refreshed after a 401 response: \(error)",
          underlyingError: error
        )
      )
    }
    for waiter in state.withLock({ $0.finish(result) }) {
      waiter.resume(with: result.mapError { $0 as any Error })
    }
  }

  private static func authorized(_ request: HTTPRequest, with token: String?) throws(NetworkError) -> HTTPRequest {
    guard let token, let value = try Authorization.bearer(token).headerValue() else { return request }
    var request = request
    request.headerFields[.authorization] = value
    return request
  }

  private static func cancelledWhileWaiting() -> NetworkError {
    NetworkError(code: .cancelled, message: "the request was cancelled while waiting for the access token refresh")
  }
}
