import Foundation
import MalibuCore
import MalibuSerialization
import Testing

struct Board: Decodable, Equatable {
  var id: Int
  var title: String
  var ownerName: String?
}

/// A type whose decoding fails with an error that is not a `DecodingError`.
struct Picky: Decodable {
  struct Refusal: Error, Equatable {}

  init(from decoder: any Decoder) throws {
    throw Refusal()
  }
}

struct DecodableTests {
  @Test("A body decodes into the requested type with the plain default decoder")
  func success() throws {
    let response = makeResponse(text: #"[{"id": 1, "title": "Balsa"}, {"id": 2, "title": "Fish", "ownerName": "Ada"}]"#)
    let boards = try response.decode([Board].self)
    #expect(boards == [Board(id: 1, title: "Balsa"), Board(id: 2, title: "Fish", ownerName: "Ada")])
    let inferred: [Board] = try response.decode()
    #expect(inferred == boards)
  }

  @Test("A custom decoder is used")
  func customDecoder() throws {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    let response = makeResponse(text: #"{"id": 3, "title": "T", "owner_name": "Bo"}"#)
    #expect(try response.decode(Board.self, decoder: decoder) == Board(id: 3, title: "T", ownerName: "Bo"))
    #expect(try response.decode(Board.self).ownerName == nil)
  }

  @Test(
    "Decoding failures are decodingFailed, keep the DecodingError and name the coding path",
    arguments: [
      (#"[{"id": 1, "title": "a"}, {"id": 2}]"#, "missing key 'title' at [1].title"),
      (#"[{"id": "one", "title": "a"}]"#, "at [0].id"),
      (#"[{"id": 1, "title": null}]"#, "at [0].title"),
      (#"{"id": 1, "title": "a"}"#, "at $ (the top level)"),
      (#"[{"id": 1, "title": "a"}, {"#, "corrupted data"),
      ("[{'id': 1}]", "corrupted data"),
    ]
  )
  func failure(text: String, fragment: String) throws {
    let response = makeResponse(text: text)
    let error = expectNetworkError(.decodingFailed, response: response) { () throws(NetworkError) in
      try response.decode([Board].self)
    }
    #expect(error?.underlyingError is DecodingError)
    #expect(error?.message.contains(fragment) == true, "\(error?.message ?? "")")
    #expect(error?.message.contains("could not decode Array<Board>") == true, "\(error?.message ?? "")")
  }

  @Test("An error thrown by init(from:) is kept as the underlying error")
  func otherError() throws {
    let response = makeResponse(text: "{}")
    let error = expectNetworkError(.decodingFailed, response: response) { () throws(NetworkError) in
      try response.decode(Picky.self)
    }
    #expect(error?.underlyingError as? Picky.Refusal == Picky.Refusal())
  }

  @Test("The body goes to the decoder as is: its own parsing rules apply")
  func decoderRulesApply() throws {
    // swift-foundation's JSONDecoder accepts a trailing comma that the strict parser behind toJsonArray rejects.
    let response = makeResponse(text: "[1, 2,]")
    #expect(try response.decode([Int].self) == [1, 2])
    expectNetworkError(.jsonSerializationFailed, response: response) { () throws(NetworkError) in
      try response.toJsonArray()
    }
  }

  @Test("EmptyResponse decodes from an object, Optional from null")
  func emptyTypesFromJSON() throws {
    #expect(try makeResponse(text: #"{"ignored": 1}"#).decode(EmptyResponse.self) == EmptyResponse())
    #expect(try makeResponse(text: "null").decode(Board?.self) == nil)
  }
}
