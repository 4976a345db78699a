@_spi(Malibu) public import MalibuCore
import MalibuJSON

extension Networking {
  /// The decoder of every decoding that names none: `decode(using:)` and `decodeResource(using:at:arrays:)` on the
  /// promises of this networking, and its typed and GraphQL requests that keep the default `TypedRequest.decoder`.
  /// `MalibuJSONDecoder()` by default; a decoder given to one call (`decode(using:decoder:)`) or one typed request
  /// wins over this one.
  ///
  /// ```swift
  /// let decoder = JSONDecoder()
  /// decoder.keyDecodingStrategy = .convertFromSnakeCase
  /// networking.decoder = decoder   // Foundation's, with its strategies, for every decode of this networking
  /// ```
  ///
  /// A request takes the decoder set when it is sent.
  public var decoder: any ResponseDecoder {
    get { settings.withLock { $0.decoder } ?? MalibuJSONDecoder() }
    set { settings.withLock { $0.decoder = newValue } }
  }

  /// The encoder of the `Encodable` bodies of content type `json` that name none (`Request.post(_:body:)`, typed and
  /// GraphQL requests); `nil`, the default, writes them by Malibu's JSON rules (MalibuEncoding's `JSONParameterEncoder`
  /// registered for `.json`: keys sorted, dates in ISO 8601). A body's own encoder wins over this one.
  ///
  /// ```swift
  /// networking.bodyEncoder = MalibuJSONEncoder()   // or JSONEncoder(), or an encoder of your own
  /// ```
  public var bodyEncoder: (any RequestBodyEncoder)? {
    get { settings.withLock { $0.bodyEncoder } }
    set { settings.withLock { $0.bodyEncoder = newValue } }
  }
}

extension Request {
  /// The request with its `Encodable` body given `encoder` when it names none.
  func encodingBody(with encoder: (any RequestBodyEncoder)?) -> Request {
    guard let encoder, case .encodable(let body) = task, body.encoder == nil else { return self }
    var request = self
    request.task = .encodable(EncodableBody(body.value, encoder: encoder))
    return request
  }
}
