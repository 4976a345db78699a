import Foundation
public import HTTPTypes
import MalibuCore
public import MalibuTransport

/// Middleware that saves a request with `storePolicy: .offline` in an ``OfflineRequestStore`` when it fails because
/// the host cannot be reached, so that it can be replayed later; the error still reaches the caller.
///
/// The request to save is the transfer's ``SourceRequest/current`` (a `Request` keeps its parameters, so a replay
/// encodes them again); a transfer without one, or whose request is not `.offline`, passes through untouched. Only
/// errors thrown before the response head arrives are looked at: a response of any status is not a reason to store.
///
/// ```swift
/// let store = OfflineRequestStore(directory: try OfflineRequestStore.defaultDirectory(name: "sharkywaters"))
/// let transport = CurlTransport().with(middleware: [OfflineStoreMiddleware(store: store)])
/// ```
public struct OfflineStoreMiddleware: Middleware {
  /// The `TransportError` codes that mean "the host could not be reached": `connectionRefused`, `dnsFailure` and
  /// `connectTimeout`. Everything else (another timeout, a reset connection, TLS, cancellation) is not stored.
  public static let hostUnreachableCodes: Set<TransportError.Code> = [.connectionRefused, .dnsFailure, .connectTimeout]

  /// Where requests are saved.
  public let store: OfflineRequestStore
  /// The error codes that save a request; ``hostUnreachableCodes`` by default.
  public let errorCodes: Set<TransportError.Code>
  private let onSaveFailure: (@Sendable (StorageError) -> Void)?

  /// Creates the middleware.
  /// - Parameters:
  ///   - store: Where requests are saved.
  ///   - errorCodes: The `TransportError` codes that save a request; ``hostUnreachableCodes`` by default.
  ///   - onSaveFailure: Told when a request could not be saved (the transfer's own error is thrown either way);
  ///     `nil` ignores it.
  public init(
    store: OfflineRequestStore,
    errorCodes: Set<TransportError.Code> = hostUnreachableCodes,
    onSaveFailure: (@Sendable (StorageError) -> Void)? = nil
  ) {
    self.store = store
    self.errorCodes = errorCodes
    self.onSaveFailure = onSaveFailure
  }

  /// Sends the request on; when that throws one of ``errorCodes`` and the current ``SourceRequest`` is `.offline`,
  /// saves it before rethrowing.
  /// - Parameters:
  ///   - request: The request head.
  ///   - body: The request body, if any.
  ///   - options: The transfer options.
  ///   - next: The rest of the chain.
  /// - Returns: The response of the rest of the chain.
  /// - Throws: Whatever the rest of the chain throws, unchanged.
  public func intercept(
    _ request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions,
    next: Next
  ) async throws -> TransportResponse {
    do {
      return try await next(request, body, options)
    } catch {
      if let source = SourceRequest.current, source.request.storePolicy == .offline, isHostUnreachable(error) {
        save(source)
      }
      throw error
    }
  }

  /// Whether `error` (a `TransportError`, or an error wrapping one as its `underlyingError`) has one of
  /// ``errorCodes``.
  /// - Parameter error: The error.
  /// - Returns: `true` when the request would be saved for it.
  public func isHostUnreachable(_ error: any Error) -> Bool {
    let transportError =
      (error as? TransportError) ?? ((error as? NetworkError)?.underlyingError as? TransportError)
    guard let transportError else { return false }
    return errorCodes.contains(transportError.code)
  }

  /// Saves the request with its URL without the parameters it encodes in the query (they are stored on their own and
  /// encoded again on replay); a failure goes to `onSaveFailure`.
  private func save(_ source: SourceRequest) {
    var bare = source.request
    if bare.contentType.encodesInURL { bare.parameters = [:] }
    let url = try? bare.buildURL(baseUrl: source.baseUrl)
    do {
      try store.save(source.request, url: url)
    } catch {
      onSaveFailure?(error)
    }
  }
}
