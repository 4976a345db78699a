public import Foundation
public import HTTPTypes
@_spi(Malibu) import MalibuCore

/// A cookie store after RFC 6265: it takes `Set-Cookie` fields from responses and gives each request the cookies
/// its URL may have. ``CookieMiddleware`` does both for a transport or a networking.
///
/// - Storing (RFC 6265 §5.2–5.3, stricter where RFC 6265bis is): `Max-Age` wins over `Expires`, and zero or less,
///   or an expiry in the past, deletes the stored cookie of that name, domain and path; an expiry lies at most 400
///   days ahead. A `Domain` (leading dot ignored) must domain-match the response host, else the cookie is refused;
///   with no `Domain`, or from an IP-address host, the cookie is host-only. A `Domain` that is a public suffix is
///   refused (``CookieRejection/Reason/publicSuffix``), or made host-only when the host is that very suffix: a name
///   with no dot (`com`, `localhost`) always, and on Linux every suffix of the Public Suffix List (`co.uk`,
///   `github.io`, `herokuapp.com`, wildcard and exception rules included) as installed by the system's
///   `publicsuffix` package at `/usr/share/publicsuffix/public_suffix_list.dat`, read once per process: the list
///   stays as current as the system's package updates keep that file. Apple platforms ship no such file: there, and
///   on a system without the package, only the dot-less rule applies. A missing
///   or relative `Path` becomes the default path (the request path's directory). A `Secure` cookie is only taken
///   from an `https` response, and an `http` response may not replace or shadow a stored `Secure` cookie.
///   `__Secure-` and `__Host-` names are checked. `HttpOnly` and `SameSite` are kept as attributes.
/// - A cookie replaces the stored one with the same name, domain and path, keeping its creation time. Past
///   ``Limits/perDomain`` cookies of a domain, or ``Limits/total`` in all, the oldest go first, after the expired.
/// - Sending (§5.4): host-only cookies to their host only, others to the domain and its subdomains; the request
///   path must path-match; `Secure` ones over `https` only; never an expired one. Longest path first, then earliest
///   created.
///
/// With a `fileURL`, cookies that have an expiry are saved after every change (crash-safe: the file is whole or
/// absent) and loaded when the jar is made; session cookies live as long as the jar. The file is untrusted input: one
/// that cannot be read or fails any check is refused as a whole (``loadError``), the jar starts empty, and the next
/// save replaces it.
///
/// ```swift
/// let jar = CookieJar()
/// jar.store(setCookie: ["session=abc; Path=/; HttpOnly"], from: URL(string: "https://example.com/login")!)
/// jar.cookieHeader(for: URL(string: "https://example.com/boards")!)  // "session=abc"
/// ```
///
/// Server code that acts for many users should give each user a jar of their own, or none: one jar shared by
/// every request sends one user's session to another's requests. That is why a networking has no jar unless it is
/// given one.
public final class CookieJar: Sendable {
  /// How many cookies a jar keeps.
  public struct Limits: Hashable, Sendable {
    /// The most cookies with the same domain; 50 by default (RFC 6265 §6.1 asks for at least 50).
    public var perDomain: Int
    /// The most cookies in all; 3000 by default (RFC 6265 §6.1 asks for at least 3000).
    public var total: Int

    /// Creates limits.
    /// - Parameters:
    ///   - perDomain: The most cookies with the same domain (at least 1).
    ///   - total: The most cookies in all (at least 1).
    public init(perDomain: Int = 50, total: Int = 3000) {
      self.perDomain = max(1, perDomain)
      self.total = max(1, total)
    }
  }

  /// The largest cookie file that is read.
  static let maxFileBytes = 16 << 20

  /// The limits.
  public let limits: Limits
  /// Where persistent cookies are kept across restarts; `nil` for a jar in memory only.
  public let fileURL: URL?
  /// Why the file could not be loaded when the jar was made (the jar then started empty); `nil` when it was loaded
  /// or did not exist.
  public let loadError: StorageError?
  /// The clock for expiry and creation times.
  public let now: @Sendable () -> Date

