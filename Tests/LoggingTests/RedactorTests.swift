import Foundation
import HTTPTypes
import MalibuLogging
import Testing

@Suite("Redactor")
struct RedactorTests {
  let redactor = Redactor()

  @Test(
    "secret headers are redacted whatever their case",
    arguments: [
      "Authorization", "authorization", "PROXY-AUTHORIZATION", "Cookie", "set-cookie", "X-Auth-Token", "X-Api-Key",
      "X-Client-Secret", "X-Refresh-Token",
    ]
  )
  func secretHeader(name: String) throws {
    let fieldName = try #require(HTTPField.Name(name))
    let fields = HTTPFields([HTTPField(name: fieldName, value: "s3cr3t"), HTTPField(name: .accept, value: "*/*")])
    let redacted = redactor.redact(fields)
    #expect(redacted[fieldName] == Redactor.placeholder)
    #expect(redacted[.accept] == "*/*")
    #expect(Array(redacted.map(\.name.rawName)) == [name, "Accept"])
  }

  @Test("ordinary headers are kept", arguments: ["Accept", "Content-Type", "User-Agent", "X-Request-ID"])
  func ordinaryHeader(name: String) {
    #expect(!redactor.isSecret(headerName: name))
  }

  @Test(
    "secret parameter keys are redacted in queries",
    arguments: [
      "password", "token", "secret", "access_token", "refresh_token", "client_secret", "api_key", "apiKey", "id_token",
      "user[password]", "Access-Token", "access%5Ftoken", "new+password",
    ]
  )
  func secretParameter(key: String) {
    #expect(redactor.redact(query: "page=2&\(key)=s3cr3t&q=surf") == "page=2&\(key)=<redacted>&q=surf")
  }

  @Test(
    "queries keep everything else as written",
    arguments: [
      ("", ""), ("a=1", "a=1"), ("flag", "flag"), ("token", "token"), ("a=1&&b=2", "a=1&&b=2"),
      ("token=", "token=<redacted>"), ("token=a=b", "token=<redacted>"),
      ("q=%20x&secret=1", "q=%20x&secret=<redacted>"),
    ]
  )
  func query(input: String, expected: String) {
    #expect(redactor.redact(query: input) == expected)
  }

  @Test func configuredKeysAndNamesReplaceTheDefaults() {
    let custom = Redactor(headerNames: ["X-Signature"], parameterKeys: ["pin"])
    #expect(custom.isSecret(headerName: "x-signature"))
    #expect(!custom.isSecret(headerName: "Authorization"))
    #expect(custom.redact(query: "pin=1234&password=x") == "pin=<redacted>&password=x")
  }

  @Test func urlRedactsUserInformationAndSecretQueryValues() {
    let request = HTTPRequest(
      method: .get,
      scheme: "https",
      authority: "ann:pa55@example.com:8443",
      path: "/a/b?token=abc&type=1#top"
    )
    #expect(redactor.redactedURL(of: request) == "https://<redacted>@example.com:8443/a/b?token=<redacted>&type=1#top")
  }

  @Test func jsonBodiesAreRedactedAtAnyDepth() throws {
    let json = #"{"user":{"name":"ann","password":"x"},"items":[{"api_key":"k","n":1}],"token":{"a":1}}"#
    let redacted = try #require(redactor.redact(json: Data(json.utf8)))
    #expect(
      redacted
        == #"{"items":[{"api_key":"<redacted>","n":1}],"token":"<redacted>","#
        + #""user":{"name":"ann","password":"<redacted>"}}"#
    )
  }

  @Test func invalidJSONIsNotShown() {
    #expect(redactor.redact(json: Data(#"{"password": "x""#.utf8)) == nil)
    #expect(redactor.preview(of: Data("{".utf8), contentType: "application/json") == nil)
  }

  @Test(
    "previews by content type",
    arguments: [
      ("application/json; charset=utf-8", #"{"secret":"x"}"#, #"{"secret":"<redacted>"}"#),
      ("application/vnd.api+json", #"["a"]"#, #"["a"]"#),
      ("application/x-www-form-urlencoded", "user=ann&password=x", "user=ann&password=<redacted>"),
      ("text/plain", "hello", "hello"),
      ("application/octet-stream", "hello", nil),
      ("multipart/form-data; boundary=x", "--x", nil),
    ] as [(String, String, String?)]
  )
  func preview(contentType: String, body: String, expected: String?) {
    #expect(redactor.preview(of: Data(body.utf8), contentType: contentType) == expected)
  }

  @Test func longPreviewsAreTruncated() {
    var short = Redactor()
    short.bodyPreviewLimit = 5
    #expect(short.preview(of: Data("hello world".utf8), contentType: "text/plain") == "hello… (6 more characters)")
    short.bodyPreviewLimit = 0
    #expect(short.preview(of: Data("hello".utf8), contentType: "text/plain") == nil)
  }

  @Test func hugeBodiesAreNotParsed() {
    let huge = Data(repeating: UInt8(ascii: "a"), count: 300_000)
    #expect(redactor.preview(of: huge, contentType: "text/plain") == nil)
  }
}
