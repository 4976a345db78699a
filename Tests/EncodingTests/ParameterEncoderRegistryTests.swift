import Foundation
import MalibuCore
import MalibuEncoding
import Testing

private struct MarkerEncoder: ParameterEncoding {
  let mark: Int
  func encode(parameters: Parameters) throws -> Data? { Data("\(mark)".utf8) }
}

@Suite struct ParameterEncoderRegistryTests {
  static let defaults: [(ContentType, String)] = [
    (.query, "FormURLEncoder"),
    (.formURLEncoded, "FormURLEncoder"),
    (.json, "JSONParameterEncoder"),
    (.multipartFormData, "MultipartFormEncoder"),
  ]

  @Test(arguments: defaults)
  func holdsTheDefaults(contentType: ContentType, typeName: String) throws {
    for registry in [ParameterEncoderRegistry(), ParameterEncoderRegistry.shared] {
      let encoder = try registry.encoder(for: contentType)
      #expect(String(describing: type(of: encoder)) == typeName)
    }
  }

  @Test(arguments: [ContentType.json, .query, .custom("application/xml")])
  func overridesAndResets(contentType: ContentType) throws {
    let registry = ParameterEncoderRegistry()
    registry[contentType] = MarkerEncoder(mark: 1)
    #expect((registry[contentType] as? MarkerEncoder)?.mark == 1)
    #expect(try registry.encoder(for: contentType).encode(parameters: [:]) == Data("1".utf8))
    registry.reset()
    #expect(!(registry[contentType] is MarkerEncoder))
    #expect(ParameterEncoderRegistry.shared[contentType] is MarkerEncoder == false)
  }

  @Test func settingNilBringsBackABuiltInDefaultAndRemovesACustomType() {
    let registry = ParameterEncoderRegistry()
    registry[.json] = MarkerEncoder(mark: 2)
    registry[.json] = nil
    #expect(registry[.json] is JSONParameterEncoder)
    registry[.custom("text/csv")] = MarkerEncoder(mark: 3)
    registry[.custom("text/csv")] = nil
    #expect(registry[.custom("text/csv")] == nil)
  }

  @Test(arguments: ["application/xml", "text/csv"])
  func aCustomTypeWithoutEncoderIsAnError(mediaType: String) {
    let error = networkError { _ = try ParameterEncoderRegistry().encoder(for: .custom(mediaType)) }
    #expect(error?.code == .missingEncoder)
    #expect(error?.message.contains(mediaType) == true)
  }

  @Test func theDefaultEncodeBodyUsesTheContentTypesHeader() throws {
    let registry = ParameterEncoderRegistry()
    registry[.custom("application/xml")] = MarkerEncoder(mark: 4)
    let body = try registry.encoder(for: .custom("application/xml"))
      .encodeBody(parameters: ["a": 1], contentType: .custom("application/xml"))
    #expect(body.contentType == "application/xml")
    #expect(body.data == Data("4".utf8))
  }

  @Test func survivesConcurrentReadsAndWritesFromManyThreads() throws {
    let registry = ParameterEncoderRegistry()
    let types = (0..<8).map { ContentType.custom("application/x-\($0)") }
    DispatchQueue.concurrentPerform(iterations: 2000) { index in
      let contentType = types[index % types.count]
      switch index % 5 {
      case 0: registry[contentType] = MarkerEncoder(mark: index)
      case 1: _ = registry[contentType]
      case 2: _ = try? registry.encoder(for: .json).encode(parameters: ["a": index])
      case 3: registry[.json] = index % 2 == 0 ? MarkerEncoder(mark: index) : nil
      default: _ = registry.contentTypes
      }
    }
    for (index, contentType) in types.enumerated() {
      let marker = try #require(registry[contentType] as? MarkerEncoder)
      #expect(marker.mark % types.count == index)
    }
    registry.reset()
    #expect(registry.contentTypes.count == 4)
    #expect(registry[.json] is JSONParameterEncoder)
  }
}