  private let state: Locked<State>

  /// Creates a jar in memory.
  /// - Parameters:
  ///   - limits: How many cookies to keep.
  ///   - now: The clock, replaceable in tests; the system clock by default.
  public init(limits: Limits = Limits(), now: @escaping @Sendable () -> Date = { Date() }) {
    self.limits = limits
    self.now = now
    fileURL = nil
    loadError = nil
    state = Locked(State())
  }

  /// Creates a jar that keeps its persistent cookies in a file, loading what the file holds.
  ///
  /// A file that cannot be read, is not a cookie file of this format, or holds a cookie that breaks a rule
  /// (a control character, an empty name, a relative path, no expiry …) is refused as a whole: ``loadError`` says
  /// why, the jar starts empty, and the next save replaces the file. A missing file is an empty jar.
  /// - Parameters:
  ///   - fileURL: The file; its directory is created when the first cookie is saved.
  ///   - limits: How many cookies to keep.
  ///   - now: The clock, replaceable in tests; the system clock by default.
  public init(fileURL: URL, limits: Limits = Limits(), now: @escaping @Sendable () -> Date = { Date() }) {
    self.limits = limits
    self.now = now
    self.fileURL = fileURL
    var initial = State()
    do {
      let loaded = try CookieFile.load(fileURL, now: now())
      for cookie in loaded { _ = initial.insert(cookie, now: now(), limits: limits) }
      loadError = nil
    } catch {
      loadError = error
    }
    state = Locked(initial)
  }

  /// Every cookie that has not expired, in the order they were stored.
  public var all: [Cookie] {
    let date = now()
    return state.withLock { $0.cookies.filter { !$0.isExpired(at: date) } }
  }

  /// Why the last save failed; `nil` when it succeeded or none was made.
  public var saveError: StorageError? {
    state.withLock { $0.saveError }
  }

  /// Stores the cookies of `Set-Cookie` lines received from `url`.
  ///
  /// Each line is parsed on its own: a malformed or refused one is skipped and the others are stored. A field value
  /// that joins several cookies with `, ` (as URLSession delivers repeated fields) is split first (see
  /// ``store(_:from:)``).
  /// - Parameters:
  ///   - setCookie: The `Set-Cookie` field values.
  ///   - url: The URL of the response that carried them.
  /// - Returns: The lines that were not stored, and why.
  @discardableResult
  public func store(setCookie: some Sequence<String>, from url: URL) -> [CookieRejection] {
    let date = now()
    var rejections: [CookieRejection] = []
    var cookies: [Cookie] = []
    for value in setCookie {
      for line in SetCookie.lines(in: value) {
        switch SetCookie.parse(line, from: url, now: date) {
        case .stored(let cookie): cookies.append(cookie)
        case .rejected(let rejection): rejections.append(rejection)
        }
      }
    }
    guard !cookies.isEmpty else { return rejections }
    let fromSecureOrigin = CookieRules.isSecureScheme(url)
    let changed = state.withLock { state in
      var changed = false
      for cookie in cookies {
        if !fromSecureOrigin, state.wouldShadowSecureCookie(cookie) {
          rejections.append(CookieRejection(name: cookie.name, reason: .insecureOrigin))
        } else {
          changed = state.insert(cookie, now: date, limits: limits) || changed
        }
      }
      return changed
    }
    if changed { saveAfterChange() }
    return rejections
  }

  /// Stores the cookies of a response's `Set-Cookie` fields.
  ///
  /// On every transport, each field value is split where a comma is followed by `name=` before any `;` (URLSession
  /// joins repeated fields into one with `, `; a comma inside `Expires` is followed by a day, not a name). So a
  /// single cookie whose value holds `, name=` is read as two on every transport alike.
  /// - Parameters:
  ///   - response: The response head.
  ///   - url: The URL the response came from.
  /// - Returns: The lines that were not stored, and why.
  @discardableResult
  public func store(_ response: HTTPResponse, from url: URL) -> [CookieRejection] {
    let values = response.headerFields[values: .setCookie]
    guard !values.isEmpty else { return [] }
    return store(setCookie: values, from: url)
  }

