public import Foundation
public import HTTPTypes
@_spi(Malibu) import MalibuCore
import MalibuTransport

/// A private HTTP cache (RFC 9111) of `200 OK` responses to `GET`, used by ``CacheMiddleware``: in memory, and
/// optionally written through to a directory so that it survives a restart.
///
/// **Credentials.** A response to a request that carries credentials (``credentialFields``: `Authorization`,
/// `Proxy-Authorization`, `Cookie` and any fields given at creation) answers only requests carrying exactly the same
/// values; it never answers a request with other credentials or with none, and a response stored for a request
/// without credentials never answers one with credentials. The values are kept only as a salted SHA-256 digest in the
/// key (``key(for:)``), never in clear, in memory or on disk. This holds whatever the response says: `public` does not
/// widen it, and `private` is what a private cache may store. RFC 9111 §3.5 (no reuse of a response to an
/// `Authorization` request unless it says `public`, `s-maxage` or `must-revalidate`) binds shared caches; this cache
/// is private, so it stores such responses, but for the same credentials only.
///
/// **What one cache is for.** A private cache stands for one user. A process that sends requests for many users
/// through one cache is safe as long as what tells the users apart travels in a credential field: name any other such
/// field (an `X-Api-Key`, a tenant header) in `credentialFields`, or the users of the same URL share responses.
///
/// Only responses with a validator (`ETag` or `Last-Modified`) or a positive freshness lifetime are stored, with
/// bodies up to ``maxBodyBytes``; when ``maxEntries`` is reached the oldest entry goes. On disk each entry is one file
/// written crash-safely (temporary file, `fsync`, `rename`); a file that cannot be read is deleted and its request goes
/// to the network, and a failed disk write leaves the in-memory entry (a cache may forget).
///
/// ```swift
/// let cache = HTTPCache(credentialFields: [HTTPField.Name("X-Api-Key")!])
/// let transport = CurlTransport().with(middleware: [CacheMiddleware(cache: cache)])
/// ```
public final class HTTPCache: Sendable {
  private struct State: Sendable {
    var entries: [String: CachedResponse] = [:]
    var order: [String] = []
  }

  /// The fields that always count as credentials: `Authorization`, `Proxy-Authorization` and `Cookie`.
  public static let defaultCredentialFields: [HTTPField.Name] = [.authorization, .proxyAuthorization, .cookie]

  /// The largest body stored; larger responses pass through uncached.
  public let maxBodyBytes: Int
  /// The most entries kept.
  public let maxEntries: Int
  /// The request fields whose values a stored response is bound to: ``defaultCredentialFields`` and those given at
  /// creation, in name order.
  public let credentialFields: [HTTPField.Name]
  /// The clock used for freshness.
  public let now: @Sendable () -> Date
  /// The directory entries are written to, or `nil` for a memory-only cache.
  public let directory: URL?
  /// Mixed into every digest, so that a digest of a guessable credential cannot be looked up in a table. Random per
  /// memory cache; kept in the directory of a disk cache, so that its keys hold across restarts.
  private let salt: [UInt8]
  // With a directory, file I/O runs inside the critical section so that memory and disk change together.
  private let state = Locked(State())

  /// Creates an empty cache.
  /// - Parameters:
  ///   - maxBodyBytes: The largest body stored; 5 MiB by default.
  ///   - maxEntries: The most entries kept; 512 by default.
  ///   - credentialFields: Request fields that identify a user besides `Authorization`, `Proxy-Authorization` and
  ///     `Cookie` (which always count); a response is only reused for the same values of all of them.
  ///   - directory: Where to keep entries across restarts (loaded now); `nil`, the default, keeps them in memory.
  ///   - now: The clock, replaceable in tests; the system clock by default.
  public init(
    maxBodyBytes: Int = 5 << 20,
    maxEntries: Int = 512,
    credentialFields: [HTTPField.Name] = [],
    directory: URL? = nil,
    now: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.maxBodyBytes = max(0, maxBodyBytes)
    self.maxEntries = max(1, maxEntries)
    var names: [HTTPField.Name] = []
    for name in Self.defaultCredentialFields + credentialFields where !names.contains(name) { names.append(name) }
    self.credentialFields = names.sorted { $0.canonicalName < $1.canonicalName }
    self.directory = directory
    self.now = now
    guard let directory else {
      salt = Self.randomSalt()
      return
    }
    salt = Self.loadSalt(in: directory)
    let all = Self.loadRecords(from: directory, maxBodyBytes: self.maxBodyBytes)
    for (key, _) in all.dropLast(self.maxEntries) { Self.deleteRecord(forKey: key, in: directory) }
    let records = all.suffix(self.maxEntries)
    state.withLock { state in
      for (key, response) in records where state.entries.updateValue(response, forKey: key) == nil {
        state.order.append(key)
      }
    }
  }

  /// The cache key of a request head: `<METHOD> <scheme>://<authority><path>`, followed by
  /// ` credentials=<salted SHA-256>` when the request carries any of ``credentialFields``.
  /// - Parameter request: The request head.
  /// - Returns: The key.
  public func key(for request: HTTPRequest) -> String {
    let primary = Self.primaryKey(for: request)
    let canonical = Self.credentialText(of: request, fields: credentialFields)
    return canonical.isEmpty ? primary : primary + Self.credentialsMarker + digest(canonical)
  }

  /// The values `request` has for `fields`, each with its name, as one text to digest; empty when it has none.
  static func credentialText(of request: HTTPRequest, fields: [HTTPField.Name]) -> String {
    var canonical = ""
    for name in fields {
      let values = request.headerFields[values: name]
      guard !values.isEmpty else { continue }
      canonical += name.canonicalName + "\u{0}" + values.joined(separator: "\u{0}") + "\u{1}"
    }
    return canonical
  }

  /// The salted digest of the values `request` has for `names` (lower-cased field names, as `Vary` lists them), or
  /// `nil` for no names. An absent field and an empty one give different digests.
  /// - Parameters:
  ///   - request: The request head.
  ///   - names: The field names a response's `Vary` lists.
  /// - Returns: The digest, or `nil`.
  public func varyDigest(of request: HTTPRequest, for names: [String]) -> String? {
    guard !names.isEmpty else { return nil }
    var canonical = ""
    for name in names {
      canonical += name + "\u{0}"
      if let field = HTTPField.Name(name), request.headerFields.contains(field) {
        canonical += "=" + request.headerFields[values: field].joined(separator: ", ")
      }
      canonical += "\u{1}"
    }
    return digest(canonical)
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

  /// Forgets every response stored for the request's method and URL, whatever the credentials they are bound to
  /// (RFC 9111 §4.4: an unsafe request invalidates the target URI).
  /// - Parameter request: The request head.
  public func removeResponses(for request: HTTPRequest) {
    let primary = Self.primaryKey(for: request)
    let bound = primary + Self.credentialsMarker
    state.withLock { state in
      let removed = state.order.filter { $0 == primary || $0.hasPrefix(bound) }
      guard !removed.isEmpty else { return }
      for key in removed {
        state.entries[key] = nil
        if let directory { Self.deleteRecord(forKey: key, in: directory) }
      }
      state.order.removeAll { removed.contains($0) }
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

  static let credentialsMarker = " credentials="

  static func primaryKey(for request: HTTPRequest) -> String {
    "\(request.method.rawValue) \(request.scheme ?? "")://\(request.authority ?? "")\(request.path ?? "")"
  }

  private func digest(_ text: String) -> String {
    SHA256Digest.hex(salt + Array(text.utf8))
  }

  static func randomSalt() -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    return (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
  }
}
