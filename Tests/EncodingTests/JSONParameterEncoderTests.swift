import Foundation
import MalibuCore
import MalibuEncoding
import Testing

@Suite struct JSONParameterEncoderTests {
  static let documents: [(Parameters, String)] = [
    (["a": 1], #"{"a":1}"#),
    (["z": 1, "a": 2, "m": ["y": true, "b": false]], #"{"a":2,"m":{"b":false,"y":true},"z":1}"#),
    (["d": 1.5, "i": 3, "w": 1.0, "t": 0.1], #"{"d":1.5,"i":3,"t":0.1,"w":1}"#),
    (["s": "a/b \"q\" é", "n": String?.none as any Sendable], #"{"n":null,"s":"a/b \"q\" é"}"#),
    (["list": [1, 2, 3], "nested": [["k": "v"]]], #"{"list":[1,2,3],"nested":[{"k":"v"}]}"#),
    (["date": Date(timeIntervalSince1970: 0)], #"{"date":"1970-01-01T00:00:00Z"}"#),
    (["data": Data([0, 1, 2, 255])], #"{"data":"AAEC/w=="}"#),
    (["url": URL(string: "https://example.com/a?b=c")!], #"{"url":"https://example.com/a?b=c"}"#),
  ]

  @Test(arguments: documents)
  func encodesParametersWithSortedKeys(parameters: Parameters, expected: String) throws {
    #expect(text(try JSONParameterEncoder().encode(parameters: parameters)) == expected)
  }

  @Test func keysCanBeLeftUnsorted() throws {
    var parameters: Parameters = [:]
    for index in 0..<20 { parameters["k\(index)"] = index }
    let sorted = try #require(try JSONParameterEncoder().encode(parameters: parameters))
    let unsorted = try #require(try JSONParameterEncoder(sortsKeys: false).encode(parameters: parameters))
    let decodedSorted = try JSONDecoder().decode([String: Int].self, from: sorted)
    let decodedUnsorted = try JSONDecoder().decode([String: Int].self, from: unsorted)
    #expect(decodedSorted == decodedUnsorted)
    #expect(text(sorted).hasPrefix(#"{"k0":0,"k1":1,"k10":10,"k11":11"#))
  }

  @Test func prettyPrintsWhenAsked() throws {
    let data = try JSONParameterEncoder(prettyPrinted: true).encode(parameters: ["b": 1, "a": [2]])
    #expect(text(data).contains("\n"))
    #expect(text(data).firstRange(of: "\"a\"")!.lowerBound < text(data).firstRange(of: "\"b\"")!.lowerBound)
  }

  @Test func emptyParametersGiveNoBody() throws {
    #expect(try JSONParameterEncoder().encode(parameters: [:]) == nil)
    let body = try JSONParameterEncoder().encodeBody(parameters: [:], contentType: .json)
    #expect(body.isEmpty)
    #expect(body.contentType == nil)
  }

  @Test func encodeBodyUsesTheJSONMediaType() throws {
    let body = try JSONParameterEncoder().encodeBody(parameters: ["a": 1], contentType: .json)
    #expect(body.contentType == "application/json")
    #expect(text(body.data) == #"{"a":1}"#)
  }

  @Test func encodesTopLevelArrays() throws {
    let array: [any Sendable] = [["id": 2, "a": "x"] as [String: any Sendable], 1, "s", true, 2.5]
    #expect(text(try JSONParameterEncoder().encode(array: array)) == #"[{"a":"x","id":2},1,"s",true,2.5]"#)
    #expect(text(try JSONParameterEncoder().encode(array: [])) == "[]")
  }

  struct Board: Encodable {
    var title: String
    var id: Int
    var ratio: Double
    var created: Date
    var thumbnail: Data
    var tags: [String]
  }

  static let board = Board(
    title: "Balsa",
    id: 7,
    ratio: 1.0,
    created: Date(timeIntervalSince1970: 1_700_000_000.25),
    thumbnail: Data([1, 2]),
    tags: ["fish", "wood/foam"]
  )
  static let boardJSON =
    #"{"created":"2023-11-14T22:13:20.250Z","id":7,"ratio":1,"tags":["fish","wood/foam"],"thumbnail":"AQI=","title":"Balsa"}"#

  @Test func encodesAnEncodableStructWithCoreDateAndDataRules() throws {
    #expect(text(try JSONParameterEncoder().encode(Self.board)) == Self.boardJSON)
  }

  @Test func encodesATopLevelArrayOfEncodables() throws {
    #expect(
      text(try JSONParameterEncoder().encode([Self.board, Self.board])) == "[\(Self.boardJSON),\(Self.boardJSON)]"
    )
  }

  @Test func anEncodableParameterIsNormalisedTheSameWay() throws {
    let data = try JSONParameterEncoder().encode(parameters: ["board": Self.board])
    #expect(text(data) == #"{"board":\#(Self.boardJSON)}"#)
  }

  struct Reading: Encodable {
    var values: [Double]
  }

  static let nonFinite: [Double] = [.nan, .infinity, -.infinity]

  @Test(arguments: nonFinite)
  func nonFiniteNumbersAreErrors(value: Double) throws {
    let parameterError = networkError { _ = try JSONParameterEncoder().encode(parameters: ["x": ["y": value]]) }
    #expect(parameterError?.code == .unsupportedParameter)
    #expect(parameterError?.message.contains("'x[y]'") == true)

    let arrayError = networkError { _ = try JSONParameterEncoder().encode(array: [1, value]) }
    #expect(arrayError?.code == .unsupportedParameter)
    #expect(arrayError?.message.contains("[1]") == true)

    let encodableError = networkError { _ = try JSONParameterEncoder().encode(Reading(values: [1, value])) }
    #expect(encodableError?.code == .encodingFailed)
    #expect(encodableError?.message.contains("values[1]") == true)
    #expect(encodableError?.underlyingError is EncodingError)
  }
}
