import MalibuCore
import Testing

@Suite("MediaType")
struct MediaTypeTests {
  static let valid: [(String, String, String, [String: String])] = [
    ("application/json", "application", "json", [:]),
    ("Application/JSON; Charset=UTF-8", "application", "json", ["charset": "UTF-8"]),
    ("text/html;charset=\"iso-8859-1\"", "text", "html", ["charset": "iso-8859-1"]),
    ("multipart/form-data; boundary=\"a\\\"b\"", "multipart", "form-data", ["boundary": "a\"b"]),
    ("application/vnd.api+json ; q=0.5", "application", "vnd.api+json", ["q": "0.5"]),
    ("*/*", "*", "*", [:]),
    ("text/plain;", "text", "plain", [:]),
    // A quoted string keeps its non-ASCII characters, escaped or not.
    ("text/plain; title=\"naïve\"", "text", "plain", ["title": "naïve"]),
    ("text/plain; title=\"caf\\é \\\\ ü\"", "text", "plain", ["title": "café \\ ü"]),
  ]

  @Test(arguments: valid)
  func parses(_ text: String, _ type: String, _ subtype: String, _ parameters: [String: String]) throws {
    let mediaType = try MediaType(parsing: text)
    #expect(mediaType.type == type)
    #expect(mediaType.subtype == subtype)
    #expect(mediaType.parameters == parameters)
  }

  @Test(arguments: ["", "json", "/", "text/", "/plain", "text/plain; charset", "text/plain; charset=\"utf-8", "a/b c"])
  func rejectsInvalid(_ text: String) {
    #expect {
      try MediaType(parsing: text)
    } throws: { error in
      (error as? NetworkError)?.code == .invalidContentType
    }
  }

  @Test func parsesAcceptLists() throws {
    let list = try MediaType.parseList("text/html, application/json;q=0.9 , */*;q=0")
    #expect(list.map(\.essence) == ["text/html", "application/json", "*/*"])
    #expect(list.map(\.quality) == [1, 0.9, 0])
    #expect(try MediaType.parseList("").isEmpty)
    #expect(throws: NetworkError.self) { try MediaType.parseList("text/html; q") }
  }

  @Test func listsAppendAndARefusedOneLeavesTheListAsItWas() throws {
    var list = try MediaType.parseList("text/html")
    try MediaType.parseList("application/json, */*;q=0.1", appendingTo: &list)
    #expect(list.map(\.essence) == ["text/html", "application/json", "*/*"])
    #expect(throws: NetworkError.self) { try MediaType.parseList("text/plain, image/", appendingTo: &list) }
    #expect(list.map(\.essence) == ["text/html", "application/json", "*/*"])
  }

  @Test func wildcardMatching() throws {
    let json = try MediaType(parsing: "application/json; charset=utf-8")
    #expect(try MediaType(parsing: "*/*").matches(json))
    #expect(try MediaType(parsing: "application/*").matches(json))
    #expect(try MediaType(parsing: "APPLICATION/JSON").matches(json))
    #expect(!(try MediaType(parsing: "text/*").matches(json)))
    #expect(json.charset == "utf-8")
    #expect(json.description == "application/json; charset=utf-8")
  }
}

@Suite("MediaType q-values")
struct MediaTypeQualityTests {
  @Test(arguments: [
    "text/html;q=abc", "text/html;q=2", "text/html;q=1.5", "text/html;q=0.1234", "text/html;q=-0", "text/html;q=",
  ])
  func malformedQValuesAreErrors(_ text: String) {
    #expect(throws: NetworkError.self) { try MediaType.parseList(text) }
  }

  @Test(arguments: [
    ("text/html;q=0", 0.0), ("text/html;q=0.5", 0.5), ("text/html;q=1.000", 1.0), ("text/html;Q=0.25", 0.25),
  ])
  func validQValues(_ text: String, _ quality: Double) throws {
    #expect(try MediaType.parseList(text).first?.quality == quality)
  }

  @Test("parsing the same text again gives the same type; the remembered parse never answers for other text")
  func repeatedParses() throws {
    let json = try MediaType(parsing: "application/json")
    #expect(try MediaType(parsing: "application/json") == json)
    #expect(try MediaType(parsing: "application/json; charset=utf-8").parameters == ["charset": "utf-8"])
    #expect(throws: NetworkError.self) { try MediaType(parsing: "application/json garbage") }
    #expect(try MediaType(parsing: "application/json") == json)
    #expect(throws: NetworkError.self) { try MediaType(parsing: "application/json garbage") }
    #expect(try MediaType(parsing: "Text/HTML") == MediaType(type: "text", subtype: "html"))
    #expect(try MediaType(parsing: "Text/HTML").type == "text")
  }
}
