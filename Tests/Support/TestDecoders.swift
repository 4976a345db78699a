public import Foundation
public import MalibuCore
import MalibuJSON
import Synchronization

/// A user's decoder that counts its calls and decodes as MalibuJSON does: proves which decoder a decoding used.
public final class CountingDecoder: ResponseDecoder {
  private let calls = Mutex(0)

  /// A decoder that has decoded nothing yet.
  public init() {}

  /// Counts the call, then decodes `type` from JSON as a `MalibuJSONDecoder()` does.
  /// - Parameters:
  ///   - type: The type to decode.
  ///   - data: The JSON.
  /// - Returns: The value.
  /// - Throws: `DecodingError`.
  public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
    calls.withLock { $0 += 1 }
    return try MalibuJSONDecoder().decode(type, from: data)
  }

  /// How many times ``decode(_:from:)`` was called.
  public var count: Int { calls.withLock { $0 } }
}

/// A user's decoder that reads nothing: it always throws ``Refusal``.
public struct FailingDecoder: ResponseDecoder {
  /// What ``FailingDecoder`` throws.
  public struct Refusal: Error, CustomStringConvertible {
    /// Says that the decoder refuses the body.
    public var description: String { "the decoder refuses this body" }
  }

  /// A decoder that always throws.
  public init() {}

  /// Throws ``Refusal``.
  /// - Parameters:
  ///   - type: The type asked for.
  ///   - data: The body.
  /// - Returns: Never.
  /// - Throws: ``Refusal``, always.
  public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T { throw Refusal() }
}
