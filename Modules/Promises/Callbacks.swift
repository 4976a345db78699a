/// The observers or cancel hooks of one promise, in the order they were added. The first is kept inline: most
/// promises get one observer and at most one hook, so the common case allocates no array.
@usableFromInline struct Callbacks<Element>: Sequence {
  @usableFromInline var first: Element?
  @usableFromInline var rest: [Element] = []

  @inlinable init() {}

  /// Adds `element` after the others.
  @inlinable mutating func append(_ element: Element) {
    if first == nil {
      first = element
    } else {
      rest.append(element)
    }
  }

  /// Walks the elements, oldest first.
  @usableFromInline struct Iterator: IteratorProtocol {
    @usableFromInline var first: Element?
    @usableFromInline var rest: IndexingIterator<[Element]>

    @inlinable init(first: Element?, rest: [Element]) {
      self.first = first
      self.rest = rest.makeIterator()
    }

    @inlinable mutating func next() -> Element? {
      if let element = first {
        first = nil
        return element
      }
      return rest.next()
    }
  }

  @inlinable func makeIterator() -> Iterator {
    Iterator(first: first, rest: rest)
  }
}

extension Callbacks: Sendable where Element: Sendable {}

extension Callbacks.Iterator: Sendable where Element: Sendable {}
