@_spi(Malibu) public import MalibuCore

/// Which ``ParameterEncoding`` encodes the parameters of each `ContentType`; safe to read and change
/// from any thread.
///
/// ```swift
/// let registry = ParameterEncoderRegistry.shared        // Malibu.parameterEncoders in the facade
/// registry[.json] = CustomJsonEncoder()
/// registry[.custom("application/xml")] = CustomXMLEncoder()
/// let encoder = try registry.encoder(for: request.contentType)
/// ```
///
/// The defaults: ``FormURLEncoder`` for `ContentType.query` and
/// `ContentType.formURLEncoded`, ``JSONParameterEncoder`` for `ContentType.json` and
/// ``MultipartFormEncoder`` for `ContentType.multipartFormData`. Setting `nil` removes an override;
/// for those four types the default comes back, so a built-in type always has an encoder. A custom type has only
/// the encoder registered for it, and ``encoder(for:)`` throws when there is none: a body is never dropped in
/// silence.
public final class ParameterEncoderRegistry: Sendable {
  /// The registry the library uses, exposed by the facade as `Malibu.parameterEncoders`.
  public static let shared = ParameterEncoderRegistry()

  private let encoders: Locked<[ContentType: any ParameterEncoding]>

  /// A registry holding the defaults.
  public init() {
    encoders = Locked(Self.defaults)
  }

  private static var defaults: [ContentType: any ParameterEncoding] {
    [
      .query: FormURLEncoder(),
      .formURLEncoded: FormURLEncoder(),
      .json: JSONParameterEncoder(),
      .multipartFormData: MultipartFormEncoder(),
    ]
  }

  /// The encoder for a content type, or `nil` when none is registered; set `nil` to remove an override (a built-in
  /// type gets its default back).
  ///
  /// ```swift
  /// registry[.json] = JSONParameterEncoder(prettyPrinted: true)
  /// ```
  /// - Parameter contentType: The content type.
  public subscript(contentType: ContentType) -> (any ParameterEncoding)? {
    get {
      encoders.withLock { $0[contentType] }
    }
    set {
      encoders.withLock { encoders in
        encoders[contentType] = newValue ?? Self.defaults[contentType]
      }
    }
  }

  /// The encoder for a content type, or an error when there is none.
  /// - Parameter contentType: The request's content type.
  /// - Returns: The registered encoder.
  /// - Throws: `NetworkError` with code `NetworkError.Code.missingEncoder` naming the
  ///   content type when no encoder is registered for it (a custom type nobody registered).
  public func encoder(for contentType: ContentType) throws(NetworkError) -> any ParameterEncoding {
    guard let encoder = self[contentType] else {
      throw NetworkError(
        code: .missingEncoder,
        message:
          "no parameter encoder is registered for the content type '\(contentType.headerValue ?? "\(contentType)")'"
          + "; register one with parameterEncoders[\(contentType)] = …"
      )
    }
    return encoder
  }

  /// The content types that have an encoder, in no particular order.
  public var contentTypes: [ContentType] {
    encoders.withLock { Array($0.keys) }
  }

  /// Drops every registration and restores the defaults.
  public func reset() {
    encoders.withLock { $0 = Self.defaults }
  }
}
