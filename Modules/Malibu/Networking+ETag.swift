@_spi(Malibu) public import MalibuCore
@_spi(Malibu) import MalibuLogging
public import MalibuStorage

extension Networking {
  /// Automatic `If-None-Match` revalidation (early Malibu's ETag handling) for the requests whose own
  /// `Request.etagPolicy` is `nil`: ``/MalibuCore/ETagPolicy/disabled`` by default.
  ///
  /// ```swift
  /// networking.etagPolicy = .enabled        // every GET, PUT and PATCH of this networking
  /// var request = Request.get("boards")
  /// request.etagPolicy = .disabled          // except this one
  /// ```
  /// When enabled for a `GET`, `PUT` or `PATCH`, the `ETag` of a `2xx` response is kept in ``etagStore`` with the
  /// response; the next identical request (same method, URL, credentials and, for `PUT` and `PATCH`, body) is sent
  /// with `If-None-Match`, and a `304 Not Modified` reaches the caller as the stored response (its status and body,
  /// with `isFromCache` `true`). A request that sets a conditional field itself (its own `If-None-Match`, say) is
  /// left alone, and gets the server's `304` as it is. See `ETagMiddleware` for the rules.
  ///
  /// Off by default, unlike early Malibu, for the reasons the HTTP cache (``cache``) is: it keeps response bodies in
  /// memory, and one networking often serves many users, who are told apart only by what ``etagStore``'s
  /// `credentialFields` name (`Authorization`, `Proxy-Authorization` and `Cookie` always count). With ``cache`` on,
  /// `GET` requests are revalidated by the cache already; the two work together (the cache's validator wins).
  public var etagPolicy: ETagPolicy {
    get { settings.withLock { $0.etagPolicy } }
    set {
      settings.withLock { settings in
        settings.etagPolicy = newValue
        rebuildChain(&settings)
      }
    }
  }

  /// Where the validators and responses of ``etagPolicy`` are kept: an `ETagStore` of its own per networking, in
  /// memory (256 entries, 8 MiB of bodies, 1 MiB a body). Replace it to bound it differently or to name more
  /// credential fields; entries of the old store are not carried over.
  ///
  /// ```swift
  /// networking.etagStore = ETagStore(maxTotalBytes: 1 << 20, credentialFields: [HTTPField.Name("X-Api-Key")!])
  /// ```
  public var etagStore: ETagStore {
    get { settings.withLock { $0.etagStore } }
    set {
      settings.withLock { settings in
        settings.etagStore = newValue
        rebuildChain(&settings)
      }
    }
  }
}
