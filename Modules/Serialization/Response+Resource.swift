import Foundation
public import MalibuCore
import MalibuJSON

/// Where a resource sits in a response body: at the top level, or under a path of object keys (`{"data": …}`).
///
/// ```swift
/// let key: ResourceKeyPath = "data"                  // {"data": …}
/// let nested: ResourceKeyPath = ["data", "posts"]     // {"data": {"posts": …}}
/// ```
public struct ResourceKeyPath: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
  CustomStringConvertible
{
  /// The object keys, outermost first; empty for the top level.
  public var keys: [String]

  /// The whole body.
  public static let topLevel = ResourceKeyPath([])

  /// A path of keys, outermost first.
  /// - Parameter keys: The keys.
  public init(_ keys: [String]) {
    self.keys = keys
  }

  /// One key: `"data"`.
  /// - Parameter value: The key.
  public init(stringLiteral value: String) {
    keys = [value]
  }

  /// Keys, outermost first: `["data", "posts"]`.
  /// - Parameter elements: The keys.
  public init(arrayLiteral elements: String...) {
    keys = elements
  }

  /// The path appended to this one.
  /// - Parameter other: The inner path.
  /// - Returns: The combined path.
  public func appending(_ other: ResourceKeyPath) -> ResourceKeyPath {
    ResourceKeyPath(keys + other.keys)
  }

  /// `data.posts`, or `the top level`.
  public var description: String { keys.isEmpty ? "the top level" : keys.joined(separator: ".") }
}

/// How the array at a resource's place is decoded.
public enum ArrayDecodingStrategy: Sendable, Hashable {
  /// Every element must decode, or the resource fails.
  case strict
  /// Elements that fail to decode are left out and reported (see ``SkippedElements``); nested arrays stay strict
  /// unless they are ``LossyArray``s.
  case lossy
}

/// A decoded resource, with the elements lossy arrays left out on the way.
public struct DecodedResource<Value> {
  /// The value.
  public let value: Value
  /// What lossy arrays (the resource's own under ``ArrayDecodingStrategy/lossy``, and every ``LossyArray`` in it)
  /// left out, or `nil` when nothing was.
  public let skipped: SkippedElements?
}

extension DecodedResource: Sendable where Value: Sendable {}

extension Response {
  /// The body decoded into `type` by the response's `Response.defaultDecoder` (the networking's
  /// `decoder`, else a `MalibuJSONDecoder()`), found under `keyPath`, its array decoded lossily when asked.
  ///
  /// ```swift
  /// // {"data": [{"title": "a", "content": "…"}, {"title": "b"}]}
  /// let posts = try response.decodeResource([Post].self, at: "data", arrays: .lossy)
  /// print(posts.value.count, posts.skipped?.count ?? 0)   // 1 1
  /// ```
  /// Everything else is as in ``decodeResource(_:decoder:at:arrays:)``.
  /// - Parameters:
  ///   - type: The type to decode.
  ///   - keyPath: Where the resource sits; the top level by default.
  ///   - arrays: How the array at that place is decoded, when `type` is an array; strict by default.
  /// - Returns: The value, and the elements left out.
  /// - Throws: `NetworkError` carrying this response, as ``decodeResource(_:decoder:at:arrays:)`` throws it.
  public func decodeResource<T: Decodable>(
    _ type: T.Type = T.self,
    at keyPath: ResourceKeyPath = .topLevel,
    arrays: ArrayDecodingStrategy = .strict
  ) throws(NetworkError) -> DecodedResource<T> {
    if let decoder = defaultDecoder { return try decodeResource(T.self, decoder: decoder, at: keyPath, arrays: arrays) }
    return try decodeResource(T.self, decoder: MalibuJSONDecoder(), at: keyPath, arrays: arrays)
  }

