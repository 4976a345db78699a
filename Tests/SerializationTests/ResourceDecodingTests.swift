import Foundation
import MalibuCore
import MalibuSerialization
import Testing

/// `LossyArray` and `Response.decodeResource`: lossy arrays, resources under a key path, decoders' strategies kept.
struct ResourceDecodingTests {
  struct Post: Decodable, Equatable {
    let title: String
    let content: String
  }

  struct Feed: Decodable {
    let title: String
    let posts: LossyArray<Post>
  }

  static let feed =
    #"{"feed":{"title":"cats","posts":[{"title":"a","content":"A"},{"title":"b"},7,{"title":"c","content":"C"}]}}"#

  @Test("A LossyArray keeps the elements that decode and lists the others, by index, path and reason")
  func lossyArrayInAStruct() throws {
    let response = makeResponse(text: Self.feed)
    let decoded = try response.decodeResource(Feed.self, at: "feed")
    #expect(decoded.value.posts.elements == [Post(title: "a", content: "A"), Post(title: "c", content: "C")])
    #expect(decoded.value.posts.count == 2)
    #expect(decoded.value.posts.skipped.map(\.index) == [1, 2])
    #expect(decoded.value.posts.skipped.map(\.path) == ["feed.posts[1]", "feed.posts[2]"])
    #expect(decoded.value.posts.skipped[0].reason.contains("missing key 'content'"))
    // The same elements reach the decoding's report, so a networking can publish them.
    let report = try #require(decoded.skipped)
    #expect(report.count == 2)
    #expect(report.elements.allSatisfy { $0.elementType == "Post" })
    // Decoded with plain `decode`, the array still says what it left out.
    let plain = try makeResponse(text: #"{"title":"t","posts":[{"title":"b"}]}"#).decode(Feed.self)
    #expect(plain.posts.isEmpty)
    #expect(plain.posts.skipped.count == 1)
  }

  @Test("A lossy resource array: elements left out and reported; strict: the error names the element's path")
  func lossyAndStrictTopLevelArrays() throws {
    let response = makeResponse(text: #"{"data":[{"title":"a","content":"A"},{"title":"b"}]}"#)
    let lossy = try response.decodeResource([Post].self, at: "data", arrays: .lossy)
    #expect(lossy.value == [Post(title: "a", content: "A")])
    #expect(lossy.skipped?.elements.map(\.element.path) == ["data[1]"])
    let error = #expect(throws: NetworkError.self) { try response.decodeResource([Post].self, at: "data") }
    #expect(error?.code == .decodingFailed)
    #expect(
      error?.message.contains(
        "could not decode Array<Post> under 'data' from the body: missing key 'content' at data[1].content"
      ) == true
    )
    #expect(error?.message.contains("the response has status 200") == true)
  }

  @Test("A missing key of the path names the key, where it was looked for, and the keys there")
  func missingKey() throws {
    let response = makeResponse(text: #"{"data":{"items":[]}}"#)
    let error = #expect(throws: NetworkError.self) { try response.decodeResource([Post].self, at: ["data", "posts"]) }
    #expect(error?.code == .decodingFailed)
    #expect(
      error?.message.contains("the object at data has no key 'posts' to find the resource under; its keys are 'items'")
        == true
    )
    #expect(error?.message.contains(#"{\"data\":{\"items\":[]}}"#) == true)
  }

  @Test("The decoder's strategies apply under a key path, to the resource itself too")
  func strategiesAreKept() throws {
    struct Stamp: Decodable { let createdAt: Date }
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    decoder.dateDecodingStrategy = .iso8601
    let response = makeResponse(text: #"{"data":{"created_at":"2026-01-02T03:04:05Z"},"when":"2026-01-02T03:04:05Z"}"#)
    let stamp = try response.decodeResource(Stamp.self, decoder: decoder, at: "data").value
    let date = try response.decodeResource(Date.self, decoder: decoder, at: "when").value
    #expect(stamp.createdAt == date)
    #expect(date.timeIntervalSince1970 == 1_767_323_045)
  }
}
