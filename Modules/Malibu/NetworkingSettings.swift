import HTTPTypes
import MalibuAuth
import MalibuCore
import MalibuLogging
import MalibuPromises
import MalibuSerialization
import MalibuStorage
import MalibuTransport

/// The settings of a `Networking<R>`, read by each request; generic over the endpoint type, so that the closures that
/// take an endpoint are kept with their types.
struct NetworkingSettings<R: RequestConvertible>: Sendable {
  var beforeEach: (@Sendable (Request) -> Request)?
  var preProcessRequest: (@Sendable (HTTPRequest) -> HTTPRequest)?
  var middleware: (@Sendable (Promise<Void>) -> Void)?
  var headers: [String: String] = [:] {
    didSet { checkedHeaders = CheckedHeaderLayers([sessionHeaders, headers]) }
  }
  /// The session configuration's `httpAdditionalHeaders`: the lowest layer of header fields.
  var sessionHeaders: [String: String] = [:] {
    didSet { checkedHeaders = CheckedHeaderLayers([sessionHeaders, headers]) }
  }
  /// `sessionHeaders`, then `headers`, checked when either changes rather than by every request.
  private(set) var checkedHeaders = CheckedHeaderLayers()
  /// The session configuration's `requestCachePolicy`, for requests that keep the default policy.
  var sessionCachePolicy: CachePolicy?
  var transferOptions = TransferOptions()
  var maximumResponseSize = 256 * 1024 * 1024
  var logger: NetworkLogger
  /// The token-refresh form of authentication, when it is the current one (see `Networking+Authentication`).
  var tokenRefresh: TokenRefreshMiddleware?
  /// `Networking.transferOptionsForEndpoint`.
  var endpointOptions: (@Sendable (R, inout TransferOptions) -> Void)?
  /// `Networking.progress`.
  var progress: (@Sendable (RequestProgress<R>) -> Void)?
  /// The middleware chain, composed again by every setter it depends on (see `Networking+Chain`).
  var chain: NetworkingChain

  /// Where typed requests without a key path of their own find their resource (see `Networking+Send`).
  var resourceKeyPath = ResourceKeyPath.topLevel
  /// The decoder of decodings that name none; `nil` for a `MalibuJSONDecoder()` (see `Networking+Coding`).
  var decoder: (any ResponseDecoder)?
  /// The encoder of `Encodable` JSON bodies that name none; `nil` for Malibu's rules (see `Networking+Coding`).
  var bodyEncoder: (any RequestBodyEncoder)?

  /// The ETag policy of requests without their own, and where validators are kept (see `Networking+ETag`).
  var etagPolicy = ETagPolicy.disabled
  var etagStore: ETagStore

  init(logger: NetworkLogger, etagStore: ETagStore, chain: NetworkingChain) {
    self.logger = logger
    self.etagStore = etagStore
    self.chain = chain
  }
}
