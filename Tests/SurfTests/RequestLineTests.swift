import Foundation
import Malibu
import SurfCore
import Testing

@Suite struct RequestLineTests {
  /// Arguments → method as given (nil: inferred), completed URL, item count.
  static let lines: [([String], String?, String, Int)] = [
    (["example.org"], nil, "http://example.org", 0),
    (["localhost"], nil, "http://localhost", 0),
    (["GET", "example.org"], "GET", "http://example.org", 0),
    (["put", "example.org/boards/1", "title=A"], "PUT", "http://example.org/boards/1", 1),
    (["example.org", "a==1", "X:1"], nil, "http://example.org", 2),
    ([":8080/get"], nil, "http://localhost:8080/get", 0),
    ([":8080"], nil, "http://localhost:8080/", 0),
    ([":/get"], nil, "http://localhost/get", 0),
    ([":"], nil, "http://localhost/", 0),
    (["https://example.org/x"], nil, "https://example.org/x", 0),
    (["DELETE", ":3000/boards/1"], "DELETE", "http://localhost:3000/boards/1", 0),
    (["127.0.0.1:8080/a"], nil, "http://127.0.0.1:8080/a", 0),
  ]

  @Test(arguments: lines)
  func splits(_ arguments: [String], _ method: String?, _ url: String, _ itemCount: Int) throws {
    let line = try RequestLine(parsing: arguments)
    #expect(line.method == method)
    #expect(line.url == url)
    #expect(line.items.count == itemCount)
  }

  @Test func noURLIsAUsageError() {
    #expect(throws: SurfError.self) { _ = try RequestLine(parsing: []) }
  }
}

@Suite struct RequestSpecTests {
  static func spec(_ arguments: [String], style: BodyStyle = .json, input: Data? = nil) throws -> RequestSpec {
    try RequestSpec(line: RequestLine(parsing: arguments), style: style, standardInput: input)
  }

  /// Arguments, style → method, URL, body kind.
  static let cases: [([String], BodyStyle, String, String, String)] = [
    (["example.org"], .json, "GET", "http://example.org/", "none"),
    (["example.org", "a=1"], .json, "POST", "http://example.org/", "json"),
    (["PUT", "example.org", "a=1"], .json, "PUT", "http://example.org/", "json"),
    (["example.org", "a=1"], .form, "POST", "http://example.org/", "form"),
    (["example.org", "a=1"], .multipart, "POST", "http://example.org/", "multipart"),
    (["example.org", "q==a b", "r==x&y=z+1"], .json, "GET", "http://example.org/?q=a%20b&r=x%26y%3Dz%2B1", "none"),
    (["example.org/p?k=v", "q==1"], .json, "GET", "http://example.org/p?k=v&q=1", "none"),
    (["example.org", "X-A:1"], .json, "GET", "http://example.org/", "none"),
  ]

  @Test(arguments: cases)
  func builds(_ arguments: [String], _ style: BodyStyle, _ method: String, _ url: String, _ kind: String) throws {
    let spec = try Self.spec(arguments, style: style)
    #expect(spec.method == method)
    #expect(spec.url.absoluteString == url)
    #expect(Self.kind(spec.body) == kind)
  }

  static func kind(_ body: RequestSpec.Body) -> String {
    switch body {
    case .none: "none"
    case .json: "json"
    case .form: "form"
    case .multipart: "multipart"
    case .file: "file"
    case .data: "data"
    }
  }

