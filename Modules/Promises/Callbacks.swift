/// The observers or cancel hooks of one promise, in the order they were added. The first two are kept inline: most
/// promises get one or two observers and at most one hook, so the common case allocates no array.
///
/// Elements are values wrapping a closure (``Promise/Observation``, ``Promise/CancelHook``), never bare closures: a
/// closure stored as a generic `Element` is kept in the most general calling convention, so storing it and taking it
/// out again each allocated a reabstraction thunk.
@usableFromInline struct Callbacks<Element>: Sequence {
  @usableFromInline var first: Element?
  @usableFromInline var second: Element?
  @usableFromInline var rest: [Element] = []

  @inlinable init() {}

  /// Whether there are no elements.
  @inlinable var isEmpty: Bool { first == nil }

  /// Adds `element` after the others.
  @inlinable mutating func append(_ element: Element) {
    if first == nil {
      first = element
    } else if second == nil {
      second = element
    } else {
      rest.append(element)
    }
  }

  /// Walks the elements, oldest first.
  @usableFromInline struct Iterator: IteratorProtocol {
    @usableFromInline var first: Element?
    @usableFromInline var second: Element?
    @usableFromInline var rest: IndexingIterator<[Element]>

    @inlinable init(_ callbacks: Callbacks) {
      first = callbacks.first
      second = callbacks.second
      rest = callbacks.rest.makeIterator()
    }

    @inlinable mutating func next() -> Element? {
      if let element = first {
        first = nil
        return element
      }
      if let element = second {
        second = nil
        return element
      }
      return rest.next()
    }
  }

  @inlinable func makeIterator() -> Iterator {
    Iterator(self)
  }
}

extension Callbacks: Sendable where Element: Sendable {}

extension Callbacks.Iterator: Sendable where Element: Sendable {}
