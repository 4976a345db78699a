import SurfCore
import Testing

@Suite struct RequestItemTests {
  static let items: [(String, RequestItem)] = [
    ("X-Board:2", .header(name: "X-Board", value: "2")),
    ("Accept:application/json", .header(name: "Accept", value: "application/json")),
    ("Referer:http://x.example/a?b=c", .header(name: "Referer", value: "http://x.example/a?b=c")),
    ("X-Empty;", .header(name: "X-Empty", value: "")),
    ("X-Unset:", .header(name: "X-Unset", value: "")),
    ("q==balsa fish", .query(name: "q", value: "balsa fish")),
    ("a==b==c", .query(name: "a", value: "b==c")),
    ("title=Balsa", .field(name: "title", value: "Balsa")),
    ("title=", .field(name: "title", value: "")),
    ("url=http://x.example:8080/", .field(name: "url", value: "http://x.example:8080/")),
    ("count:=3", .rawJSON(name: "count", json: "3")),
    ("tags:=[\"a\",\"b\"]", .rawJSON(name: "tags", json: "[\"a\",\"b\"]")),
    ("bio=@notes.txt", .fieldFromFile(name: "bio", path: "notes.txt")),
    ("meta:=@meta.json", .rawJSONFromFile(name: "meta", path: "meta.json")),
    ("photo@board.jpg", .file(name: "photo", path: "board.jpg", mimeType: nil)),
    ("photo@board.jpg;type=image/png", .file(name: "photo", path: "board.jpg", mimeType: "image/png")),
    ("@body.json", .bodyFile(path: "body.json")),
    ("a\\:b=c", .field(name: "a:b", value: "c")),
    // A backslash before another character stays, for the nested JSON path (HTTPie's rule).
    ("a\\[b\\]=c", .field(name: "a\\[b\\]", value: "c")),
    ("a\\\\b=c", .field(name: "a\\\\b", value: "c")),
    ("a\\=b==c", .query(name: "a=b", value: "c")),
    ("path\\@x=1", .field(name: "path@x", value: "1")),
    ("email=a@b.example", .field(name: "email", value: "a@b.example")),
  ]

  @Test(arguments: items)
  func parses(_ text: String, _ expected: RequestItem) throws {
    #expect(try RequestItem(parsing: text) == expected)
  }

  static let invalid: [(String, String)] = [
    ("nothing", "is not a request item"),
    (":value", "has no name before ':'"),
    ("==x", "has no name before '=='"),
    ("=x", "has no name before '='"),
    (":=1", "has no name before ':='"),
  ]

  @Test(arguments: invalid)
  func rejects(_ text: String, _ message: String) {
    #expect {
      _ = try RequestItem(parsing: text)
    } throws: { error in
      guard let error = error as? SurfError else { return false }
      return error.message.contains(message) && error.status == .error
    }
  }
}
