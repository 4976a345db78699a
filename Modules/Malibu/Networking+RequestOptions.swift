public import HTTPTypes
@_spi(Malibu) import MalibuCore
public import MalibuTransport

extension Networking {
  /// Changes the transfer options of each request by its endpoint, over ``transferOptions`` and before the options a
  /// request is sent with (`request(_:options:)`); `nil` (the default) leaves them as they are.
  ///
  /// ```swift
  /// networking.transferOptionsForEndpoint = { endpoint, options in
  ///   if case .uploadBackup = endpoint { options.timeouts.total = .seconds(600) }
  /// }
  /// ```
  /// A replayed request has no endpoint, so it is not called for one. Like every setting, it can be changed at any
  /// time; a request reads it when it is encoded.
  public var transferOptionsForEndpoint: (@Sendable (R, inout TransferOptions) -> Void)? {
    get { settings.withLock { $0.endpointOptions } }
    set { settings.withLock { $0.endpointOptions = newValue } }
  }

  /// Told of the progress of every request of this networking, each event naming its request: the endpoint and the
  /// request head it was sent with. `nil` by default.
  ///
  /// ```swift
  /// networking.progress = { event in
  ///   print(event.request.path ?? "", event.progress.uploaded, event.progress.uploadTotal ?? -1)
  /// }
  /// ```
  /// It is called besides any `progress` in the request's transfer options (``transferOptions``, a request's own
  /// options), on the transport's thread: keep it short.
  public var progress: (@Sendable (RequestProgress<R>) -> Void)? {
    get { settings.withLock { $0.progress } }
    set { settings.withLock { $0.progress = newValue } }
  }
}

/// One progress event of a networking's request (see `Networking.progress`): which request, and how far it is.
public struct RequestProgress<R: RequestConvertible>: Sendable {
  /// The endpoint the request was made from; `nil` for a request replayed from the offline store.
  public let endpoint: R?
  /// The request head as it was handed to the middleware chain (after `preProcessRequest`).
  public let request: HTTPRequest
  /// The bytes moved so far, and the totals when known.
  public let progress: TransferProgress

  /// Creates an event.
  /// - Parameters:
  ///   - endpoint: The endpoint, or `nil` for a replayed request.
  ///   - request: The request head.
  ///   - progress: The progress.
  public init(endpoint: R?, request: HTTPRequest, progress: TransferProgress) {
    self.endpoint = endpoint
    self.request = request
    self.progress = progress
  }
}
