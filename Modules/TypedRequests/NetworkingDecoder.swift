public import Foundation
public import MalibuCore
import MalibuJSON
package import MalibuSerialization

/// The decoder of a ``TypedRequest`` that names none: the `Networking.decoder` of the networking that sends it.
///
/// A stand-in: the networking decodes with its own decoder when a request's ``TypedRequest/decoder`` is this one.
/// Called directly (outside a networking), it decodes JSON as a `MalibuJSONDecoder()` does.
public struct NetworkingDecoder: ResponseDecoder, Hashable {
  /// The stand-in.
  public init() {}

  /// Decodes `type` from JSON as a `MalibuJSONDecoder()` does (a networking never calls this: it uses its own
  /// decoder).
  /// - Parameters:
  ///   - type: The type to decode.
  ///   - data: The JSON.
  /// - Returns: The value.
  /// - Throws: `DecodingError`.
  public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
    try MalibuJSONDecoder().decode(type, from: data)
  }
}

extension Response {
  /// The resource decoded by `decoder`, or by the response's default decoder (its networking's) when `decoder` is a
  /// ``NetworkingDecoder``.
  package func decodeResource<T: Decodable>(
    _ type: T.Type,
    resolving decoder: some ResponseDecoder,
    at keyPath: ResourceKeyPath,
    arrays: ArrayDecodingStrategy
  ) throws(NetworkError) -> DecodedResource<T> {
    if decoder is NetworkingDecoder { return try decodeResource(T.self, at: keyPath, arrays: arrays) }
    return try decodeResource(T.self, decoder: decoder, at: keyPath, arrays: arrays)
  }

  /// `decoder`, or the response's default decoder when `decoder` is a ``NetworkingDecoder``.
  package func resolve(_ decoder: some ResponseDecoder) -> any ResponseDecoder {
    decoder is NetworkingDecoder ? defaultDecoder ?? MalibuJSONDecoder() : decoder
  }
}
