import Foundation
@_spi(Malibu) import MalibuCore
public import MalibuPromises
public import MalibuSerialization

extension Promise where Value == Response {
  /// The body decoded as `type` at `keyPath` by the networking's ``Networking/decoder``, its array decoded lossily
  /// when asked; elements left out are reported to the networking's failure hooks (`NetworkError` code
  /// `skippedElements`) while the promise resolves.
  ///
  /// ```swift
  /// // {"data": [{"title": "a", "content": "…"}, {"title": "b"}]}
  /// let posts = try await networking.request(.fetchPosts).validate()
  ///   .decodeResource(using: [Post].self, at: "data", arrays: .lossy).value   // the first post
  /// ```
  /// - Parameters:
  ///   - type: The type to decode.
  ///   - keyPath: Where the resource sits in the body; the top level by default.
  ///   - arrays: How the array there is decoded; strict by default.
  /// - Returns: A promise of the value, rejected with `NetworkError` code `decodingFailed` (naming the coding path
  ///   and showing the first bytes of the body) or `emptyResponse`.
  @discardableResult
  public func decodeResource<T: Decodable & Sendable>(
    using type: T.Type = T.self,
    at keyPath: ResourceKeyPath = .topLevel,
    arrays: ArrayDecodingStrategy = .strict
  ) -> Promise<T> {
    derive(on: nil, passThrough: .failures) { result in
      try Self.serialize(result) { response in
        try Self.reportingSkipped(response.decodeResource(type, at: keyPath, arrays: arrays), of: response)
      }
    }
  }

  /// The body decoded as `type` at `keyPath` by `decoder` (any `ResponseDecoder`, for this call alone), its array
  /// decoded lossily when asked; elements left out are reported as by ``decodeResource(using:at:arrays:)``.
  ///
  /// ```swift
  /// let decoder = JSONDecoder()
  /// decoder.keyDecodingStrategy = .convertFromSnakeCase
  /// let posts = try await promise.decodeResource(using: [Post].self, decoder: decoder, at: "data").value
  /// ```
  /// - Parameters:
  ///   - type: The type to decode.
  ///   - decoder: The decoder.
  ///   - keyPath: Where the resource sits in the body; the top level by default.
  ///   - arrays: How the array there is decoded; strict by default.
  /// - Returns: A promise of the value, rejected with `NetworkError` code `decodingFailed` (naming the coding path
  ///   and showing the first bytes of the body) or `emptyResponse`.
  @discardableResult
  public func decodeResource<T: Decodable & Sendable>(
    using type: T.Type = T.self,
    decoder: some ResponseDecoder,
    at keyPath: ResourceKeyPath = .topLevel,
    arrays: ArrayDecodingStrategy = .strict
  ) -> Promise<T> {
    derive(on: nil, passThrough: .failures) { result in
      try Self.serialize(result) { response in
        try Self.reportingSkipped(
          response.decodeResource(type, decoder: decoder, at: keyPath, arrays: arrays),
          of: response
        )
      }
    }
  }

  /// The value, after reporting the elements left out of it, if any.
  private static func reportingSkipped<T>(_ decoded: DecodedResource<T>, of response: Response) -> T {
    if let skipped = decoded.skipped {
      reportFailure(NetworkError.skipped(skipped, of: T.self, in: response), of: response)
    }
    return decoded.value
  }
}
