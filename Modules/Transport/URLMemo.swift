public import HTTPTypes
@_spi(Malibu) public import MalibuCore

/// The URL a transport built last, with the scheme, authority and path it was built from: most programs call the
/// same few URLs, and checking and joining the parts again cost more than comparing them. Shared by the transport's
/// callers, behind a lock. A URL that cannot be built is never remembered: each such request is checked again and
/// fails with the same error.
///
/// Generic over the transport's form of a URL (libcurl takes a string, URLSession a `URL`); inlinable, so that each
/// transport gets it specialised for its own form. Malibu's own (SPI `Malibu`, not API), like `Locked`.
@_spi(Malibu) public final class URLMemo<Built: Sendable>: Sendable {
  @usableFromInline
  struct Entry: Sendable {
    @usableFromInline let scheme: String?
    @usableFromInline let authority: String?
    @usableFromInline let path: String?
    @usableFromInline let url: Built

    @inlinable
    init(scheme: String?, authority: String?, path: String?, url: Built) {
      self.scheme = scheme
      self.authority = authority
      self.path = path
      self.url = url
    }
  }

  @usableFromInline let last = Locked<Entry?>(nil)

  /// An empty memo.
  @inlinable
  public init() {}

  /// The URL of `request`: the remembered one when the request's scheme, authority and path are those it was built
  /// from, otherwise `build(request)`, remembered when it succeeds.
  /// - Throws: What `build` throws.
  @inlinable
  public func url(
    of request: HTTPRequest,
    build: (HTTPRequest) throws(TransportError) -> Built
  ) throws(TransportError) -> Built {
    let scheme = request.scheme
    let authority = request.authority
    let path = request.path
    let remembered = last.withLock { entry -> Built? in
      guard let entry, entry.path == path, entry.authority == authority, entry.scheme == scheme else { return nil }
      return entry.url
    }
    if let remembered { return remembered }
    let url = try build(request)
    last.withLock { $0 = Entry(scheme: scheme, authority: authority, path: path, url: url) }
    return url
  }
}
