import Foundation
import MalibuTransport

/// A response body passed through to the caller chunk by chunk (with the caller's back-pressure) while a copy is
/// kept; when the body ends complete and within the limit, the copy is handed to `onComplete`.
struct CachingBody: AsyncSequence, Sendable {
  typealias Element = Data

  let upstream: ResponseBody
  let limit: Int
  let onComplete: @Sendable (Data) -> Void

  func makeAsyncIterator() -> Iterator {
    Iterator(base: upstream.makeAsyncIterator(), limit: limit, onComplete: onComplete)
  }

  struct Iterator: AsyncIteratorProtocol {
    var base: ResponseBody.Iterator
    let limit: Int
    let onComplete: @Sendable (Data) -> Void
    var copy: Data? = Data()

    init(base: ResponseBody.Iterator, limit: Int, onComplete: @escaping @Sendable (Data) -> Void) {
      self.base = base
      self.limit = limit
      self.onComplete = onComplete
    }

    mutating func next() async throws -> Data? {
      guard let chunk = try await base.next() else {
        if let copy { onComplete(copy) }
        copy = nil
        return nil
      }
      if let count = copy?.count {
        if count + chunk.count > limit { copy = nil } else { copy?.append(chunk) }
      }
      return chunk
    }
  }
}
