public import Foundation
public import HTTPTypes
@_spi(Malibu) import MalibuCore
package import MalibuTransport

/// The validators (and bodies) ``ETagMiddleware`` revalidates with: for each request it has seen answered with an
/// `ETag`, the response, in memory and bounded.
///
/// **Keys.** An entry is kept under the request's method, URL (query included) and credentials (``credentialFields``:
/// `Authorization`, `Proxy-Authorization`, `Cookie` and any fields given at creation), the values only as a salted
/// SHA-256 digest, as ``HTTPCache`` does; for `PUT` and `PATCH` the digest of the body joins the key, so a different
/// body is never sent with another body's validator. So one store can serve a process sending requests for many
/// users, as long as what tells them apart travels in a credential field: a user's stored body never answers
/// another user's request, nor a request without credentials.
///
/// **Bounds.** At most ``maxEntries`` entries and ``maxTotalBytes`` of bodies; a body over ``maxBodyBytes`` is not
/// kept. The least recently used entry goes first.
///
/// ```swift
/// let store = ETagStore(maxTotalBytes: 4 << 20, credentialFields: [HTTPField.Name("X-Api-Key")!])
/// let transport = CurlTransport().with(middleware: [ETagMiddleware(store: store)])
/// ```
public final class ETagStore: Sendable {
  /// What is kept for one request: the response's head (its `ETag` among the fields), body and URL.
  public struct Entry: Sendable {
    /// The response head, without `Set-Cookie` and hop-by-hop fields.
    public var head: HTTPResponse
    /// The response body.
    public var body: Data
    /// The URL the response came from, if known.
    public var url: URL?

    /// The validator sent as `If-None-Match`.
    public var etag: String? { head.headerFields[.eTag] }

    /// Creates an entry.
    /// - Parameters:
    ///   - head: The response head.
    ///   - body: The response body.
    ///   - url: The URL the response came from.
    public init(head: HTTPResponse, body: Data, url: URL? = nil) {
      self.head = head
      self.body = body
      self.url = url
    }
  }

  private struct State: Sendable {
    var entries: [String: Entry] = [:]
    /// Keys, least recently used first.
    var order: [String] = []
    var totalBytes = 0
  }

  /// The most entries kept.
  public let maxEntries: Int
  /// The largest body kept; a response with a larger one is not stored.
  public let maxBodyBytes: Int
  /// The most body bytes kept across all entries.
  public let maxTotalBytes: Int
  /// The request fields whose values an entry is bound to: ``HTTPCache/defaultCredentialFields`` and those given at
  /// creation, in name order.
  public let credentialFields: [HTTPField.Name]
  private let salt = HTTPCache.randomSalt()
  private let state = Locked(State())

  /// Creates an empty store.
  /// - Parameters:
  ///   - maxEntries: The most entries kept; 256 by default.
  ///   - maxBodyBytes: The largest body kept; 1 MiB by default.
  ///   - maxTotalBytes: The most body bytes kept in all; 8 MiB by default.
  ///   - credentialFields: Request fields that identify a user besides `Authorization`, `Proxy-Authorization` and
  ///     `Cookie` (which always count).
  public init(
    maxEntries: Int = 256,
    maxBodyBytes: Int = 1 << 20,
    maxTotalBytes: Int = 8 << 20,
    credentialFields: [HTTPField.Name] = []
  ) {
    self.maxEntries = max(1, maxEntries)
    self.maxTotalBytes = max(0, maxTotalBytes)
    self.maxBodyBytes = min(max(0, maxBodyBytes), self.maxTotalBytes)
    var names: [HTTPField.Name] = []
    for name in HTTPCache.defaultCredentialFields + credentialFields where !names.contains(name) { names.append(name) }
    self.credentialFields = names.sorted { $0.canonicalName < $1.canonicalName }
  }

  /// The key of a request: `<METHOD> <scheme>://<authority><path and query>`, then ` credentials=<salted SHA-256>`
  /// when it carries credentials, then, for a body in memory, ` body=<salted SHA-256>`; `nil` for a body streamed from a
  /// file or a sequence, which cannot be keyed without reading it.
  /// - Parameters:
  ///   - request: The request head.
  ///   - body: The request body.
  /// - Returns: The key, or `nil`.
  package func key(for request: HTTPRequest, body: RequestBody?) -> String? {
    var key = HTTPCache.primaryKey(for: request)
    let credentials = HTTPCache.credentialText(of: request, fields: credentialFields)
    if !credentials.isEmpty { key += HTTPCache.credentialsMarker + digest(Array(credentials.utf8)) }
    guard let body else { return key }
    guard case .data(let data) = body.storage else { return nil }
    return key + " body=" + digest(Array(data))
  }

  /// The entry for a key, which becomes the most recently used.
  /// - Parameter key: A key from ``key(for:body:)``.
  /// - Returns: The entry, or `nil`.
  package func entry(forKey key: String) -> Entry? {
    state.withLock { state in
      guard let entry = state.entries[key] else { return nil }
      if let index = state.order.lastIndex(of: key) {
        state.order.remove(at: index)
        state.order.append(key)
      }
      return entry
    }
  }

  /// Keeps (or replaces) an entry, unless its body is over ``maxBodyBytes``; evicts the least recently used entries
  /// beyond the bounds.
  /// - Parameters:
  ///   - entry: The entry.
  ///   - key: A key from ``key(for:body:)``.
  package func store(_ entry: Entry, forKey key: String) {
    guard entry.body.count <= maxBodyBytes else {
      removeEntry(forKey: key)
      return
    }
    state.withLock { state in
      if let old = state.entries.updateValue(entry, forKey: key) {
        state.totalBytes -= old.body.count
        state.order.removeAll { $0 == key }
      }
      state.order.append(key)
      state.totalBytes += entry.body.count
      while state.order.count > maxEntries || state.totalBytes > maxTotalBytes, !state.order.isEmpty {
        let evicted = state.order.removeFirst()
        state.totalBytes -= state.entries.removeValue(forKey: evicted)?.body.count ?? 0
      }
    }
  }

  /// Forgets the entry for a key.
  /// - Parameter key: A key from ``key(for:body:)``.
  package func removeEntry(forKey key: String) {
    state.withLock { state in
      guard let old = state.entries.removeValue(forKey: key) else { return }
      state.totalBytes -= old.body.count
      state.order.removeAll { $0 == key }
    }
  }

  /// Forgets every entry.
  public func removeAll() {
    state.withLock { $0 = State() }
  }

  /// The number of entries.
  public var count: Int { state.withLock { $0.entries.count } }

  /// The body bytes kept in all entries.
  public var totalBytes: Int { state.withLock { $0.totalBytes } }

  private func digest(_ bytes: [UInt8]) -> String {
    SHA256Digest.hex(salt + bytes)
  }
}
