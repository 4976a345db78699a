public import Foundation
public import HTTPTypes
@_spi(Malibu) import MalibuCore

/// An HTTP cache of `200 OK` responses to `GET`, used by ``CacheMiddleware``: in memory, and optionally written
/// through to a directory so that it survives a restart.
///
/// Entries are keyed by method and URL (scheme, authority, path and query). Only responses with a validator
/// (`ETag` or `Last-Modified`) are stored, with bodies up to ``maxBodyBytes``; when ``maxEntries`` is reached the
/// oldest entry goes. On disk each entry is one file written crash-safely (temporary file, `fsync`, `rename`);
/// a record that cannot be read is deleted, and a failed disk write leaves the in-memory entry (a cache may forget).
///
/// ```swift
/// let cache = HTTPCache()
/// let transport = CurlTransport().with(middleware: [CacheMiddleware(cache: cache)])
/// ```
public final class HTTPCache: Sendable {
  private struct State: Sendable {
    var entries: [String: CachedResponse] = [:]
    var order: [String] = []
  }

  /// The largest body stored; larger responses pass through uncached.
  public let maxBodyBytes: Int
  /// The most entries kept.
  public let maxEntries: Int
  /// The clock used for freshness.
  public let now: @Sendable () -> Date
  /// The directory entries are written to, or `nil` for a memory-only cache.
  public let directory: URL?
  // With a directory, file I/O runs inside the critical section so that memory and disk change together.
  private let state = Locked(State())

  /// Creates an empty cache.
  /// - Parameters:
  ///   - maxBodyBytes: The largest body stored; 5 MiB by default.
  ///   - maxEntries: The most entries kept; 512 by default.
  ///   - directory: Where to keep entries across restarts (loaded now); `nil`, the default, keeps them in memory.
  ///   - now: The clock, replaceable in tests; the system clock by default.
  public init(
    maxBodyBytes: Int = 5 << 20,
    maxEntries: Int = 512,
    directory: URL? = nil,
    now: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.maxBodyBytes = max(0, maxBodyBytes)
    self.maxEntries = max(1, maxEntries)
    self.directory = directory
    self.now = now
    if let directory {
      let all = Self.loadRecords(from: directory)
      for (key, _) in all.dropLast(self.maxEntries) { Self.deleteRecord(forKey: key, in: directory) }
      let records = all.suffix(self.maxEntries)
      state.withLock { state in
        for (key, response) in records where state.entries.updateValue(response, forKey: key) == nil {
          state.order.append(key)
        }
      }
    }
  }

  /// The cache key of a request head: `<METHOD> <scheme>://<authority><path>`.
  /// - Parameter request: The request head.
  /// - Returns: The key.
  public static func key(for request: HTTPRequest) -> String {
    "\(request.method.rawValue) \(request.scheme ?? "")://\(request.authority ?? "")\(request.path ?? "")"
  }

  /// The stored response for a key.
  /// - Parameter key: A key from ``key(for:)``.
  /// - Returns: The response, or `nil`.
  public func response(forKey key: String) -> CachedResponse? {
    state.withLock { $0.entries[key] }
  }

  /// Stores (or replaces) a response.
  /// - Parameters:
  ///   - response: The response.
  ///   - key: A key from ``key(for:)``.
  public func store(_ response: CachedResponse, forKey key: String) {
    guard response.body.count <= maxBodyBytes else { return }
    state.withLock { state in
      if state.entries.updateValue(response, forKey: key) == nil {
        state.order.append(key)
      }
      if let directory { Self.writeRecord(response, forKey: key, in: directory) }
      while state.order.count > maxEntries {
        let evicted = state.order.removeFirst()
        state.entries[evicted] = nil
        if let directory { Self.deleteRecord(forKey: evicted, in: directory) }
      }
    }
  }

  /// Forgets the response for a key.
  /// - Parameter key: A key from ``key(for:)``.
  public func removeResponse(forKey key: String) {
    state.withLock { state in
      if state.entries.removeValue(forKey: key) != nil {
        state.order.removeAll { $0 == key }
        if let directory { Self.deleteRecord(forKey: key, in: directory) }
      }
    }
  }

  /// Forgets every response.
  public func removeAll() {
    state.withLock { state in
      if let directory {
        for key in state.order { Self.deleteRecord(forKey: key, in: directory) }
      }
      state = State()
    }
  }

  /// The number of stored responses.
  public var count: Int { state.withLock { $0.entries.count } }
}
