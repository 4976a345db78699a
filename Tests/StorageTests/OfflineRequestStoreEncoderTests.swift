import Foundation
@_spi(Malibu) import MalibuCore
import Testing

@testable import MalibuStorage

/// Bodies written by a `RequestBodyEncoder` in the offline store: a JSON encoder's output is kept as the tree it
/// encodes to (its strategies applied), a body no JSON reader can read back is refused with a clear error.
@Suite struct OfflineRequestStoreEncoderTests {
  struct Post: Codable, Sendable {
    let postTitle: String
  }

  @Test func aJSONEncodersBodyIsKeptAsWhatItWrote() throws {
    let store = OfflineRequestStore(directory: makeTemporaryDirectory())
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    let request = Request.post(
      "https://example.com/posts",
      body: Post(postTitle: "a"),
      encoder: encoder,
      storePolicy: .offline
    )
    try store.save(request)
    let stored = try #require(try store.all().first)
    guard case .encodable(let body) = stored.request.task else {
      Issue.record("the stored task is \(stored.request.task), not an encodable body")
      return
    }
    #expect(try body.parameterValue() == .object(["post_title": .string("a")]))
  }

  @Test func aBodyThatIsNotJSONIsRefusedWithAClearError() throws {
    let store = OfflineRequestStore(directory: makeTemporaryDirectory())
    let plist = PropertyListEncoder()
    plist.outputFormat = .xml
    let request = Request.post(
      "https://example.com/posts",
      body: Post(postTitle: "a"),
      encoder: plist,
      storePolicy: .offline
    )
    #expect {
      try store.save(request)
    } throws: { error in
      (error as? StorageError)?.code == .unsupportedRequest
        && (error as? StorageError)?.message.contains("cannot be stored") == true
    }
    #expect(try store.all().isEmpty)
  }
}
