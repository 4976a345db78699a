import Malibu

/// `Networking(cookies: CookieJar())` stores every `Set-Cookie` (the one on httpbin's redirect too) and sends the
/// jar's cookies back with each request to the same host. A networking without a jar keeps none.
enum CookieStep {
  static func run(_ options: DemoOptions) async throws {
    let jar = CookieJar()
    let networking = Networking<HttpbinEndpoint>(cookies: jar)

    let afterRedirect = try await networking.request(.setCookie(name: "flavor", value: "mango")).validate()
      .decode(using: CookiesEcho.self).value
    try expect(afterRedirect.cookies["flavor"] == "mango", "the redirect to /cookies carried \(afterRedirect.cookies)")
    let stored = jar.all.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    report("GET /cookies/set?flavor=mango → 302 → /cookies sent it back; the jar holds \(stored)")

    let later = try await networking.request(.cookies).validate().decode(using: CookiesEcho.self).value
    try expect(later.cookies == ["flavor": "mango"], "GET /cookies with the jar carried \(later.cookies)")
    let without = try await Networking<HttpbinEndpoint>().request(.cookies).validate()
      .decode(using: CookiesEcho.self).value
    try expect(without.cookies.isEmpty, "GET /cookies without a jar carried \(without.cookies)")
    report("GET /cookies: httpbin saw \(later.cookies) (a networking without a jar: \(without.cookies))")
  }
}
