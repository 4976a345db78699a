import Foundation
import MalibuCore
import MalibuEncoding
import Testing

@Suite struct FormURLEncoderTests {
  static let escapes: [(String, String)] = [
    ("abcXYZ019-._~", "abcXYZ019-._~"),
    ("a b", "a%20b"),
    ("a+b=c&d", "a%2Bb%3Dc%26d"),
    (":#[]@!$&'()*+,;=", "%3A%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D"),
    ("?/", "?/"),
    ("path/to?x", "path/to?x"),
    ("%", "%25"),
    ("é", "%C3%A9"),
    ("日本", "%E6%97%A5%E6%9C%AC"),
    ("🏄", "%F0%9F%8F%84"),
    ("\"<>\\^`{|}", "%22%3C%3E%5C%5E%60%7B%7C%7D"),
    ("\r\n\t", "%0D%0A%09"),
    ("", ""),
  ]

  @Test(arguments: escapes)
  func escapesByRFC3986(input: String, expected: String) {
    #expect(FormURLEncoder.escape(input) == expected)
  }

  static let queries: [(Parameters, String)] = [
    (["firstname": "John", "lastname": "Doe"], "firstname=John&lastname=Doe"),
    (["a": ["b": 1]], "a%5Bb%5D=1"),
    (["a": ["b": ["c": "d"]]], "a%5Bb%5D%5Bc%5D=d"),
    (["z": 1, "a": 2, "m": 3], "a=2&m=3&z=1"),
    (["a": ["z": 1, "b": 2] as [String: any Sendable]], "a%5Bb%5D=2&a%5Bz%5D=1"),
    (["list": [1, 2]], "list%5B%5D=1&list%5B%5D=2"),
    (
      ["items": [["id": 1, "n": "x"], ["id": 2]] as [[String: any Sendable]]],
      "items%5B%5D%5Bid%5D=1&items%5B%5D%5Bn%5D=x&items%5B%5D%5Bid%5D=2"
    ),
    (["flag": true, "off": false], "flag=1&off=0"),
    (["empty": "", "none": String?.none as any Sendable], "empty=&none="),
    (["emptyList": [Int](), "emptyDict": [String: Int](), "x": 1], "x=1"),
    (["double": 1.5, "whole": 2.0, "int": 3], "double=1.5&int=3&whole=2.0"),
    (["q": "a b&c=d", "é": "日本"], "q=a%20b%26c%3Dd&%C3%A9=%E6%97%A5%E6%9C%AC"),
    ([:], ""),
  ]

  @Test(arguments: queries)
  func buildsQueryStrings(parameters: Parameters, expected: String) throws {
    #expect(try FormURLEncoder().queryString(from: parameters) == expected)
  }

  static let arrayStyles: [(FormURLEncoding.ArrayStyle, String)] = [
    (.brackets, "a%5B%5D=1&a%5B%5D=2&b%5Bc%5D%5B%5D=x"),
    (.noBrackets, "a=1&a=2&b%5Bc%5D=x"),
    (.indexInBrackets, "a%5B0%5D=1&a%5B1%5D=2&b%5Bc%5D%5B0%5D=x"),
  ]

  @Test(arguments: arrayStyles)
  func writesArraysInEachStyle(style: FormURLEncoding.ArrayStyle, expected: String) throws {
    let parameters: Parameters = ["a": [1, 2], "b": ["c": ["x"]]]
    #expect(try FormURLEncoder(arrayStyle: style).queryString(from: parameters) == expected)
  }

  static let boolStyles: [(FormURLEncoding.BoolStyle, String)] = [
    (.numeric, "no=0&yes=1"),
    (.literal, "no=false&yes=true"),
  ]

  @Test(arguments: boolStyles)
  func writesBoolsInEachStyle(style: FormURLEncoding.BoolStyle, expected: String) throws {
    let encoder = FormURLEncoder(boolStyle: style)
    #expect(try encoder.queryString(from: ["yes": true, "no": false]) == expected)
  }

  @Test func orderIsTheSameOnEveryRun() throws {
    var parameters: Parameters = [:]
    for index in 0..<50 {
      parameters["key\(index)"] = ["z": index, "a": [index, index + 1]] as [String: any Sendable]
    }
    let first = try FormURLEncoder().queryString(from: parameters)
    for _ in 0..<20 {
      // A fresh dictionary each time: a different insertion order and hash seed layout.
      let shuffled = Dictionary(uniqueKeysWithValues: parameters.shuffled().map { ($0.key, $0.value) })
      #expect(try FormURLEncoder().queryString(from: shuffled) == first)
    }
    #expect(first.hasPrefix("key0%5Ba%5D%5B%5D=0&key0%5Ba%5D%5B%5D=1&key0%5Bz%5D=0&key1%5B"))
  }

  @Test func encodesABodyAsUTF8() throws {
    let body = try FormURLEncoder().encode(parameters: ["name": "Zoë", "tags": ["a", "b"]])
    #expect(text(body) == "name=Zo%C3%AB&tags%5B%5D=a&tags%5B%5D=b")
  }

  @Test func emptyParametersGiveNoBody() throws {
    #expect(try FormURLEncoder().encode(parameters: [:]) == nil)
    let body = try FormURLEncoder().encodeBody(parameters: [:], contentType: .formURLEncoded)
    #expect(body.isEmpty)
    #expect(body.contentType == nil)
  }

  static let headers: [(ContentType, String?)] = [
    (.formURLEncoded, "application/x-www-form-urlencoded; charset=utf-8"),
    (.custom("text/x-form"), "text/x-form"),
  ]

  @Test(arguments: headers)
  func encodeBodyNamesTheContentType(contentType: ContentType, expected: String?) throws {
    let body = try FormURLEncoder().encodeBody(parameters: ["a": 1], contentType: contentType)
    #expect(body.contentType == expected)
    #expect(text(body.data) == "a=1")
  }
}
