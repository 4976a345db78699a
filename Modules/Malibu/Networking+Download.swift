public import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuCore
public import MalibuPromises
public import MalibuTransport

extension Networking {
  /// Downloads the response of an endpoint into a file, with flat memory, optionally continuing an earlier partial
  /// download. Like ``request(_:)``, it starts on the calling thread and goes on there until it first has to wait.
  ///
  /// ```swift
  /// let file = try await networking.download(.fetchReport, to: destination, resume: true).value
  /// print(file.byteCount, file.isResumed)
  /// ```
  /// The request travels the path of ``request(_:)``: the mode's queue, ``beforeEach``, the ``middleware`` gate,
  /// encoding, ``preProcessRequest``, logging, authentication and the endpoint's mock, then the transport. The HTTP
  /// cache is bypassed (a file is not kept in memory to be cached, and a range is not the resource), the offline store
  /// is not used, and ``maximumResponseSize`` does not apply: the body goes to disk. The request's slot in the mode's
  /// queue is held until the file is in place.
  ///
  /// The file is written beside `destination` and renamed into place once complete, so a failure or a cancellation
  /// (of the promise, its task, or ``cancelAllRequests()``) leaves the destination as it was. With `resume`, a
  /// partial file is kept after a failure and continued with `Range` / `If-Range`; a changed resource starts again
  /// from its first byte. The rules, content codings included, are those of
  /// `Transport.download(_:options:to:resume:maxBytes:)`; the range fields are set after ``preProcessRequest``.
  /// - Parameters:
  ///   - endpoint: The endpoint.
  ///   - destination: Where the file goes; its directory must exist.
  ///   - resume: Whether to continue a partial file left by an earlier download, and keep one after a failure.
  ///   - maxBytes: The largest file written, in bytes (a resumed partial file's bytes counted), or `nil` (the
  ///     default) for no limit; past it the download fails with `DownloadError.Code.bodyTooLarge`.
  /// - Returns: The promise of the downloaded file; rejected with a `NetworkError`: code `unacceptableStatusCode`
  ///   (with the response head, no body) for a status that is not a file; the `DownloadError`'s own code
  ///   (`missingDirectory` before anything is sent, `rangeMismatch`, `lengthMismatch`, `destinationBusy`,
  ///   `untrustedFile`, `fileSystem`, `bodyTooLarge`); `cancelled`; or a transport failure's code (`timedOut`,
  ///   `transportFailed`, ...). The `DownloadError` or `TransportError` is the underlying error.
  @discardableResult
  public func download(
    _ endpoint: R,
    to destination: URL,
    resume: Bool = false,
    maxBytes: Int64? = nil
  ) -> Promise<DownloadedFile> {
    launcher.launch { [self] ticket in
      var sent: HTTPRequest?
      var source = endpoint.request
      do {
        try await limiter.wait(for: ticket)
        defer { limiter.release() }
        let (request, base) = try uncachedRequest(for: endpoint)
        source = request
        return try await Download.run(to: destination, resume: resume, maxBytes: maxBytes) { adjust in
          try await open(request, of: endpoint, through: base, storingOffline: false) { head in
            adjust(&head)
            sent = head
          }.response
        }
      } catch {
        throw hooks.failed(endpoint, request: source, error: Self.downloadFailure(error, request: sent))
      }
    }
  }

  /// The endpoint's request after ``beforeEach``, with the cache bypassed, and the transport it goes to (the
  /// endpoint's mock, or ``transport``).
  func uncachedRequest(for endpoint: R) throws -> (Request, any Transport) {
    var (request, base) = try resolve(endpoint)
    request.cachePolicy = .reloadIgnoringLocalCacheData
    return (request, base)
  }

  /// The `NetworkError` a failed download is rejected with: a status that is not a file as
  /// `unacceptableStatusCode`, with the head (and no body) as its response; anything else as `NetworkError.wrapping`
  /// does.
  static func downloadFailure(_ error: any Error, request: HTTPRequest?) -> NetworkError {
    guard let error = error as? DownloadError, error.code == .unacceptableStatus, let head = error.response,
      let request
    else { return NetworkError.wrapping(error) }
    return NetworkError(
      code: .unacceptableStatusCode,
      message: error.message,
      response: Response(data: Data(), status: head.status, headers: head.headerFields, request: request),
      underlyingError: error
    )
  }
}
