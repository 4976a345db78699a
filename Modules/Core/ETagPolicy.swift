/// Whether a request takes part in automatic `ETag` revalidation (`If-None-Match`), as early Malibu did for `GET`,
/// `PUT` and `PATCH`.
///
/// ```swift
/// var request = Request.get("boards")
/// request.etagPolicy = .enabled    // this request only; `nil` follows the networking's `etagPolicy`
/// ```
/// With `.enabled`, the `ETag` of a successful response is kept (with its body) in the networking's `ETagStore`, keyed
/// by method, URL, credentials and, for `PUT` and `PATCH`, the body; the next such request is sent with
/// `If-None-Match`, and a `304 Not Modified` reaches the caller as the stored response. Other methods are never
/// revalidated.
public enum ETagPolicy: String, Sendable, Hashable, CaseIterable {
  /// Revalidate with `If-None-Match` (`GET`, `PUT` and `PATCH` only).
  case enabled
  /// Send the request as it is and keep nothing.
  case disabled
}