  /// The cookies to send with a request for `url`: matching domain (exactly, for host-only cookies) and path,
  /// `Secure` ones only over `https`, none expired; longest path first, then earliest created.
  /// - Parameter url: The request URL.
  /// - Returns: The cookies, in `Cookie` field order.
  public func cookies(for url: URL) -> [Cookie] {
    guard let host = CookieRules.host(of: url) else { return [] }
    let date = now()
    let path = CookieRules.requestPath(of: url)
    let secure = CookieRules.isSecureScheme(url)
    var selected = state.withLock { state in
      state.cookies.enumerated().filter { _, cookie in
        !cookie.isExpired(at: date) && (!cookie.isSecure || secure)
          && (cookie.isHostOnly ? host == cookie.domain : CookieRules.domainMatches(host: host, domain: cookie.domain))
          && CookieRules.pathMatches(requestPath: path, cookiePath: cookie.path)
      }
    }
    // Ties of path length and creation time keep the order of storing.
    selected.sort { lhs, rhs in
      if lhs.element.path.count != rhs.element.path.count { return lhs.element.path.count > rhs.element.path.count }
      if lhs.element.created != rhs.element.created { return lhs.element.created < rhs.element.created }
      return lhs.offset < rhs.offset
    }
    return selected.map(\.element)
  }

  /// The `Cookie` field value for a request to `url` (`name=value; name2=value2`), or `nil` when no cookie matches.
  /// - Parameter url: The request URL.
  /// - Returns: The field value.
  public func cookieHeader(for url: URL) -> String? {
    let cookies = cookies(for: url)
    guard !cookies.isEmpty else { return nil }
    return cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
  }

  /// Adds a cookie as if a server had set it (replacing the one with the same name, domain and path).
  ///
  /// A cookie whose name is empty or whose name or value holds a `;` or a control character, or whose domain is
  /// empty or path is not absolute, is not added: it could not be sent in a `Cookie` field as it is.
  /// - Parameter cookie: The cookie; an expired one deletes its stored namesake.
  /// - Returns: `false` when the cookie breaks one of those rules.
  @discardableResult
  public func add(_ cookie: Cookie) -> Bool {
    var cookie = cookie
    cookie.domain = CookieRules.canonicalDomain(cookie.domain)
    guard CookieFile.isValid(cookie) else { return false }
    let date = now()
    if state.withLock({ $0.insert(cookie, now: date, limits: limits) }) { saveAfterChange() }
    return true
  }

  /// Removes the cookie with this name, domain and path.
  /// - Parameters:
  ///   - name: The name.
  ///   - domain: The domain (a leading dot is ignored).
  ///   - path: The path; `/` by default.
  /// - Returns: Whether there was such a cookie.
  @discardableResult
  public func remove(name: String, domain: String, path: String = "/") -> Bool {
    let domain = CookieRules.canonicalDomain(domain)
    let removed = state.withLock { state in
      let index = state.cookies.firstIndex { $0.name == name && $0.domain == domain && $0.path == path }
      return index.map { state.cookies.remove(at: $0) }
    }
    if removed?.isPersistent == true { saveAfterChange() }
    return removed != nil
  }

  /// Removes every cookie for which `shouldRemove` is `true`.
  /// - Parameter shouldRemove: Decides for each cookie.
  public func removeAll(where shouldRemove: (Cookie) -> Bool) {
    let changed = state.withLock { state in
      let before = state.cookies.count
      state.cookies.removeAll(where: shouldRemove)
      return state.cookies.count != before
    }
    if changed { saveAfterChange() }
  }

  /// Removes every cookie (and, with a file, saves the empty jar).
  public func removeAll() {
    removeAll { _ in true }
  }

