package import Foundation

/// A response body collected into one buffer, up to a limit: the one place that enforces the `upTo:` limit of
/// `data(for:body:options:upTo:)` and ``ResponseBody/collect(upTo:)``, whichever transport fills it.
///
/// The buffer is pre-sized from the announced length (capped at the limit) and handed over without a copy by
/// ``take()``. A value type: an owner that keeps it in an enum takes it out before appending, so that the buffer
/// stays uniquely referenced and grows in place.
package struct BodyCollector: Sendable {
  /// The largest body accepted, in bytes.
  package let limit: Int
  private var data = Data()
  /// Whether room was reserved: then even a first chunk is copied into the reserved buffer.
  private var reserved = false

  /// A collector for a body of at most `limit` bytes.
  /// - Parameters:
  ///   - limit: The largest body accepted.
  ///   - expectedLength: The announced length (`Content-Length`, when no decoding changes it), if any: the buffer
  ///     is reserved for it.
  /// - Throws: ``TransportError`` with ``TransportError/Code/bodyTooLarge`` when `expectedLength` is already past
  ///   `limit`, so that the transfer stops before the body is received.
  package init(limit: Int, expectedLength: Int?) throws(TransportError) {
    self.limit = limit
    if let expectedLength, expectedLength > limit {
      throw .bodyTooLarge(limit: limit, size: expectedLength, announced: true)
    }
    if let expectedLength, expectedLength > 0 { reserve(expectedLength) }
  }

  /// The bytes collected so far.
  package var count: Int { data.count }

  /// Reserves room for `capacity` bytes in all (capped at the limit), when the caller knows more than the announced
  /// length.
  package mutating func reserve(_ capacity: Int) {
    guard capacity > 0 else { return }
    data.reserveCapacity(min(capacity, limit))
    reserved = true
  }

  /// Appends received bytes.
  /// - Throws: ``TransportError`` with ``TransportError/Code/bodyTooLarge`` past the limit; nothing is appended.
  package mutating func append(_ bytes: UnsafeRawBufferPointer) throws(TransportError) {
    guard bytes.count <= limit - data.count else { throw .bodyTooLarge(limit: limit) }
    data.append(contentsOf: bytes)
  }

  /// Appends a received chunk. The first chunk of a collector with nothing reserved is kept as it is, without a copy
  /// (a body that is one chunk is handed over as that chunk).
  /// - Throws: ``TransportError`` with ``TransportError/Code/bodyTooLarge`` past the limit; nothing is appended.
  package mutating func append(_ chunk: Data) throws(TransportError) {
    guard chunk.count <= limit - data.count else { throw .bodyTooLarge(limit: limit) }
    if data.isEmpty && !reserved {
      data = chunk
    } else {
      data.append(chunk)
    }
  }

  /// The bytes collected, handed over without a copy; the collector is empty afterwards.
  package mutating func take() -> Data {
    defer { data = Data() }
    return data
  }
}