  /// The body decoded into `type` by `decoder`, found under `keyPath`, its array decoded lossily when asked.
  ///
  /// ```swift
  /// let decoder = JSONDecoder()
  /// decoder.keyDecodingStrategy = .convertFromSnakeCase
  /// let posts = try response.decodeResource([Post].self, decoder: decoder, at: "data", arrays: .lossy)
  /// ```
  /// Any `ResponseDecoder` works, a decoder of your own included: the key path and the lossy arrays are
  /// walked through the `Decoder` it hands to `init(from:)` (keyed containers and `superDecoder(forKey:)`), with no
  /// second pass over the body. The decoder is used as it is, its strategies and `userInfo` untouched; it must call
  /// `init(from:)` on the thread that called it, as every synchronous decoder does. The rules for empty bodies are
  /// those of ``decode(_:decoder:)``.
  /// - Parameters:
  ///   - type: The type to decode.
  ///   - decoder: The decoder.
  ///   - keyPath: Where the resource sits; the top level by default.
  ///   - arrays: How the array at that place is decoded, when `type` is an array; strict by default.
  /// - Returns: The value, and the elements left out.
  /// - Throws: `NetworkError` carrying this response: `emptyResponse`, or `decodingFailed` with a message that
  ///   names the coding path (a missing key of `keyPath` says so, and lists the keys that are there), the status,
  ///   the `Content-Type` and the first bytes of the body.
  public func decodeResource<T: Decodable>(
    _ type: T.Type = T.self,
    decoder: some ResponseDecoder,
    at keyPath: ResourceKeyPath = .topLevel,
    arrays: ArrayDecodingStrategy = .strict
  ) throws(NetworkError) -> DecodedResource<T> {
    if hasEmptyBodyByDefinition || data.isEmpty {
      return DecodedResource(value: try decode(T.self, decoder: decoder), skipped: nil)
    }
    let context = ResourceContext(keys: keyPath.keys, lossy: arrays == .lossy)
    let value: T
    do {
      value = try ResourceContext.$current.withValue(context) {
        // At the top level and strict, the envelope has nothing to do: the resource is the body.
        if keyPath.keys.isEmpty, arrays == .strict { return try decoder.decode(T.self, from: data) }
        return try decoder.decode(ResourceEnvelope<T>.self, from: data).value
      }
    } catch {
      let place = keyPath.keys.isEmpty ? "" : " under '\(keyPath)'"
      let reason: String
      switch error {
      case let missing as MissingResourceKey: reason = missing.description
      case let decoding as DecodingError: reason = Self.describe(decoding)
      default: reason = String(describing: error)
      }
      throw NetworkError(
        code: .decodingFailed,
        message: "could not decode \(T.self)\(place) from the body: \(reason)\(failureContext)",
        response: self,
        underlyingError: error
      )
    }
    return DecodedResource(value: value, skipped: context.report.result)
  }
}

/// What one `decodeResource` hands to the `init(from:)` it runs, whatever the decoder: the keys ``ResourceEnvelope``
/// walks, whether the array there is lossy, and where lossy arrays report what they leave out.
///
/// A task-local value rather than the decoder's `userInfo`, so that any `ResponseDecoder` carries it
/// without being copied or rebuilt.
final class ResourceContext: Sendable {
  /// The context of the `decodeResource` running on this thread or task, if any.
  @TaskLocal static var current: ResourceContext?

  let keys: [String]
  let lossy: Bool
  let report = SkipReport()

  init(keys: [String], lossy: Bool) {
    self.keys = keys
    self.lossy = lossy
  }
}

/// The body, walked down to the resource's place, then decoded there.
private struct ResourceEnvelope<T: Decodable>: Decodable {
  let value: T

  init(from decoder: any Decoder) throws {
    let context = ResourceContext.current
    value = try Self.decode(from: decoder, keys: context?.keys[...] ?? [], lossy: context?.lossy ?? false)
  }

  private static func decode(from decoder: any Decoder, keys: ArraySlice<String>, lossy: Bool) throws -> T {
    guard let first = keys.first else {
      if lossy, let arrayType = T.self as? any LossyDecodableArray.Type,
        let value = try arrayType.init(lossyFrom: decoder) as? T
      {
        return value
      }
      // Through a single-value container, so that the decoder's date and data strategies apply to `T` itself.
      return try decoder.singleValueContainer().decode(T.self)
    }
    let container = try decoder.container(keyedBy: NameKey.self)
    let key = NameKey(first)
    guard container.contains(key) else {
      throw MissingResourceKey(
        key: first,
        path: Response.path(decoder.codingPath),
        present: container.allKeys.map(\.stringValue).sorted()
      )
    }
    return try decode(from: try container.superDecoder(forKey: key), keys: keys.dropFirst(), lossy: lossy)
  }
}

/// A key of the resource's path that the body does not have.
struct MissingResourceKey: Error, CustomStringConvertible {
  let key: String
  let path: String
  let present: [String]

  var description: String {
    let keys = present.isEmpty ? "it has no keys" : "its keys are " + present.map { "'\($0)'" }.joined(separator: ", ")
    return "the object at \(path) has no key '\(key)' to find the resource under; \(keys)"
  }
}

/// An array whose elements can be decoded leaving out those that fail.
protocol LossyDecodableArray {
  init(lossyFrom decoder: any Decoder) throws
}

extension Array: LossyDecodableArray where Element: Decodable {
  init(lossyFrom decoder: any Decoder) throws {
    self = try LossyArray<Element>(from: decoder).elements
  }
}

/// Any object key.
struct NameKey: CodingKey {
  let stringValue: String
  var intValue: Int? { nil }

  init(_ name: String) {
    stringValue = name
  }

  init?(stringValue: String) {
    self.stringValue = stringValue
  }

  init?(intValue: Int) {
    nil
  }
}

extension NetworkError {
  /// The report of the elements lossy arrays left out of a resource of type `type`: code `skippedElements`.
  package static func skipped<T>(_ skipped: SkippedElements, of type: T.Type, in response: Response) -> NetworkError {
    let plural = skipped.count != 1
    return NetworkError(
      code: .skippedElements,
      message: "\(skipped.count) element\(plural ? "s" : "") of \(T.self) did not decode and "
        + "\(plural ? "were" : "was") left out: \(skipped)",
      response: response,
      underlyingError: skipped
    )
  }
}
