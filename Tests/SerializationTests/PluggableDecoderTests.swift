import Foundation
import HTTPTypes
import MalibuCore
import MalibuJSON
import MalibuSerialization
import MalibuTestSupport
import Testing

/// `Response.decode` and `Response.decodeResource` with any `ResponseDecoder`: the default (MalibuJSON, or the
/// response's `defaultDecoder`), Foundation's with a key strategy, a property-list decoder and decoders of a test's
/// own; key paths and lossy arrays on each, and decoders that throw.
@Suite("Pluggable decoders")
struct PluggableDecoderTests {
  struct Post: Codable, Equatable {
    let postTitle: String
    let content: String
  }

  static let snakeFeed =
    #"{"data":[{"post_title":"a","content":"A"},{"post_title":"b"},{"post_title":"c","content":"C"}]}"#
  static let camelFeed =
    #"{"data":[{"postTitle":"a","content":"A"},{"postTitle":"b"},{"postTitle":"c","content":"C"}]}"#

  static var snakeCase: JSONDecoder {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    return decoder
  }

  @Test("The default decoder is MalibuJSON's; a response's defaultDecoder replaces it; a given decoder wins")
  func defaultAndResponseDecoder() throws {
    var response = makeResponse(text: #"{"postTitle":"a","content":"A"}"#)
    #expect(try response.decode(Post.self) == Post(postTitle: "a", content: "A"))
    let counting = CountingDecoder()
    response.defaultDecoder = counting
    #expect(try response.decode(Post.self) == Post(postTitle: "a", content: "A"))
    #expect(try response.decodeResource(Post.self).value == Post(postTitle: "a", content: "A"))
    #expect(counting.count == 2)
    // A decoder given to the call wins over the response's.
    let snake = makeResponse(text: #"{"post_title":"a","content":"A"}"#)
    var withDefault = snake
    withDefault.defaultDecoder = counting
    #expect(try withDefault.decode(Post.self, decoder: Self.snakeCase) == Post(postTitle: "a", content: "A"))
    #expect(counting.count == 2)
  }

  /// The same resource, under a key path with a lossy array, through every kind of decoder.
  @Test(
    "Key paths and lossy arrays work the same on every decoder",
    arguments: [
      ("MalibuJSONDecoder", MalibuJSONDecoder() as any ResponseDecoder, camelFeed),
      ("JSONDecoder, convertFromSnakeCase", snakeCase as any ResponseDecoder, snakeFeed),
      ("a counting decoder of a user's", CountingDecoder() as any ResponseDecoder, camelFeed),
    ]
  )
  func keyPathAndLossyArrays(name: String, decoder: any ResponseDecoder, body: String) throws {
    let response = makeResponse(text: body)
    let lossy = try response.decodeResource([Post].self, decoder: decoder, at: "data", arrays: .lossy)
    #expect(lossy.value == [Post(postTitle: "a", content: "A"), Post(postTitle: "c", content: "C")], "\(name)")
    #expect(lossy.skipped?.elements.map(\.element.path) == ["data[1]"], "\(name)")
    let strict = #expect(throws: NetworkError.self) {
      try response.decodeResource([Post].self, decoder: decoder, at: "data")
    }
    #expect(strict?.code == .decodingFailed)
    #expect(strict?.message.contains("missing key 'content' at data[1].content") == true, "\(name)")
    // A LossyArray inside the resource reports to the same decoding.
    struct Feed: Decodable { let data: LossyArray<Post> }
    let feed = try response.decodeResource(Feed.self, decoder: decoder)
    #expect(feed.value.data.count == 2)
    #expect(feed.skipped?.count == 1)
  }

  @Test("A property-list decoder, which knows nothing of Malibu, decodes resources under a key path, lossily")
  func propertyListDecoder() throws {
    let encoder = PropertyListEncoder()
    encoder.outputFormat = .xml
    let posts = [Post(postTitle: "a", content: "A"), Post(postTitle: "c", content: "C")]
    struct Envelope: Codable { let data: [Post] }
    let body = try encoder.encode(Envelope(data: posts))
    let response = makeResponse(Array(body), contentType: "application/x-plist")
    #expect(try response.decode(Envelope.self, decoder: PropertyListDecoder()).data == posts)
    let resource = try response.decodeResource([Post].self, decoder: PropertyListDecoder(), at: "data", arrays: .lossy)
    #expect(resource.value == posts)
    #expect(resource.skipped == nil)
    // A key that is not there names itself and the keys that are.
    let missing = #expect(throws: NetworkError.self) {
      try response.decodeResource([Post].self, decoder: PropertyListDecoder(), at: "items")
    }
    #expect(missing?.message.contains("has no key 'items'") == true)
    #expect(missing?.message.contains("its keys are 'data'") == true)
  }

  @Test("A decoder that throws fails with decodingFailed, its message and its error; the next decoding works")
  func throwingDecoder() throws {
    let response = makeResponse(text: #"{"postTitle":"a","content":"A"}"#)
    let plain = #expect(throws: NetworkError.self) { try response.decode(Post.self, decoder: FailingDecoder()) }
    #expect(plain?.code == .decodingFailed)
    #expect(plain?.message.contains("could not decode Post from the body: the decoder refuses this body") == true)
    #expect(plain?.underlyingError is FailingDecoder.Refusal)
    let resource = #expect(throws: NetworkError.self) {
      try response.decodeResource(Post.self, decoder: FailingDecoder(), at: "data")
    }
    #expect(resource?.code == .decodingFailed)
    #expect(resource?.message.contains("under 'data' from the body: the decoder refuses this body") == true)
    #expect(resource?.underlyingError is FailingDecoder.Refusal)
    #expect(try response.decode(Post.self) == Post(postTitle: "a", content: "A"))
  }

  @Test("Empty bodies follow the same rules whatever the decoder")
  func emptyBodies() throws {
    let headResponse = makeResponse([], status: 200, method: .head)
    let counting = CountingDecoder()
    #expect(try headResponse.decode(EmptyResponse.self, decoder: counting) == EmptyResponse())
    let empty = makeResponse([], status: 200)
    let error = #expect(throws: NetworkError.self) { try empty.decode(Post.self, decoder: counting) }
    #expect(error?.code == .emptyResponse)
    #expect(counting.count == 0)
  }
}