  @Test func jsonFieldsKeepTheirTypes() throws {
    let spec = try Self.spec(["example.org", "name=Balsa", "count:=3", "ok:=true", "tags:=[\"a\",1]", "n:=null"])
    guard case .json(let value) = spec.body else {
      Issue.record("not JSON: \(spec.body)")
      return
    }
    #expect(
      value
        == .object([
          "name": .string("Balsa"), "count": .int(3), "ok": .bool(true), "tags": .array([.string("a"), .int(1)]),
          "n": .null,
        ])
    )
    #expect(spec.headers.first?.name == "Accept")
    #expect(spec.headers.first?.value == "application/json, */*;q=0.5")
  }

  @Test func fileItemsMakeAMultipartForm() throws {
    let file = try Self.temporaryFile("hello", name: "hello.txt")
    let spec = try Self.spec(["example.org", "title=A", "photo@\(file.path);type=text/plain"])
    guard case .multipart(let fields, let files) = spec.body else {
      Issue.record("not multipart")
      return
    }
    #expect(fields.map(\.name) == ["title"])
    #expect(files.map(\.name) == ["photo"])
    #expect(files.first?.mimeType == "text/plain")
    #expect(spec.uploadsFiles)
    #expect(spec.method == "POST")
  }

  @Test func anAtFileIsTheWholeBody() throws {
    let file = try Self.temporaryFile("{\"a\":1}", name: "body.json")
    let spec = try Self.spec(["PUT", "example.org", "@\(file.path)"])
    guard case .file(let url, let contentType) = spec.body else {
      Issue.record("not a file body")
      return
    }
    #expect(url.path == file.path)
    #expect(contentType == "application/json")
    #expect(spec.uploadsFiles)
  }

  @Test func fieldsReadFromFiles() throws {
    let text = try Self.temporaryFile("line", name: "bio.txt")
    let json = try Self.temporaryFile("{\"k\":[1,2]}", name: "meta.json")
    let spec = try Self.spec(["example.org", "bio=@\(text.path)", "meta:=@\(json.path)"])
    guard case .json(let value) = spec.body else {
      Issue.record("not JSON")
      return
    }
    #expect(value == .object(["bio": .string("line"), "meta": .object(["k": .array([.int(1), .int(2)])])]))
  }

  @Test(arguments: [
    (Data("{\"a\":1}".utf8), BodyStyle.json, "application/json"),
    (Data("plain words".utf8), BodyStyle.json, "application/octet-stream"),
    (Data("a=1&b=2".utf8), BodyStyle.form, "application/x-www-form-urlencoded"),
  ])
  func standardInputIsTheBody(_ input: Data, _ style: BodyStyle, _ contentType: String) throws {
    let spec = try Self.spec(["example.org"], style: style, input: input)
    guard case .data(let data, let type) = spec.body else {
      Issue.record("stdin not used")
      return
    }
    #expect(data == input)
    #expect(type == contentType)
    #expect(spec.method == "POST")
  }

  @Test func emptyStandardInputIsNoBody() throws {
    let spec = try Self.spec(["example.org"], input: Data())
    #expect(Self.kind(spec.body) == "none")
    #expect(spec.method == "GET")
  }

  /// Contradictory or broken items, and the message that says so.
  static let invalid: [([String], BodyStyle, String)] = [
    (["example.org", "a:=nope"], .json, "'a:=' is not valid JSON"),
    (["example.org", "a:=1"], .form, "forms take strings"),
    (["example.org", "@/nonexistent/surf-body"], .json, "cannot read '/nonexistent/surf-body'"),
    (["example.org", "f@/nonexistent/surf-file"], .json, "cannot read '/nonexistent/surf-file' for f"),
    (["example.org", "b=@/nonexistent/surf-text"], .json, "cannot read '/nonexistent/surf-text' for b"),
    (["ftp://example.org/x"], .json, "is not an http(s) URL"),
    (["http://"], .json, "is not an http(s) URL"),
  ]

  @Test(arguments: invalid)
  func rejects(_ arguments: [String], _ style: BodyStyle, _ message: String) {
    #expect {
      _ = try Self.spec(arguments, style: style)
    } throws: { error in
      (error as? SurfError)?.message.contains(message) == true
    }
  }

  @Test func anAtFileBodyTakesNoOtherFields() throws {
    let file = try Self.temporaryFile("x", name: "x.bin")
    #expect {
      _ = try Self.spec(["example.org", "@\(file.path)", "a=1"])
    } throws: { error in
      (error as? SurfError)?.message.contains("cannot be combined") == true
    }
  }

  @Test func theMalibuRequestCarriesHeadersAndBody() throws {
    let spec = try Self.spec(["PATCH", "example.org/b", "X-A:1", "x-a:2", "title=T", "q==1"])
    let request = spec.request(storePolicy: .offline)
    #expect(request.method == .patch)
    #expect(request.resource.urlString == "http://example.org/b?q=1")
    #expect(request.headers["X-A"] == "1, 2")
    #expect(request.storePolicy == .offline)
    #expect(request.contentType == .json)
  }

  static func temporaryFile(_ text: String, name: String) throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("surf-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let url = directory.appendingPathComponent(name)
    try Data(text.utf8).write(to: url)
    return url
  }
}
