import Foundation
public import HTTPTypes
public import MalibuTransport

/// Middleware that sends a ``CookieJar``'s cookies and stores the cookies responses set, the same on every transport.
///
/// - Before sending, the request gets a `Cookie` field with the jar's cookies for its URL (``CookieJar/cookies(for:)``:
///   never a cookie whose domain, path or `Secure` flag does not allow that URL). A `Cookie` field the caller set is
///   kept and comes first; a jar cookie whose name the caller's field already has is left out, so the caller's value
///   wins. The request leaves with one `Cookie` field (several of the caller's are joined with `; `).
/// - After the response, every `Set-Cookie` field is stored (``CookieJar/store(_:from:)``); a malformed or refused
///   one is skipped, the others are kept.
/// - Redirects: a transport follows redirects by itself, and the middleware would see only the last response. So
///   when the options follow redirects, the middleware follows them instead, one hop at a time with the transport's
///   own rules (the same statuses, method changes, limit and errors, and credentials dropped at another origin):
///   each hop's `Set-Cookie` is stored and the next hop gets the cookies for its own URL. A caller's `Cookie` field
///   goes along until the first hop to another origin, as on the transports. The middleware after this one and the
///   transport see each hop as a request of its own; a total timeout covers all hops together. The bodies of
///   redirect responses are read (up to 64 KiB) and dropped.
///
/// ```swift
/// let jar = CookieJar()
/// let transport = CurlTransport().with(middleware: [CookieMiddleware(jar: jar)])
/// ```
public struct CookieMiddleware: Middleware {
  /// The jar cookies come from and go to.
  public let jar: CookieJar

  /// The most of a redirect response's body that is read (so the connection can be reused) before it is dropped.
  static let redirectBodyLimit = 64 << 10

  /// Creates the middleware.
  /// - Parameter jar: The jar to read and fill.
  public init(jar: CookieJar) {
    self.jar = jar
  }

  /// Adds the jar's cookies, sends the request (following redirects hop by hop), and stores the cookies set.
  /// - Parameters:
  ///   - request: The request head.
  ///   - body: The request body, if any.
  ///   - options: The transfer options.
  ///   - next: The rest of the chain.
  /// - Returns: The last response.
  /// - Throws: Whatever the chain throws, and `TransportError` for a redirect the transport would refuse
  ///   (`tooManyRedirects`, `invalidRequest`) or a total timeout spent on earlier hops (`totalTimeout`).
  public func intercept(
    _ request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions,
    next: Next
  ) async throws -> TransportResponse {
    guard let url = request.url else { return try await next(request, body, options) }
    var callerCookie = Self.callerCookie(request)
    var current = withCookies(request, for: url, callerCookie: callerCookie)
    guard options.redirects.maxRedirects > 0 else {
      let response = try await next(current, body, options)
      jar.store(response.head, from: response.url ?? url)
      return response
    }

    var hopOptions = options
    hopOptions.redirects = .none
    let clock = ContinuousClock()
    let deadline = options.timeouts.total.map { clock.now + $0 }
    var currentURL = url
    var currentBody = body
    var followed = 0
    while true {
      if let deadline {
        let remaining = deadline - clock.now
        guard remaining > .zero else {
          throw TransportError(code: .totalTimeout, message: "the total timeout ran out after \(followed) redirects")
        }
        hopOptions.timeouts.total = remaining
      }
      let response = try await next(current, currentBody, hopOptions)
      jar.store(response.head, from: currentURL)
      // The transport's own rules; the Cookie field it would keep or drop is rebuilt below for the next URL.
      var original = current
      original.headerFields[.cookie] = callerCookie
      guard
        let (nextRequest, nextBody) = try Redirects.next(
          after: response.head,
          to: original,
          body: currentBody,
          policy: options.redirects,
          followedSoFar: followed
        ), let nextURL = nextRequest.url
      else { return response }
      _ = try? await response.body.collect(upTo: Self.redirectBodyLimit)
      response.body.cancel()
      if !Redirects.isSameOrigin(currentURL, nextURL) { callerCookie = nil }
      current = withCookies(nextRequest, for: nextURL, callerCookie: callerCookie)
      currentURL = nextURL
      currentBody = nextBody
      followed += 1
    }
  }

  /// The caller's `Cookie` fields as one value, or `nil`.
  private static func callerCookie(_ request: HTTPRequest) -> String? {
    request.headerFields[.cookie].flatMap { $0.isEmpty ? nil : $0 }
  }

  /// The request with one `Cookie` field: the caller's value, then the jar's cookies for `url` whose names it lacks.
  private func withCookies(_ request: HTTPRequest, for url: URL, callerCookie: String?) -> HTTPRequest {
    var request = request
    var cookies = jar.cookies(for: url)
    if let callerCookie {
      let named = Set(
        callerCookie.split(separator: ";").map { pair in
          String(pair.split(separator: "=", maxSplits: 1).first ?? "").trimmingCharacters(in: .whitespaces)
        }
      )
      cookies.removeAll { named.contains($0.name) }
    }
    let jarValue = cookies.isEmpty ? nil : cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    let value = [callerCookie, jarValue].compactMap { $0 }.joined(separator: "; ")
    // One field, appended as it is: assigning through the subscript would split it at each `; ` into fields of
    // their own, and a transport that writes each field as a line would send several `Cookie` lines, which RFC 6265
    // §5.4 forbids.
    request.headerFields[.cookie] = nil
    if !value.isEmpty { request.headerFields.append(HTTPField(name: .cookie, value: value)) }
    return request
  }
}
