import Foundation
import Malibu
import Testing

/// The facade's serialization helpers on httpbin's bodies.
@Suite("Facade: serialization")
struct FacadeSerializationTests {
  struct Slideshow: Decodable, Sendable {
    struct Slide: Decodable, Sendable {
      let title: String
      let type: String
    }

    let author: String
    let title: String
    let slides: [Slide]
  }

  struct Document: Decodable, Sendable {
    let slideshow: Slideshow
  }

  @Test(arguments: Backend.allCases)
  func jsonAsDictionaryStringAndDecodable(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let networking = Networking<Httpbin>(transport: backend.kind)
    let dictionary = try await networking.request(.path("json")).validate().toJsonDictionary().value
    let slideshow = try #require(dictionary["slideshow"] as? [String: any Sendable])
    #expect(slideshow["author"] as? String == "Yours Truly")

    let text = try await networking.request(.path("json")).validate().toString().value
    #expect(text.contains("\"slideshow\""))

    let document = try await networking.request(.path("json")).validate().decode(using: Document.self).value
    #expect(document.slideshow.author == "Yours Truly")
    #expect(document.slideshow.slides.first?.title == "Wake up to WonderWidgets!")
  }

  @Test(arguments: Backend.allCases)
  func jsonArray(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let networking = Networking<Httpbin>(transport: backend.kind)
    // httpbin's /base64 answers with the decoded bytes: here `[1,"two",{"three":3}]`.
    let encoded = Data(#"[1,"two",{"three":3}]"#.utf8).base64EncodedString()
    let array = try await networking.request(.path("base64/\(encoded)")).validate().toJsonArray().value
    #expect(array.count == 3)
    #expect(array.first as? Int == 1)
    #expect(array[1] as? String == "two")
    #expect((array[2] as? [String: any Sendable])?["three"] as? Int == 3)

    let error = try #require(await rejection(networking.request(.path("json")).toJsonArray()))
    #expect(error.code == .unexpectedJSONShape)
  }

  @Test(arguments: Backend.allCases)
  func gzipIsDecoded(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let networking = Networking<Httpbin>(transport: backend.kind)
    let dictionary = try await networking.request(.path("gzip")).validate().toJsonDictionary().value
    #expect(dictionary["gzipped"] as? Bool == true)
  }

  @Test(arguments: Backend.allCases)
  func utf8AndHTMLText(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let networking = Networking<Httpbin>(transport: backend.kind)
    let utf8 = try await networking.request(.path("encoding/utf8")).validate().toString().value
    #expect(utf8.contains("∮ E⋅da = Q"))
    #expect(utf8.contains("Markus Kuhn"))
    let html = try await networking.request(.path("html")).validate(contentTypes: ["text/html"]).toString().value
    #expect(html.contains("Herman Melville - Moby-Dick"))
  }

  @Test(arguments: Backend.allCases)
  func decodingFailureKeepsTheResponse(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let networking = Networking<Httpbin>(transport: backend.kind)
    let error = try #require(await rejection(networking.request(.path("html")).decode(using: Document.self)))
    #expect(error.code == .decodingFailed)
    #expect(try error.response?.toString().contains("Herman Melville") == true)
  }
}
