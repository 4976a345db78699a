import Foundation
import HTTPTypes
import MalibuCore
import MalibuEncoding
import Testing

@testable import MalibuTransport

/// `PreparedRequest` without the facade: what code that uses the modules alone gets.
@Suite struct PreparedRequestTests {
  private let base = "http://127.0.0.1:8080/api"

  private func bytes(_ body: RequestBody?) -> String? {
    guard case .data(let data) = body?.storage else { return nil }
    return String(decoding: data, as: UTF8.self)
  }

  @Test func buildsTheURLTheBodyAndTheFields() throws {
    let request = Request.post("boards?draft=1", parameters: ["title": "Balsa", "type": 1], headers: ["X-Own": "own"])
    let prepared = try PreparedRequest(request, baseUrl: base)
    #expect(prepared.head.method == .post)
    #expect(prepared.head.scheme == "http")
    #expect(prepared.head.authority == "127.0.0.1:8080")
    #expect(prepared.head.path == "/api/boards?draft=1")
    #expect(bytes(prepared.body) == #"{"title":"Balsa","type":1}"#)
    #expect(prepared.head.headerFields[.contentType] == "application/json")
    #expect(prepared.head.headerFields[HTTPField.Name("X-Own")!] == "own")
    #expect(prepared.head.headerFields[.userAgent] == DefaultHeaders.fields[.userAgent])
  }

  /// Default fields < the body's `Content-Type` < each layer, lowest first < the request's own; a multipart body
  /// keeps its encoder's `Content-Type`, boundary and all.
  @Test func layersFieldsInOrder() throws {
    let request = Request.put(
      "boards/1",
      contentType: .formURLEncoded,
      parameters: ["title": "Balsa"],
      headers: ["x-top": "request"]
    )
    let prepared = try PreparedRequest(
      request,
      baseUrl: base,
      headerLayers: [
        ["Content-Type": "text/plain", "X-Top": "low", "X-Low": "low", "User-Agent": "mine"],
        ["X-Top": "middle", "X-Middle": "middle"],
      ]
    )
    let fields = prepared.head.headerFields
    #expect(fields[.contentType] == "text/plain")
    #expect(fields[.userAgent] == "mine")
    #expect(fields[HTTPField.Name("X-Low")!] == "low")
    #expect(fields[HTTPField.Name("X-Middle")!] == "middle")
    #expect(fields[values: HTTPField.Name("X-Top")!] == ["request"])

    let multipart = try PreparedRequest(
      .upload(multipartParameters: ["key": "value"], to: "posts"),
      baseUrl: base,
      headerLayers: [["Content-Type": "text/plain"]]
    )
    #expect(multipart.head.headerFields[.contentType]?.hasPrefix("multipart/form-data; boundary=") == true)
  }

  /// A layer that spells one name twice sets both values, once; a default field a layer replaces keeps its place,
  /// and a new name comes after the defaults.
  @Test func aNameSpelledTwiceAndAReplacedDefault() throws {
    let prepared = try PreparedRequest(
      .get("boards", headers: ["User-Agent": "mine", "X-New": "new"]),
      baseUrl: base,
      headerLayers: [["X-Twice": "upper", "x-twice": "lower"]]
    )
    let fields = prepared.head.headerFields
    #expect(fields[values: HTTPField.Name("X-Twice")!].sorted() == ["lower", "upper"])
    #expect(
      fields.map(\.name).firstIndex(of: .userAgent) == DefaultHeaders.fields.map(\.name).firstIndex(of: .userAgent)
    )
    #expect(fields[.userAgent] == "mine")
    #expect(fields.last?.name == HTTPField.Name("X-New")!)
    #expect(fields.count == DefaultHeaders.fields.count + 3)
  }

  @Test func queryParametersGoIntoTheURLAndLeaveNoBody() throws {
    let prepared = try PreparedRequest(.get("boards", parameters: ["page": 2, "q": "a b"]), baseUrl: base)
    #expect(prepared.head.path == "/api/boards?page=2&q=a%20b")
    #expect(prepared.body == nil)
    #expect(prepared.head.headerFields[.contentType] == nil)
  }

  /// Each bad input is a precise `NetworkError`; a good request prepares afterwards as ever.
  @Test(arguments: [
    (Request.get("boards"), nil as String?, NetworkError.Code.invalidURL),
    (.get("boards", headers: ["X-Bad": "a\r\nInjected: 1"]), "http://127.0.0.1:8080", .invalidHeader),
    (.post("boards", parameters: ["tags": Set([1])]), "http://127.0.0.1:8080", .unsupportedParameter),
    (
      .post("boards", contentType: .custom("application/x-none"), parameters: ["a": 1]), "http://127.0.0.1:8080",
      .missingEncoder
    ),
    (
      .upload(data: Data("x".utf8), to: "boards", contentType: .custom("text/plain\r\nX-Injected: 1")),
      "http://127.0.0.1:8080", .invalidHeader
    ),
  ])
  func badInputIsAPreciseError(request: Request, baseUrl: String?, code: NetworkError.Code) throws {
    #expect {
      _ = try PreparedRequest(request, baseUrl: baseUrl)
    } throws: { error in
      (error as? NetworkError)?.code == code
    }
    #expect(try PreparedRequest(.get("boards"), baseUrl: base).head.path == "/api/boards")
  }

  /// A registry of one's own replaces the shared one.
  @Test func usesTheRegistryItIsGiven() throws {
    struct Plain: ParameterEncoding {
      func encode(parameters: Parameters) throws -> Data? {
        Data(parameters.keys.sorted().joined(separator: ",").utf8)
      }
    }
    let registry = ParameterEncoderRegistry()
    registry[.json] = Plain()
    let prepared = try PreparedRequest(
      .post("boards", parameters: ["b": 1, "a": 2]),
      baseUrl: base,
      encoders: registry
    )
    #expect(bytes(prepared.body) == "a,b")
  }
}