  /// Writes the persistent cookies to ``fileURL`` now (saving also happens after every change). When another save is
  /// under way, that one writes again once it is done, with the cookies as they are then, and this call returns.
  /// - Throws: ``StorageError`` with ``StorageError/Code/ioFailed`` when the file cannot be written.
  public func save() throws(StorageError) {
    if let failure = saveAfterChange() { throw failure }
  }

  /// Saves after a change, on the calling thread. Writers never overlap: a change during a save makes the saver
  /// write once more when it is done, so the last write holds the latest cookies.
  /// - Returns: The failure of the last write this call made, if it made any and that failed.
  @discardableResult
  private func saveAfterChange() -> StorageError? {
    guard let fileURL else { return nil }
    var snapshot = state.withLock { state -> [Cookie]? in
      guard !state.isSaving else {
        state.needsSave = true
        return nil
      }
      state.isSaving = true
      return state.cookies
    }
    var failure: StorageError?
    while let cookies = snapshot {
      let date = now()
      failure = nil
      do {
        try CookieFile.save(cookies.filter { $0.isPersistent && !$0.isExpired(at: date) }, to: fileURL)
      } catch {
        failure = error
      }
      snapshot = state.withLock { state -> [Cookie]? in
        state.saveError = failure
        guard state.needsSave else {
          state.isSaving = false
          return nil
        }
        state.needsSave = false
        return state.cookies
      }
    }
    return failure
  }
}

extension CookieJar {
  /// The cookies and the saver's bookkeeping, behind the jar's lock.
  struct State {
    var cookies: [Cookie] = []
    var isSaving = false
    var needsSave = false
    var saveError: StorageError?

    /// Stores a cookie after RFC 6265 §5.3 steps 11–12 and evicts past the limits (§5.3 end).
    /// - Returns: Whether a persistent cookie was added, replaced or removed, so the file needs saving.
    mutating func insert(_ cookie: Cookie, now: Date, limits: Limits) -> Bool {
      var cookie = cookie
      var changed = false
      cookies.removeAll { stored in
        guard stored.isExpired(at: now) else { return false }
        changed = true
        return true
      }
      if let index = cookies.firstIndex(where: { $0.isSameSlot(as: cookie) }) {
        changed = changed || cookies[index].isPersistent || cookie.isPersistent
        guard !cookie.isExpired(at: now) else {
          cookies.remove(at: index)
          return changed
        }
        // In place, so that the order of storing (the last tie-break when sending) stays as it was.
        cookie.created = cookies[index].created
        cookies[index] = cookie
        return changed
      }
      guard !cookie.isExpired(at: now) else { return changed }
      cookies.append(cookie)
      changed = changed || cookie.isPersistent
      var sameDomain = cookies.lazy.filter { $0.domain == cookie.domain }.count
      while sameDomain > limits.perDomain {
        changed = evictOldest { $0.domain == cookie.domain } || changed
        sameDomain -= 1
      }
      while cookies.count > limits.total {
        changed = evictOldest { _ in true } || changed
      }
      return changed
    }

    /// Removes the earliest created cookie among those `included`.
    /// - Returns: Whether it was persistent.
    private mutating func evictOldest(among included: (Cookie) -> Bool) -> Bool {
      var oldest: Int?
      for index in cookies.indices where included(cookies[index]) {
        if oldest.map({ cookies[index].created < cookies[$0].created }) ?? true { oldest = index }
      }
      guard let oldest else { return false }
      return cookies.remove(at: oldest).isPersistent
    }

    /// RFC 6265bis §5.7 step 16: from an insecure origin, a cookie may not overwrite or shadow a stored `Secure`
    /// cookie of the same name whose domain matches either way and whose path matches the new cookie's path.
    func wouldShadowSecureCookie(_ cookie: Cookie) -> Bool {
      cookies.contains { stored in
        stored.isSecure && stored.name == cookie.name
          && (CookieRules.domainMatches(host: stored.domain, domain: cookie.domain)
            || CookieRules.domainMatches(host: cookie.domain, domain: stored.domain))
          && CookieRules.pathMatches(requestPath: cookie.path, cookiePath: stored.path)
      }
    }
  }
}
