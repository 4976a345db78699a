import MalibuAuth
import MalibuCore
import Testing

@Suite struct AuthorizationTests {
  @Test(
    arguments: [
      (Authorization.basic(username: "malibu", password: "surfingparadise"), "Basic bWFsaWJ1OnN1cmZpbmdwYXJhZGlzZQ=="),
      (.basic(username: "Aladdin", password: "open sesame"), "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="),
      (.basic(username: "test", password: "123\u{A3}"), "Basic dGVzdDoxMjPCow=="),
      (.basic(username: "", password: ""), "Basic Og=="),
      (.basic(username: "user", password: "pa:ss"), "Basic dXNlcjpwYTpzcw=="),
      (.bearer("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"), "Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"),
      (.header("Malibu-Header"), "Malibu-Header"),
      (.header("Digest username=\"a\",\trealm=\"b\""), "Digest username=\"a\",\trealm=\"b\""),
    ]
  )
  func headerValuesAreByteExact(authorization: Authorization, expected: String) throws {
    let value = try #require(try authorization.headerValue())
    #expect(Array(value.utf8) == Array(expected.utf8))
  }

  @Test func noneHasNoValue() throws {
    #expect(try Authorization.none.headerValue() == nil)
    #expect(Authorization.none.isNone)
    #expect(!Authorization.bearer("t").isNone)
  }

  @Test(
    arguments: [
      Authorization.basic(username: "a:b", password: "c"),
      .basic(username: "a\r\nX-Evil: 1", password: "c"),
      .basic(username: "a", password: "c\u{0}"),
      .bearer(""),
      .bearer("two words"),
      .bearer("token\r\nX-Evil: 1"),
      .header(""),
      .header("Custom\nX-Evil: 1"),
      .header("Custom\u{0}"),
    ]
  )
  func invalidCredentialsAreRejected(authorization: Authorization) {
    #expect {
      _ = try authorization.headerValue()
    } throws: { error in
      guard let error = error as? NetworkError else { return false }
      return error.code == .invalidHeader && !error.message.contains("X-Evil")
    }
  }

  @Test func descriptionHidesSecrets() {
    #expect(
      Authorization.basic(username: "malibu", password: "secret").description
        == #"Authorization.basic(username: "malibu", password: <redacted>)"#
    )
    #expect(!"\(Authorization.bearer("secret-token"))".contains("secret-token"))
    #expect(!String(reflecting: Authorization.header("secret-value")).contains("secret-value"))
    #expect(Authorization.none.description == "Authorization.none")
  }
}
