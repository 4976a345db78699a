import Foundation
import HTTPTypes
import MalibuCore
import MalibuSerialization
import Testing

struct DataSerializationTests {
  @Test(
    "toData returns the body as is, at any status that may have one",
    arguments: [
      ([0x00, 0xFF, 0x7B, 0x0A] as [UInt8], 200), ([0x89, 0x50, 0x4E, 0x47], 201), (Array("not found".utf8), 404),
      ([], 200),
    ]
  )
  func bodyAsIs(bytes: [UInt8], status: Int) {
    #expect(makeResponse(bytes, status: status).toData() == Data(bytes))
  }

  @Test("With several Content-Type fields the first one gives the charset")
  func firstContentTypeField() throws {
    var response = makeResponse([0x63, 0x61, 0x66, 0xE9])
    response.headers.append(HTTPField(name: .contentType, value: "text/plain; charset=iso-8859-1"))
    response.headers.append(HTTPField(name: .contentType, value: "text/plain; charset=utf-8"))
    #expect(try response.toString() == "café")
  }
}
