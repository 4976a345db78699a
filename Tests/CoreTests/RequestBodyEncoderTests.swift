import Foundation
import MalibuCore
import MalibuJSON
import Testing

/// `RequestBodyEncoder`: the encoders that conform out of the box, a user's, and what `EncodableBody` makes of them.
@Suite("Request body encoders")
struct RequestBodyEncoderTests {
  struct Board: Codable, Sendable, Equatable {
    let title: String
  }

  struct Refusal: Error {}

  struct FailingEncoder: RequestBodyEncoder {
    var contentType: String { "application/x-never" }
    func encode<T: Encodable>(_ value: T) throws -> Data { throw Refusal() }
  }

  @Test(
    "Each encoder names its content type",
    arguments: [
      (MalibuJSONEncoder() as any RequestBodyEncoder, "application/json"),
      (JSONEncoder() as any RequestBodyEncoder, "application/json"),
      (PropertyListEncoder() as any RequestBodyEncoder, "application/x-plist"),
    ]
  )
  func contentTypes(encoder: any RequestBodyEncoder, contentType: String) throws {
    let body = EncodableBody(Board(title: "Balsa"), encoder: encoder)
    #expect(body.ownContentType == contentType)
    #expect(try body.encodedWithOwnEncoder() == (try encoder.encode(Board(title: "Balsa"))))
  }

  @Test("A body without an encoder leaves it to Malibu's rules; one whose encoder throws fails with encodingFailed")
  func noEncoderAndAFailingOne() throws {
    let plain = EncodableBody(Board(title: "Balsa"))
    #expect(plain.ownContentType == nil)
    #expect(try plain.encodedWithOwnEncoder() == nil)
    #expect(try plain.jsonData() == Data(#"{"title":"Balsa"}"#.utf8))
    let failing = EncodableBody(Board(title: "Balsa"), encoder: FailingEncoder())
    let error = #expect(throws: NetworkError.self) { try failing.encodedWithOwnEncoder() }
    #expect(error?.code == .encodingFailed)
    #expect(error?.message.contains("could not be encoded as application/x-never") == true)
    #expect(error?.underlyingError is Refusal)
    // The request factories take any encoder, Foundation's as before.
    let request = Request.post("boards", body: Board(title: "Balsa"), encoder: PropertyListEncoder())
    guard case .encodable(let body) = request.task else {
      Issue.record("expected an encodable body")
      return
    }
    #expect(body.ownContentType == "application/x-plist")
  }
}
