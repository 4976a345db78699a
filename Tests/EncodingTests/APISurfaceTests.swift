import Foundation
import MalibuCore
import MalibuEncoding
import Testing

/// The "Encoding" block of API.md, as written (the facade's `Malibu.parameterEncoders` is the shared registry).
@Suite struct APISurfaceTests {
  private struct CustomJsonEncoder: ParameterEncoding {
    func encode(parameters: Parameters) throws -> Data? { Data("{}".utf8) }
  }

  private struct CustomXMLEncoder: ParameterEncoding {
    func encode(parameters: Parameters) throws -> Data? { Data("<xml/>".utf8) }
  }

  private enum Malibu {
    static let parameterEncoders = ParameterEncoderRegistry()
  }

  @Test func theEncodingBlockCompilesAndBehaves() throws {
    let body: Data? = try FormURLEncoder().encode(parameters: ["firstname": "John", "lastname": "Doe"])
    #expect(body == Data("firstname=John&lastname=Doe".utf8))
    let query: String = try FormURLEncoder().queryString(from: ["a": ["b": 1]])
    #expect(query == "a%5Bb%5D=1")
    #expect(FormURLEncoder.escape("a+b=c&d") == "a%2Bb%3Dc%26d")
    let json: Data? = try JSONParameterEncoder().encode(parameters: ["a": 1])
    #expect(json == Data(#"{"a":1}"#.utf8))

    let photo = try TemporaryFile(contents: Data("JPEG".utf8), name: "photo.jpg")
    var form = MultipartFormData(boundary: "Boundary-1")
    form.append("John", name: "firstname")
    form.append(fileAt: photo.url, name: "photo", fileName: "photo.jpg", mimeType: "image/jpeg")
    let length: UInt64 = form.contentLength
    let whole: Data = try form.encode()
    #expect(length == UInt64(whole.count))

    Malibu.parameterEncoders[.json] = CustomJsonEncoder()
    Malibu.parameterEncoders[.custom("application/xml")] = CustomXMLEncoder()
    #expect(Malibu.parameterEncoders[.json] is CustomJsonEncoder)
    #expect(Malibu.parameterEncoders[.custom("application/xml")] is CustomXMLEncoder)
  }
}
