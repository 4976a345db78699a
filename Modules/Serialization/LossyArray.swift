@_spi(Malibu) import MalibuCore

/// An array that leaves out the elements that fail to decode, and says which it left out.
///
/// ```swift
/// struct Feed: Decodable {
///   let title: String
///   let posts: LossyArray<Post>   // a post without "content" is skipped, the rest decode
/// }
/// let feed = try response.decode(Feed.self)
/// print(feed.posts.count, feed.posts.skipped.map(\.path))   // 2 ["posts[1]"]
/// ```
/// Skipping is never silent: ``skipped`` lists every element left out, with its index, coding path and reason, and
/// a resource decoded with `Response.decodeResource(_:decoder:at:arrays:)` (and so every typed request of the facade)
/// hands them on as ``SkippedElements``, which a networking publishes to its failure hooks. The array itself must
/// be there: a missing key or a value that is not an array fails as a plain `[Element]` would.
public struct LossyArray<Element: Decodable>: Decodable, RandomAccessCollection {
  /// The elements that decoded, in their order.
  public var elements: [Element]
  /// The elements that did not decode and were left out.
  public var skipped: [SkippedElement]

  /// Wraps elements that are already decoded.
  /// - Parameter elements: The elements.
  public init(_ elements: [Element]) {
    self.elements = elements
    skipped = []
  }

  /// Decodes every element it can, recording the others in ``skipped`` (and in the decoding's report, when
  /// `Response.decodeResource` runs the decoding).
  /// - Parameter decoder: The decoder.
  /// - Throws: `DecodingError` when the value is not an array.
  public init(from decoder: any Decoder) throws {
    var container = try decoder.unkeyedContainer()
    var elements: [Element] = []
    var skipped: [SkippedElement] = []
    if let count = container.count { elements.reserveCapacity(count) }
    while !container.isAtEnd {
      let index = container.currentIndex
      do {
        elements.append(try container.decode(Element.self))
      } catch {
        let path = Response.path(container.codingPath + [IndexKey(index)])
        let reason = (error as? DecodingError).map(Response.describe) ?? String(describing: error)
        skipped.append(SkippedElement(index: index, path: path, reason: reason))
        // A failed decode may or may not have moved past the element: step over it only when it did not.
        if container.currentIndex == index { _ = try? container.decode(SkippedValue.self) }
        if container.currentIndex == index { break }
      }
    }
    self.elements = elements
    self.skipped = skipped
    if !skipped.isEmpty, let context = ResourceContext.current {
      context.report.add(skipped, of: "\(Element.self)")
    }
  }

  /// The position of the first element.
  public var startIndex: Int { elements.startIndex }
  /// The position after the last element.
  public var endIndex: Int { elements.endIndex }
  /// The element at `position`.
  public subscript(position: Int) -> Element { elements[position] }
}

extension LossyArray: Sendable where Element: Sendable {}
extension LossyArray: Equatable where Element: Equatable {}
extension LossyArray: Encodable where Element: Encodable {
  /// Encodes the elements that decoded, as a plain array.
  /// - Parameter encoder: The encoder.
  public func encode(to encoder: any Encoder) throws {
    try elements.encode(to: encoder)
  }
}

/// One element a ``LossyArray`` (or a lossy resource) left out.
public struct SkippedElement: Sendable, Hashable, CustomStringConvertible {
  /// Its index in the array as received.
  public let index: Int
  /// Its coding path, as `Response.decode` errors name paths: `data.posts[1]`.
  public let path: String
  /// Why it did not decode: the decoding error, with the path of the field at fault.
  public let reason: String

  /// `<path>: <reason>`.
  public var description: String { "\(path): \(reason)" }
}

/// The elements that lossy arrays left out while decoding one resource: the cause of the `NetworkError` with code
/// `skippedElements` that a networking publishes to its failure hooks (the request itself succeeds).
public struct SkippedElements: Error, Sendable, CustomStringConvertible {
  /// The element types, and the elements left out of arrays of each, in the order they were met.
  public let elements: [(elementType: String, element: SkippedElement)]

  /// How many elements were left out.
  public var count: Int { elements.count }

  /// One line per element: `[Post] data.[1]: missing key 'content' at data.[1].content`.
  public var description: String {
    elements.map { "[\($0.elementType)] \($0.element)" }.joined(separator: "; ")
  }
}

/// Collects the elements lossy arrays leave out during one decoding (kept in its `ResourceContext`).
final class SkipReport: Sendable {
  private let entries = Locked<[(elementType: String, element: SkippedElement)]>([])

  func add(_ skipped: [SkippedElement], of elementType: String) {
    entries.withLock { $0.append(contentsOf: skipped.map { (elementType, $0) }) }
  }

  /// What was left out, or `nil` when nothing was.
  var result: SkippedElements? {
    let all = entries.withLock { $0 }
    return all.isEmpty ? nil : SkippedElements(elements: all)
  }
}

/// Decodes any value without reading it: steps over an element that did not decode.
private struct SkippedValue: Decodable {
  init(from decoder: any Decoder) throws {}
}

/// An array index as a coding key, for the path of a skipped element.
struct IndexKey: CodingKey {
  let intValue: Int?
  var stringValue: String { "\(intValue ?? 0)" }

  init(_ index: Int) {
    intValue = index
  }

  init?(stringValue: String) {
    guard let index = Int(stringValue) else { return nil }
    intValue = index
  }

  init?(intValue: Int) {
    self.intValue = intValue
  }
}
